import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// How the batch engine evaluates a predicate program: the program's `AND`/`OR`/`NOT` structure
/// recovered from its jumps, with comparisons of a column against a constant as vector kernels
/// and everything else as slices of the program run by the scalar VM, row by row.
struct Plan: Sendable {
    /// The root: rows for which it is true match.
    let root: PlanNode
    /// The key paths the vector leaves read, by column number.
    let columns: [[KeyComponent]]
    /// How many ``ScalarRegion``s the plan holds (numbered from 0), for per-worker machines.
    let regionCount: Int
    /// How many ``SubqueryLeaf``s the plan holds (numbered from 0), for per-worker scratch space.
    let subqueryCount: Int
    /// The most instructions the scalar VM runs for one row outside loops (a `SUBQUERY` body
    /// counts once): what every row is charged up front against its step budget, so a row whose
    /// other charges stay below ``EvaluationLimits/maximumSteps`` minus this cannot have failed
    /// on the VM's budget either.
    let rowCost: Int
    /// Whether some comparison reads a `$variable` the caller binds: a plan for other values of
    /// the variables is then made again (``Planner``).
    let readsVariables: Bool
}

/// A node of a ``Plan``: given the rows still in question, which of them are true.
indirect enum PlanNode: Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE` (or a folded constant).
    case constant(Bool)
    /// Both; the right side only sees the rows the left kept.
    case and(PlanNode, PlanNode)
    /// Either; the right side only sees the rows the left rejected.
    case or(PlanNode, PlanNode)
    /// The rows the operand rejected (without those where it failed).
    case not(PlanNode)
    /// A column compared with a constant.
    case compare(ComparisonLeaf)
    /// `SUBQUERY(collection, $v, inner).@count op k`, with the inner predicate itself a plan run
    /// over the collection's elements.
    case subquery(SubqueryLeaf)
    /// Anything else: the instructions themselves, row by row.
    case scalar(ScalarRegion)
}

extension Plan {
    /// Whether any clause run on the scalar VM reads `SELF` (so answers depend on more than the row
    /// and the variables).
    var readsEvaluatedObject: Bool { root.readsEvaluatedObject }
}

extension PlanNode {
    /// Whether a scalar region of this subtree reads `SELF`.
    var readsEvaluatedObject: Bool {
        switch self {
        case .and(let left, let right), .or(let left, let right):
            return left.readsEvaluatedObject || right.readsEvaluatedObject
        case .not(let operand): return operand.readsEvaluatedObject
        case .scalar(let region): return region.readsEvaluatedObject
        case .compare(let leaf): return leaf.fallback.readsEvaluatedObject
        case .subquery(let leaf): return leaf.fallback.readsEvaluatedObject
        case .constant: return false
        }
    }

    /// Calls `body` with each `SUBQUERY` leaf outside other subqueries.
    func forEachSubquery(_ body: (SubqueryLeaf) -> Void) {
        switch self {
        case .and(let left, let right), .or(let left, let right):
            left.forEachSubquery(body)
            right.forEachSubquery(body)
        case .not(let operand): operand.forEachSubquery(body)
        case .subquery(let leaf): body(leaf)
        case .constant, .compare, .scalar: break
        }
    }
}

/// Instructions of the program that evaluate one Boolean, made into a program of their own.
struct ScalarRegion: Sendable {
    /// Whether the instructions read `SELF`.
    var readsEvaluatedObject: Bool {
        program.code.contains { instruction in
            switch instruction.facts.readsSelf {
            case .never: return false
            case .always: return true
            case .throughSite:
                guard let site = instruction.comparisonSite, site < program.comparisons.count else { return false }
                return program.comparisons[site].receiver == .evaluatedObject
            }
        }
    }

    /// The region's number within its plan.
    let id: Int
    /// The instructions with `RETURN_BOOL` after them; tables and source ranges are the
    /// original program's, so results and errors are too.
    let program: Program
}

/// `column op constant` (or `constant op column`), with the constant prepared for every kind of
/// column the batch may hold.
struct ComparisonLeaf: Sendable {
    /// The leaf's number within its plan, for per-worker caches.
    let id: Int
    /// The column's number within the plan.
    let column: Int
    let op: ComparisonOperator
    let options: ComparisonOptions
    let quantifier: Quantifier
    let constant: Value
    /// Whether the constant is the left operand.
    let constantOnLeft: Bool
    /// The comparison's source range, for errors.
    let site: SourceRange?
    /// The leaf's own instructions, for a column that could not be read.
    let fallback: ScalarRegion
    /// For integer and Boolean columns: the values for which the comparison holds.
    let integers: IntegerTest?
    /// For double columns: the comparison as a machine comparison.
    let doubles: DoubleTest?
    /// For date columns: the comparison as a machine comparison.
    let dates: DoubleTest?
    /// For string columns: the prepared string operator.
    let strings: StringTest?
    /// The result for a `nil` row, or `nil` when the comparison throws for one.
    let nilResult: Bool?
    /// For a relational comparison with `nil` (`x != nil`): the result for a nil row and for any
    /// other, whatever the column holds.
    let nilTest: NilTest?
}

/// `SUBQUERY(column, $variable, inner).@count op constant`.
struct SubqueryLeaf: Sendable {
    /// The leaf's number within its plan.
    let id: Int
    /// The column holding each row's collection.
    let collection: Int
    /// The variable's name, for regions of the inner plan that read it.
    let variable: String
    /// The inner predicate, over the collection's elements as rows.
    let inner: Plan
    let op: ComparisonOperator
    let options: ComparisonOptions
    /// What the count is compared with.
    let comparand: Comparand
    /// The comparison's source range, for errors.
    let site: SourceRange?
    /// The whole `SUBQUERY … op k` as instructions, for rows whose collection is not an array
    /// or a set.
    let fallback: ScalarRegion

    /// The right operand of the count's comparison.
    enum Comparand: Sendable {
        /// A constant: `.@count > 0`.
        case constant(Value)
        /// The collection's own count: `.@count == fileproviderItems.@count` ("all of them").
        case collectionCount
    }

    /// The answer for `count` matching elements of a collection of `total`.
    func outcome(count: Int, of total: Int, environment: EvaluationEnvironment) -> Result<Bool, EvaluationError> {
        let right: Value
        switch comparand {
        case .constant(let value): right = value
        case .collectionCount: right = .int(Int64(total))
        }
        return Result { () throws(EvaluationError) -> Bool in
            try ComparisonOperators.evaluate(
                op, .int(Int64(count)), right, quantifier: .direct, options: options, environment: environment)
        }.mapError { site.map($0.at) ?? $0 }
    }
}
