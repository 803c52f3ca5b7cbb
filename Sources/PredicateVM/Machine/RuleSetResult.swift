import PredicateSemantics

/// What a rule set answered for one input: which rules are true, and the errors that made others
/// false.
public struct RuleSetResult: Sendable {
    /// Rule `r` is true when bit `r % 64` of word `r / 64` is set.
    public let bits: [UInt64]
    /// The rules that failed, in the order they failed, each with its error (source ranges point
    /// into the rule set's source; rule -1 means the program itself could not run).
    public let errors: [RuleFailure]

    /// Creates a result.
    public init(bits: [UInt64], errors: [RuleFailure]) {
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

/// A rule of a rule set that failed, and why.
///
/// A named type rather than a tuple: an array of tuples copies and destroys its elements
/// through the runtime's generic tuple witnesses, a cost paid on every failing evaluation.
public struct RuleFailure: Hashable, Sendable {
    /// The rule's index (-1: the program itself could not run).
    public let rule: Int
    /// The error, its source range pointing into the rule set's source.
    public let error: EvaluationError

    /// Creates a failure.
    public init(rule: Int, error: EvaluationError) {
        self.rule = rule
        self.error = error
    }
}
