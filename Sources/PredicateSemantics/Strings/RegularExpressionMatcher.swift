import Foundation
import PredicateSyntax

/// A `MATCHES` pattern, compiled once and matched against any number of strings (SPEC §4.5.4).
///
/// The pattern is an ICU regular expression (the dialect of Foundation's `NSRegularExpression`),
/// compiled with `.dotMatchesLineSeparators` and `.anchorsMatchLines` as Apple does, and it must
/// match the **whole** string, as ICU's `uregex_matches`: `'ab' MATCHES 'a|ab'` is true and
/// `'xabc' MATCHES 'a.c'` is false. An empty pattern matches nothing.
///
/// Options (unless `[n]`, which turns all of this off and ignores `c` and `d`):
/// * both the pattern and the string are normalised to NFKC, with or without other options
///   (a pattern whose NFKC form does not compile is used in NFC, as Apple does);
/// * `c` sets the engine's case-insensitive flag;
/// * `d` strips diacritics (the `[d]` folding of ``StringOperators/folded(_:options:)``) from the
///   string and from the pattern text before it is compiled.
///
/// **Deviation from Apple** (SPEC §9 item 9): Apple implements `c` and `d` by folding the
/// pattern text itself, which lower-cases escapes such as `\D`, `\S` or `\P{…}` and changes their
/// meaning. This implementation folds no pattern text under `c`, and under `d` only removes
/// marks, which regular-expression syntax never relies on.
///
/// **Engines:** the syntax rules use (literals, escapes, classes, `.`, quantifiers, alternation,
/// groups, anchors at the ends, the case-insensitive flag) is compiled once into a Thompson NFA
/// and run as a state set (``RegexProgram``): linear time, so `(a+)+$` is answered at once. The
/// rest (back-references, look-around, possessive and atomic forms, `\b`, `\p{…}`, …), and
/// subjects whose answer would depend on Unicode tables the automaton does not hold, go to ICU.
///
/// **Cost:** ICU backtracks, and a pattern such as `(a+)\1+b` takes exponential time on a long
/// run of `a`s. ``matches(_:limits:)`` bounds that: it asks ICU for progress reports (one every
/// 10,000 engine steps) and stops the match when ``EvaluationLimits/maximumPatternSteps`` are
/// spent, so a catastrophic pattern costs a bounded time (about 0.1 s at the default) and an
/// error rather than a hang. The automaton spends one step per NFA state it visits.
public struct RegularExpressionMatcher: Sendable {
    /// The pattern, as given.
    public let pattern: String
    /// The options it was compiled with.
    public let options: ComparisonOptions

    /// The compiled pattern, or `nil` for the empty pattern, which matches nothing.
    private let expression: NSRegularExpression?
    /// Whether ``expression`` ends with `\z`, so that a match found from the start is a whole
    /// match; otherwise the first match's range is checked against the whole string.
    private let isAnchoredAtEnd: Bool
    /// The pattern as an automaton, when it is in the syntax the automaton runs.
    private let automaton: RegexProgram?
    /// Whether the pattern runs on the automaton (for subjects it decides), not only on ICU.
    package var usesAutomaton: Bool { automaton != nil }
    private let normalizes: Bool
    private let stripsDiacritics: Bool

    /// Compiles `pattern` under `options`.
    ///
    /// - Throws: `invalidPattern`, naming the pattern, when it is not a valid ICU regular
    ///   expression.
    public init(_ pattern: String, options: ComparisonOptions) throws(EvaluationError) {
        self.pattern = pattern
        self.options = options
        normalizes = !options.contains(.normalized)
        stripsDiacritics = normalizes && options.contains(.diacriticInsensitive)
        guard !pattern.isEmpty else {
            expression = nil
            isAnchoredAtEnd = false
            automaton = nil
            return
        }
        var flags: NSRegularExpression.Options = [.dotMatchesLineSeparators, .anchorsMatchLines]
        if normalizes && options.contains(.caseInsensitive) { flags.insert(.caseInsensitive) }
        var source = Self.prepare(pattern, normalizes, stripsDiacritics)
        var compiled = try? NSRegularExpression(pattern: source, options: flags)
        if compiled == nil && normalizes {
            // As Apple: when the NFKC form does not compile (a full-width parenthesis became a
            // real one), the pattern is used in NFC instead; the subject stays NFKC.
            source = Self.stripped(pattern, stripsDiacritics).precomposedStringWithCanonicalMapping
            compiled = try? NSRegularExpression(pattern: source, options: flags)
        }
        guard let plain = compiled else {
            throw EvaluationError(.invalidPattern, "'\(pattern)' is not a valid regular expression")
        }
        // `(?:…)\z` makes the engine backtrack into alternatives until the match reaches the end,
        // as a whole-string match must. It is only used when it cannot have changed the pattern:
        // a trailing `\Q…` or `#` comment would swallow the suffix and fail to compile.
        if let wrapped = try? NSRegularExpression(pattern: "(?:" + source + ")\\z", options: flags),
            wrapped.numberOfCaptureGroups == plain.numberOfCaptureGroups
        {
            expression = wrapped
            isAnchoredAtEnd = true
            // What ICU compiled, read by the automaton's parser, which refuses what it is unsure of.
            automaton = RegexParser.parse(source, caseInsensitive: flags.contains(.caseInsensitive))
                .flatMap(RegexProgram.init)
        } else {
            expression = plain
            isAnchoredAtEnd = false
            automaton = nil
        }
    }

