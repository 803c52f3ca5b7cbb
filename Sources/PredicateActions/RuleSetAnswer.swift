import PredicateSemantics
import PredicateSyntax
import PredicateVM

/// Every rule's answer for one input.
///
/// Cheap to make whatever the rules do: the evaluation errors are kept as the machine reported
/// them, and the diagnostics in ``problems`` are built only when read.
public struct RuleSetAnswer: Sendable {
    /// Rule `r` is true when bit `r % 64` of word `r / 64` is set.
    public let bits: [UInt64]
    /// The evaluation errors, by rule index as the machine reported them (rule `-1`: the whole
    /// program failed), unsorted and not yet diagnostics.
    public let errors: [RuleFailure]
    /// The rule set, for its texts and parse problems; a reference copy, not a rebuild.
    private let ruleSet: RuleSet

    init(bits: [UInt64], errors: [RuleFailure], ruleSet: RuleSet) {
        self.bits = bits
        self.errors = errors
        self.ruleSet = ruleSet
    }

    /// Whether any rule is false because of a problem (a parse or evaluation error), without
    /// building a diagnostic.
    public var hasProblems: Bool { !errors.isEmpty || !ruleSet.problems.isEmpty }

    /// The rules that are false because of a problem (a parse or evaluation error), by rule
    /// index. Built on each read: keep the result when reading it more than once.
    public var problems: [(rule: Int, diagnostic: Diagnostic)] {
        guard hasProblems else { return [] }
        var problems = ruleSet.problems.map { (rule: $0.key, diagnostic: $0.value) }
        for failure in errors {
            problems.append((failure.rule, ruleSet.diagnostic(for: failure.error, rule: failure.rule)))
        }
        problems.sort { $0.rule < $1.rule }
        return problems
    }

    /// Whether rule `rule` is true.
    public func isSatisfied(_ rule: Int) -> Bool {
        guard rule >= 0, rule >> 6 < bits.count else { return false }
        return bits[rule >> 6] & (1 << UInt64(rule & 63)) != 0
    }

    /// Rules 0 to 63 as one mask: bit `r` for rule `r`.
    public var mask: UInt64 { bits.first ?? 0 }

    /// Why rule `rule` is false, when a problem made it so; builds only that rule's diagnostic.
    public func problem(of rule: Int) -> Diagnostic? {
        if let parsed = ruleSet.problems[rule] { return parsed }
        guard let failure = errors.first(where: { $0.rule == rule }) else { return nil }
        return ruleSet.diagnostic(for: failure.error, rule: rule)
    }
}
