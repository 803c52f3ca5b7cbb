/// How much work and memory one evaluation may use, so that no rule or item, however hostile,
/// can hang the host or make it allocate without bound (issue 8). Exceeding a limit is an
/// ``EvaluationError`` of kind ``EvaluationError/Kind/limitExceeded``, never a trap.
///
/// The defaults are far above what real rules need (the differential and conformance suites
/// never reach them), and low enough that one evaluation stays under about a second on a slow
/// core. Hosts that evaluate rules they trust can raise them; ``unlimited`` turns them off.
public struct EvaluationLimits: Hashable, Sendable {
    /// Work units one evaluation may spend: the interpreter charges one per syntax node it
    /// evaluates, the VM one per instruction it executes, and both charge the same extra units
    /// for the elements that comparisons, set operations, functions and key paths go through
    /// (see ``EvaluationCost``). The two engines count differently, so a rule close to the limit
    /// may pass in one and fail in the other; both report the error at the whole rule.
    public var maximumSteps: Int
    /// The most elements a collection built during evaluation may hold: an aggregate, a set
    /// operation's result, a `SUBQUERY`'s result.
    public var maximumCollectionCount: Int
    /// The longest `LIKE` or `MATCHES` pattern accepted, in UTF-8 bytes. Patterns can come from
    /// items (`name LIKE pattern`), and every distinct pattern is compiled and cached.
    public var maximumPatternLength: Int
    /// Matching steps one `LIKE` or `MATCHES` comparison may take. `LIKE` counts each step of its
    /// wildcard matcher; `MATCHES` counts ICU's backtracking engine steps, which ICU reports every
    /// 10,000 steps, so that is the granularity. A catastrophic pattern such as `(a+)+$` on a long
    /// run of `a`s fails here instead of running for centuries. The steps a match takes also
    /// count against ``maximumSteps``, so a rule running many matches is bounded as a whole; keep
    /// this limit below that one so that one runaway match is reported as such.
    public var maximumPatternSteps: Int

    /// The defaults: 10 million steps, 1 million elements per collection, 16 KiB patterns and
    /// 5 million pattern-matching steps per comparison.
    public init(
        maximumSteps: Int = 10_000_000, maximumCollectionCount: Int = 1_000_000, maximumPatternLength: Int = 16_384,
        maximumPatternSteps: Int = 5_000_000
    ) {
        self.maximumSteps = maximumSteps
        self.maximumCollectionCount = maximumCollectionCount
        self.maximumPatternLength = maximumPatternLength
        self.maximumPatternSteps = maximumPatternSteps
    }

    /// No limits at all: for rules and items the host trusts.
    public static let unlimited = EvaluationLimits(
        maximumSteps: .max, maximumCollectionCount: .max, maximumPatternLength: .max, maximumPatternSteps: .max)

    /// The error for a run that spent its ``maximumSteps``.
    public func stepsExceeded() -> EvaluationError {
        EvaluationError(
            .limitExceeded,
            "evaluation stopped after \(maximumSteps.formatted) steps, the limit; the rule does too much work for this input"
        )
    }

    /// Throws unless a collection of `count` elements is within ``maximumCollectionCount``.
    public func checkCollection(count: Int) throws(EvaluationError) {
        guard count > maximumCollectionCount else { return }
        throw EvaluationError(
            .limitExceeded,
            "a collection of \(count.formatted) elements exceeds the limit of \(maximumCollectionCount.formatted)")
    }

    /// Throws unless `pattern` is within ``maximumPatternLength``.
    func checkPattern(_ pattern: String, _ op: String) throws(EvaluationError) {
        let length = pattern.utf8.count
        guard length > maximumPatternLength else { return }
        throw EvaluationError(
            .limitExceeded,
            "the \(op) pattern is \(length.formatted) bytes long, more than the limit of \(maximumPatternLength.formatted)"
        )
    }

    /// The error for a `LIKE` or `MATCHES` comparison that spent its ``maximumPatternSteps``.
    func patternStepsExceeded(_ op: String, _ pattern: String) -> EvaluationError {
        let shown = pattern.count > 40 ? String(pattern.prefix(40)) + "…" : pattern
        return EvaluationError(
            .limitExceeded,
            "\(op) '\(shown)' stopped after \(maximumPatternSteps.formatted) matching steps, the limit; "
                + "the pattern backtracks too much on this string")
    }
}

extension Int {
    /// The number with thousands separators (`10,000,000`), independent of locale; `max` as
    /// "unlimited".
    fileprivate var formatted: String {
        if self == .max { return "unlimited" }
        let digits = String(self.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return self < 0 ? "-" + grouped : grouped
    }
}
