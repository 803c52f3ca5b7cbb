import PredicateSemantics

/// What a rule set answered for one input: which rules are true, and the errors that made others
/// false.
public struct RuleSetResult: Sendable {
    /// Rule `r` is true when bit `r % 64` of word `r / 64` is set.
    public let bits: [UInt64]
    /// The rules that failed, in the order they failed, each with its error (source ranges point
    /// into the rule set's source; rule -1 means the program itself could not run).
    public let errors: [(rule: Int, error: EvaluationError)]

    /// Creates a result.
    public init(bits: [UInt64], errors: [(rule: Int, error: EvaluationError)]) {
        self.bits = bits
        self.errors = errors
    }

    /// Whether rule `rule` is true.
    public func isSatisfied(_ rule: Int) -> Bool {
        guard rule >= 0, rule >> 6 < bits.count else { return false }
        return bits[rule >> 6] & (1 << UInt64(rule & 63)) != 0
    }

    /// Rules 0 to 63 as one mask: bit `r` for rule `r`.
    public var mask: UInt64 { bits.first ?? 0 }

    /// The error of rule `rule`, when it failed.
    public func error(of rule: Int) -> EvaluationError? {
        errors.first { $0.rule == rule }?.error
    }
}