    /// Whether the whole of `subject` matches the pattern, however long that takes: for patterns
    /// and strings the host trusts.
    public func matches(_ subject: String) -> Bool {
        var budget = Int.max
        return matches(subject, budget: &budget) ?? false
    }

    /// Whether the whole of `subject` matches the pattern, within `limits`' pattern steps.
    ///
    /// - Throws: `limitExceeded` when ICU needs more than ``EvaluationLimits/maximumPatternSteps``
    ///   steps (counted in ICU's progress reports, one per 10,000 steps).
    public func matches(_ subject: String, limits: EvaluationLimits) throws(EvaluationError) -> Bool {
        var budget = limits.maximumPatternSteps
        guard let result = matches(subject, budget: &budget) else {
            throw limits.patternStepsExceeded("MATCHES", pattern)
        }
        return result
    }

    /// Whether the whole of `subject` matches the pattern, spending ICU's engine steps from
    /// `budget` (10,000 for each progress report); `nil` when the budget ran out first and the
    /// match was stopped (the budget is then negative).
    public func matches(_ subject: String, budget: inout Int) -> Bool? {
        guard expression != nil else { return false }
        if let automaton, let dfa = automaton.dfa {
            let decided: Bool?? = StringKernels.withUTF8(subject) { bytes in
                guard !(automaton.hasAny && Self.holdsCRLF(bytes)) else { return .none }
                var left = budget
                if StringKernels.isASCII(bytes) {
                    // An ASCII subject is its own prepared form (NFKC and stripping diacritics
                    // change no ASCII), and the DFA's answer and steps are the automaton's.
                    let result = dfa.wholeMatch(bytes, budget: &left)
                    budget = result == nil ? -1 : left
                    return .some(result)
                }
                // Other text is its own prepared form when NFKC leaves each of its scalars
                // alone (or with `[n]`), unless diacritics are stripped.
                guard dfa.decidesNonASCII, !stripsDiacritics else { return .none }
                let normalizes = normalizes
                let outcome = dfa.wholeMatch(scalarsOf: bytes, budget: &left) { value in
                    !normalizes || StringFolding.isCompatibilityStable(value)
                }
                switch outcome {
                case .decided(let result):
                    budget = left
                    return .some(result)
                case .ranOut:
                    budget = -1
                    return .some(nil)
                case .unstable:
                    return .none
                }
            }
            if let decided { return decided }
        }
        let text = Self.prepare(subject, normalizes, stripsDiacritics)
        if let automaton {
            let scalars = Array(text.unicodeScalars)
            if automaton.decides(scalars) {
                var left = budget
                let result = automaton.wholeMatch(scalars, budget: &left)
                budget = result == nil ? -1 : left
                return result
            }
        }
        guard budget < Int.max else { return match(text, reports: .max).result }
        let (result, reports) = match(text, reports: max(0, budget) / Self.stepsPerReport)
        budget = result == nil ? -1 : budget - reports * Self.stepsPerReport
        return result
    }

    /// Whether `bytes` hold a carriage return followed by a line feed (which ICU's `.` consumes
    /// as one character, so such subjects are ICU's).
    private static func holdsCRLF(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > 1 else { return false }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0D && bytes[index + 1] == 0x0A { return true }
        return false
    }

    /// ICU's engine calls back about once every this many steps (`TIMER_INITIAL_VALUE` in
    /// `rematch.cpp`).
    private static let stepsPerReport = 10_000

    /// The match of `text` (already prepared) by ICU, or `nil` when ICU reported progress more
    /// than `reports` times (the match was stopped there), and the number of reports.
    private func match(_ text: String, reports: Int) -> (result: Bool?, reports: Int) {
        guard let expression else { return (false, 0) }
        let whole = NSRange(location: 0, length: text.utf16.count)
        guard reports < Int.max else {
            guard let match = expression.firstMatch(in: text, options: [.anchored], range: whole) else {
                return (false, 0)
            }
            return (isAnchoredAtEnd || match.range == whole, 0)
        }
        // `.reportProgress` makes ICU call back during a long match, with no result; the block
        // counts those calls and stops the match once the budget is spent.
        var remaining = reports
        var found: NSRange?
        var exhausted = false
        expression.enumerateMatches(in: text, options: [.anchored, .reportProgress], range: whole) { result, _, stop in
            if let result {
                found = result.range
                stop.pointee = true
                return
            }
            remaining -= 1
            if remaining < 0 {
                exhausted = true
                stop.pointee = true
            }
        }
        let used = reports - max(remaining, 0)
        if exhausted { return (nil, used) }
        guard let range = found else { return (false, used) }
        return (isAnchoredAtEnd || range == whole, used)
    }

    /// The pattern or subject text as the engine sees it: without diacritics under `[d]`, then
    /// NFKC, unless `[n]`.
    private static func prepare(_ text: String, _ normalizes: Bool, _ stripsDiacritics: Bool) -> String {
        guard normalizes else { return text }
        return StringFolding.compatibilityComposed(stripped(text, stripsDiacritics))
    }

    /// `text` without diacritics (the `[d]` folding) when `stripsDiacritics`, else unchanged.
    private static func stripped(_ text: String, _ stripsDiacritics: Bool) -> String {
        guard stripsDiacritics else { return text }
        return StringFolding.string(StringFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true))
    }
}
