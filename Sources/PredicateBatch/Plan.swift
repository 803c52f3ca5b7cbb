import PredicateBytecode
import PredicateSemantics
import PredicateSyntax
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
            switch instruction {
            case .pushSelf, .loadSelfKeyPath: return true
            default: return false
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

/// A comparison decided by whether the row's value is nil: `x == nil`, `x != nil` and the like.
struct NilTest: Sendable {
    let whenNil: Bool
    let otherwise: Bool

    init?(_ op: ComparisonOperator, _ constant: Value, constantOnLeft: Bool) {
        guard constant.isNil || constant.isNull, op.isRelationalOperator else { return nil }
        // Any non-nil value stands for all of them: with a nil operand only nil-ness matters.
        func result(_ row: Value) -> Bool? {
            constantOnLeft
                ? ComparisonOperators.scalar(op, constant, row) : ComparisonOperators.scalar(op, row, constant)
        }
        guard let whenNil = result(.nil), let otherwise = result(.int(0)) else { return nil }
        self.whenNil = whenNil
        self.otherwise = otherwise
    }
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

/// The integers `x` for which `x op constant` holds: `lower...upper`, or its complement when
/// `negated`; nothing (or everything, negated) when `isEmpty`.
struct IntegerTest: Sendable {
    let lower: Int64
    let upper: Int64
    let isEmpty: Bool
    let negated: Bool

    /// Derived from the semantics themselves: each relational operator is monotone in `x`, so
    /// the boundary is found by bisection on ``ComparisonOperators/scalar(_:_:_:)``.
    init?(_ op: ComparisonOperator, _ constant: Value) {
        func holds(_ op: ComparisonOperator, _ x: Int64) -> Bool? {
            ComparisonOperators.scalar(op, .int(x), constant)
        }
        guard holds(op, 0) != nil else { return nil }
        /// The smallest `x` for which `op` holds, for an operator that holds from some point on
        /// (`>=`, `>`); `nil` when it holds for none.
        func first(_ op: ComparisonOperator) -> Int64? {
            guard holds(op, .max) == true else { return nil }
            var low = Int64.min
            var high = Int64.max
            while low < high {
                let middle = low + Int64(UInt64(bitPattern: high &- low) / 2)
                if holds(op, middle) == true { high = middle } else { low = middle + 1 }
            }
            return low
        }
        /// The largest `x` for which `op` holds, for an operator that holds up to some point
        /// (`<=`, `<`); `nil` when it holds for none.
        func last(_ op: ComparisonOperator) -> Int64? {
            guard holds(op, .min) == true else { return nil }
            var low = Int64.min
            var high = Int64.max
            while low < high {
                let middle = high - Int64(UInt64(bitPattern: high &- low) / 2)
                if holds(op, middle) == true { low = middle } else { high = middle - 1 }
            }
            return low
        }
        var lower = Int64.min
        var upper = Int64.max
        var isEmpty = false
        var negated = false
        switch op {
        case .equal, .notEqual:
            if let low = first(.greaterOrEqual), let high = last(.lessOrEqual), low <= high {
                lower = low
                upper = high
            } else {
                isEmpty = true
            }
            negated = op == .notEqual
        case .greaterOrEqual:
            if let low = first(.greaterOrEqual) { lower = low } else { isEmpty = true }
        case .greater:
            if let low = first(.greater) { lower = low } else { isEmpty = true }
        case .lessOrEqual:
            if let high = last(.lessOrEqual) { upper = high } else { isEmpty = true }
        case .less:
            if let high = last(.less) { upper = high } else { isEmpty = true }
        default:
            return nil
        }
        self.lower = lower
        self.upper = upper
        self.isEmpty = isEmpty
        self.negated = negated
    }

    private init(lower: Int64, upper: Int64, isEmpty: Bool, negated: Bool) {
        self.lower = lower
        self.upper = upper
        self.isEmpty = isEmpty
        self.negated = negated
    }

    /// The values passing both tests (`a AND b` on one column), when both are intervals.
    func intersection(_ other: IntegerTest) -> IntegerTest? {
        guard !negated, !other.negated else { return nil }
        let lower = max(self.lower, other.lower)
        let upper = min(self.upper, other.upper)
        return IntegerTest(
            lower: lower, upper: upper, isEmpty: isEmpty || other.isEmpty || lower > upper, negated: false)
    }

    /// Whether `x` passes, without branches: one unsigned comparison.
    @inline(__always)
    func holds(_ x: Int64) -> Bool {
        let inside = !isEmpty && UInt64(bitPattern: x &- lower) <= UInt64(bitPattern: upper &- lower)
        return inside != negated
    }
}

/// A relational operator against a double bound, where machine comparison is the language's:
/// the column holds no NaN, and the bound is a double that is not NaN or an integer that a double
/// holds exactly.
struct DoubleTest: Sendable {
    let op: ComparisonOperator
    let bound: Double

    init?(_ op: ComparisonOperator, _ constant: Value, dates: Bool) {
        guard op.isRelationalOperator else { return nil }
        let bound: Double
        switch constant {
        case .date(let seconds) where dates: bound = seconds
        case .double(let value) where !dates: bound = value
        case .int(let value) where !dates && value.magnitude <= 1 << 53: bound = Double(value)
        case .uint(let value) where !dates && value <= 1 << 53: bound = Double(value)
        case .bool(let flag) where !dates: bound = flag ? 1 : 0
        default: return nil
        }
        guard !bound.isNaN else { return nil }
        self.op = op
        self.bound = bound
    }

    @inline(__always)
    func holds(_ x: Double) -> Bool {
        switch op {
        case .equal: return x == bound
        case .notEqual: return x != bound
        case .less: return x < bound
        case .lessOrEqual: return x <= bound
        case .greater: return x > bound
        default: return x >= bound
        }
    }
}

/// A string operator with its constant prepared once (folded needle, compiled pattern).
enum StringTest: Sendable {
    case equal(StringMatcher, negated: Bool)
    case prefix(StringMatcher)
    case suffix(StringMatcher)
    case contains(StringMatcher)
    case like(LikePattern)
    case matches(RegularExpressionMatcher)

    init?(_ op: ComparisonOperator, _ constant: Value, options: ComparisonOptions, environment: EvaluationEnvironment) {
        guard case .string(let text) = constant else { return nil }
        switch op {
        case .equal, .notEqual: self = .equal(StringMatcher(text, options: options), negated: op == .notEqual)
        case .beginsWith: self = .prefix(StringMatcher(text, options: options))
        case .endsWith: self = .suffix(StringMatcher(text, options: options))
        case .contains: self = .contains(StringMatcher(text, options: options))
        case .like:
            guard !text.isEmpty, let pattern = try? environment.patterns.like(text, options: options) else {
                return nil
            }
            self = .like(pattern)
        case .matches:
            guard !text.isEmpty, let pattern = try? environment.patterns.regularExpression(text, options: options)
            else { return nil }
            self = .matches(pattern)
        default:
            return nil
        }
    }

    /// Whether the row's string passes.
    @inline(__always)
    func holds(_ text: String) -> Bool {
        switch self {
        case .equal(let matcher, let negated): return matcher.equals(text) != negated
        case .prefix(let matcher): return matcher.isPrefix(of: text)
        case .suffix(let matcher): return matcher.isSuffix(of: text)
        case .contains(let matcher): return matcher.isContained(in: text)
        case .like(let pattern): return pattern.matches(text)
        case .matches(let pattern): return pattern.matches(text)
        }
    }
}

extension ComparisonOperator {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    var isRelationalOperator: Bool {
        switch self {
        case .equal, .notEqual, .less, .greater, .lessOrEqual, .greaterOrEqual: return true
        default: return false
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`), for relational operators.
    var mirrored: ComparisonOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .greater: return .less
        case .lessOrEqual: return .greaterOrEqual
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }
}
