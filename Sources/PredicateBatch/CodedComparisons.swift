import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// What a comparison leaf answers for one value of a coded string column, and what that costs:
/// the same answer and charge the leaf's path over plain strings gives each row holding it.
struct CodedOutcome: Sendable {
    enum Answer: Sendable {
        case holds(Bool)
        /// The comparison's error, at the leaf's position.
        case fails(EvaluationError)
        /// A pattern ran out of matching steps: the row is the scalar VM's to decide.
        case ranOut
    }

    let answer: Answer
    /// Steps charged to each row holding the value.
    let steps: Int
}

/// Outcomes (``CodedOutcome``) laid out for kernels: one byte and one step count per code, read
/// through plain pointers, and the errors apart, so a row costs no copy of an outcome.
struct CodeDecisions: Sendable {
    static let isFalse: UInt8 = 0
    static let isTrue: UInt8 = 1
    static let fails: UInt8 = 2
    static let ranOut: UInt8 = 3

    /// Per code, ``isFalse``, ``isTrue``, ``fails`` or ``ranOut``.
    let answers: [UInt8]
    /// Per code, the steps charged to a row holding it.
    let steps: [Int]
    /// Per code whose answer is ``fails``, the index of its error in ``errorList`` (else -1):
    /// read without copying an optional error on every row.
    let errorIndex: [Int32]
    let errorList: [EvaluationError]
    /// Whether some code charges steps.
    let charges: Bool

    init(_ outcomes: [CodedOutcome]) {
        answers = outcomes.map { outcome in
            switch outcome.answer {
            case .holds(let flag): return flag ? Self.isTrue : Self.isFalse
            case .fails: return Self.fails
            case .ranOut: return Self.ranOut
            }
        }
        steps = outcomes.map(\.steps)
        var errorList: [EvaluationError] = []
        errorIndex = outcomes.map { outcome in
            guard case .fails(let error) = outcome.answer else { return -1 }
            errorList.append(error)
            return Int32(errorList.count - 1)
        }
        self.errorList = errorList
        charges = steps.contains { $0 > 0 }
    }

    /// The answers as mask bytes, when every code's is a plain one that costs nothing.
    var mask: [UInt8]? {
        charges || answers.contains(where: { $0 > Self.isTrue }) ? nil : answers
    }
}

extension ComparisonLeaf {
    /// The outcome for each code of a coded column whose distinct values are `distinct`: entry
    /// 0 for nil rows, entry `code + 1` for the others.
    ///
    /// Each value takes the path its rows would take over plain strings: the prepared string
    /// test (patterns charged their matching steps), a type identifier's conformance (charged
    /// nothing, as its memo is), or the general comparison (charged its cost and steps).
    func codedOutcomes(_ distinct: [String], environment: EvaluationEnvironment) -> [CodedOutcome] {
        var outcomes: [CodedOutcome] = []
        outcomes.reserveCapacity(distinct.count + 1)
        outcomes.append(outcome(nil, environment: environment))
        for text in distinct { outcomes.append(outcome(text, environment: environment)) }
        return outcomes
    }

    private func outcome(_ text: String?, environment: EvaluationEnvironment) -> CodedOutcome {
        if let test = strings, let nilResult {
            guard let text else { return CodedOutcome(answer: .holds(nilResult), steps: 0) }
            let limit = environment.limits.maximumPatternSteps
            var left = limit
            guard let holds = test.holds(text, budget: &left) else { return CodedOutcome(answer: .ranOut, steps: 0) }
            return CodedOutcome(answer: .holds(holds), steps: limit - max(0, left))
        }
        let memoized = op == .utiConformsTo || op == .utiEquals
        return generalOutcome(
            text.map(Value.string) ?? .nil, quantifier: quantifier, charged: !memoized, environment: environment)
    }

    /// The general comparison of `value` (the row's operand) with the constant under
    /// `quantifier`, charged the steps its patterns spend and, when `charged`, its cost.
    private func generalOutcome(
        _ value: Value, quantifier: Quantifier, charged: Bool, environment: EvaluationEnvironment
    ) -> CodedOutcome {
        let lhs = constantOnLeft ? constant : value
        let rhs = constantOnLeft ? value : constant
        let cost = charged ? EvaluationCost.comparison(lhs, rhs) : 0
        let allowed = environment.limits.maximumSteps
        var left = allowed
        do throws(EvaluationError) {
            let holds = try ComparisonOperators.evaluate(
                op, lhs, rhs, quantifier: quantifier, options: options, environment: environment, steps: &left)
            return CodedOutcome(answer: .holds(holds), steps: cost.saturatingAdd(allowed - max(0, left)))
        } catch {
            if error.kind == .limitExceeded { return CodedOutcome(answer: .ranOut, steps: 0) }
            return CodedOutcome(answer: .fails(site.map(error.at) ?? error), steps: cost)
        }
    }

    /// For `ANY`/`ALL` over a column of string lists: the outcome of a nil row (charged as the
    /// general path charges it), and of each distinct element compared alone (charged only the
    /// steps its pattern spends: the comparison's cost is the row's, from its length).
    func listOutcomes(
        _ distinct: [String], environment: EvaluationEnvironment
    ) -> (
        nilRow: CodedOutcome, elements: [CodedOutcome]
    ) {
        let nilRow = generalOutcome(.nil, quantifier: quantifier, charged: true, environment: environment)
        let elements = distinct.map {
            generalOutcome(.string($0), quantifier: .direct, charged: false, environment: environment)
        }
        return (nilRow, elements)
    }
}
