import Foundation
import PredicateSyntax

/// A `LIKE` pattern, compiled once and matched against any number of strings (SPEC §4.5.3).
///
/// The pattern must match the **whole** string:
///
/// | Pattern | Matches |
/// |---|---|
/// | `*` | any sequence of characters, including none and line breaks |
/// | `?` | exactly one character (Unicode scalar): `'ac' LIKE 'a?c'` is false |
/// | `\*`, `\?`, `\\` | a literal `*`, `?`, `\` |
/// | `\x` | `x` (any other character) |
/// | anything else | itself; regex metacharacters (`.`, `+`, `[`, …) have no special meaning |
///
/// Unless `[n]` is given, both the pattern and the string are folded under `[c]`/`[d]` (as for
/// `==`, see ``StringOperators/folded(_:options:)``) and then normalised to NFKC, with or without
/// options, so ligatures and full-width forms match their plain spellings (`'ﬁle' LIKE 'file'`).
/// With `[n]` both are used as they are and `c` and `d` are ignored. `l` and `w` have no effect.
/// An empty pattern matches nothing, not even an empty string.
///
/// A pattern without `?` is literal runs between stars (``LikeSegments``), matched without
/// backtracking: `*.pdf` compares the last four scalars, and on a name whose end is ASCII
/// nothing else of it is read or prepared. A pattern with `?` is matched by the greedy
/// two-pointer wildcard algorithm that backtracks only to the last `*`: O(pattern × string) in
/// the worst case, never exponential. ASCII strings are matched in place without allocating.
public struct LikePattern: Sendable {
    /// The pattern, as given.
    public let pattern: String
    /// The options it was compiled with.
    public let options: ComparisonOptions

    /// Scalar values to match, with ``anySequence`` and ``anyCharacter`` standing for `*` and `?`.
    private let tokens: [UInt32]
    /// The runs between stars, when the pattern has no `?`.
    private let segments: LikeSegments?
    private let normalizes: Bool
    private let caseInsensitive: Bool
    private let diacriticInsensitive: Bool
    /// The by-scalar preparation of the options, when they fold (`[c]`, `[d]`, without `[n]`).
    private let preparedScalars: PreparedScalars?

    /// Token for `*`: not a scalar value.
    private static let anySequence: UInt32 = 0xFFFF_FFFF
    /// Token for `?`: not a scalar value.
    private static let anyCharacter: UInt32 = 0xFFFF_FFFE

    /// Compiles `pattern` under `options`.
    ///
    /// - Throws: `invalidPattern` when the pattern ends with an unescaped backslash.
    public init(_ pattern: String, options: ComparisonOptions) throws(EvaluationError) {
        self.pattern = pattern
        self.options = options
        normalizes = !options.contains(.normalized)
        caseInsensitive = normalizes && options.contains(.caseInsensitive)
        diacriticInsensitive = normalizes && options.contains(.diacriticInsensitive)
        preparedScalars =
            caseInsensitive || diacriticInsensitive
            ? PreparedScalars.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) : nil
        var tokens: [UInt32] = []
        var scalars = Self.prepare(pattern, normalizes, caseInsensitive, diacriticInsensitive)
            .unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "*":
                if tokens.last != Self.anySequence { tokens.append(Self.anySequence) }
            case "?":
                tokens.append(Self.anyCharacter)
            case "\\":
                guard let escaped = scalars.next() else {
                    throw EvaluationError(
                        .invalidPattern,
                        "the LIKE pattern '\(pattern)' ends with a backslash; write \\\\ for a literal backslash")
                }
                tokens.append(escaped.value)
            default:
                tokens.append(scalar.value)
            }
        }
        self.tokens = tokens
        segments = LikeSegments(tokens: tokens, anySequence: Self.anySequence, anyCharacter: Self.anyCharacter)
    }

    /// Whether the whole of `subject` matches the pattern, however long that takes: for patterns
    /// and strings the host trusts.
    public func matches(_ subject: String) -> Bool {
        var budget = Int.max
        return matches(subject, budget: &budget) ?? false
    }

    /// Whether the whole of `subject` matches the pattern, within `limits`' pattern steps.
    ///
    /// - Throws: `limitExceeded` when matching takes more than
    ///   ``EvaluationLimits/maximumPatternSteps`` steps (a long pattern of stars against a long
    ///   string: the work is the product of their lengths).
    public func matches(_ subject: String, limits: EvaluationLimits) throws(EvaluationError) -> Bool {
        var budget = limits.maximumPatternSteps
        guard let result = matches(subject, budget: &budget) else {
            throw limits.patternStepsExceeded("LIKE", pattern)
        }
        return result
    }

    /// Whether the whole of `subject` matches the pattern, spending one step of `budget` per
    /// step of the matcher; `nil` when the budget ran out first (it is then negative).
    public func matches(_ subject: String, budget: inout Int) -> Bool? {
        if tokens.isEmpty { return false }
        var steps = max(0, budget)
        defer { budget = steps }
        guard let segments else { return backtrackingMatch(subject, steps: &steps) }
        return StringKernels.withUTF8(subject) { bytes in
            if let end = segments.decisiveASCIIEnd(of: bytes, normalizes: normalizes) {
                return segments.match(ASCIIScalars(end, lowercased: caseInsensitive), steps: &steps)
            }
            if StringKernels.isASCII(bytes) {
                return segments.match(ASCIIScalars(bytes, lowercased: caseInsensitive), steps: &steps)
            }
            if let table = preparedScalars {
                let answer = withUnsafeTemporaryAllocation(
                    of: UInt32.self, capacity: table.capacity(for: bytes.count)
                ) { buffer -> Bool?? in
                    // A pattern that begins with a run needs only the head of the text prepared
                    // when that head differs from the run, the common case.
                    let headLength = segments.headLength ?? .max
                    var preparation = table.prepare(bytes, into: buffer, settling: headLength)
                    if case .head(let settled) = preparation {
                        let head = UnsafeBufferPointer(rebasing: buffer[..<settled])
                        switch segments.mismatchInHead(head, steps: &steps) {
                        case .mismatch: return .some(false)
                        case .ranOut: return .some(nil)
                        case nil:
                            // Stopped at a scalar the table cannot prepare: the exact path's.
                            guard settled >= headLength else { return nil }
                            preparation = table.prepare(bytes, into: buffer)
                        }
                    }
                    guard case .whole(let count) = preparation else { return nil }
                    return .some(segments.match(UnsafeBufferPointer(rebasing: buffer[..<count]), steps: &steps))
                }
                if let answer { return answer }
                // The table cannot prepare this text: it is not tried again.
                return segments.match(exactlyPrepared(subject), steps: &steps)
            }
            // ASCII first: a head that differs from the pattern's first run (`img_*` on
            // `Résumé.pdf`) decides without preparing the text.
            let settled = Self.settledASCIIPrefix(bytes, normalizes)
            let head = ASCIIScalars(UnsafeBufferPointer(rebasing: bytes[..<settled]), lowercased: caseInsensitive)
            switch segments.mismatchInHead(head, steps: &steps) {
            case .mismatch: return false
            case .ranOut: return nil
            case nil: return segments.match(prepared(subject), steps: &steps)
            }
        }
    }

    /// Whether the whole of `subject` matches, by the backtracking matcher (which patterns
    /// with `?` need; the reference the run matcher is tested against); `nil` when `budget`
    /// ran out first.
    func matchesByBacktracking(_ subject: String, budget: inout Int) -> Bool? {
        if tokens.isEmpty { return false }
        var steps = max(0, budget)
        defer { budget = steps }
        return backtrackingMatch(subject, steps: &steps)
    }

    /// Whether the whole of `subject` matches, the runs of a pattern without `?` matched on
    /// the whole prepared text, never on its decisive end alone: what the end must agree with,
    /// steps included (for tests).
    func matchesWholeText(_ subject: String, budget: inout Int) -> Bool? {
        guard let segments, !tokens.isEmpty else { return matchesByBacktracking(subject, budget: &budget) }
        var steps = max(0, budget)
        defer { budget = steps }
        return StringKernels.withUTF8(subject) { bytes in
            StringKernels.isASCII(bytes)
                ? segments.match(ASCIIScalars(bytes, lowercased: caseInsensitive), steps: &steps)
                : segments.match(prepared(subject), steps: &steps)
        }
    }

    /// The text as matching sees it, for a subject that is not ASCII.
    private func prepared(_ subject: String) -> [UInt32] {
        if normalizes && (caseInsensitive || diacriticInsensitive),
            let prepared = StringFolding.preparedByScalar(
                subject, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        {
            return prepared
        }
        return exactlyPrepared(subject)
    }

    /// ``prepared(_:)`` by Foundation's normaliser, for text the table cannot prepare.
    private func exactlyPrepared(_ subject: String) -> [UInt32] {
        Self.prepare(subject, normalizes, caseInsensitive, diacriticInsensitive).unicodeScalars.map(\.value)
    }

    private func backtrackingMatch(_ subject: String, steps: inout Int) -> Bool? {
        StringKernels.withUTF8(subject) { bytes in
            if StringKernels.isASCII(bytes) {
                // ASCII is its own NFKC form, and folding only lower-cases it.
                return Self.match(tokens, ASCIIScalars(bytes, lowercased: caseInsensitive), steps: &steps).answer
            }
            // ASCII first: the bytes before the first non-ASCII one that folding and NFKC
            // cannot change are the prepared text's first scalars, so a match decided within
            // them (`img_*` on `Résumé.pdf`) is decided without preparing the rest. Steps are
            // the same as on the whole text, which walks those scalars the same way.
            let settled = Self.settledASCIIPrefix(bytes, normalizes)
            if settled > 0 {
                var attempt = steps
                let prefix = ASCIIScalars(UnsafeBufferPointer(rebasing: bytes[..<settled]), lowercased: caseInsensitive)
                let outcome = Self.match(tokens, prefix, steps: &attempt, openEnded: true)
                if !outcome.needsMore {
                    steps = attempt
                    return outcome.answer
                }
            }
            return Self.match(tokens, prepared(subject), steps: &steps).answer
        }
    }

    /// How many of the leading ASCII bytes of `bytes` (which holds a non-ASCII scalar) are the
    /// first scalars of the text as matching sees it: all of them without normalisation (`[n]`);
    /// otherwise all when the first non-ASCII scalar is one that cannot combine with the ASCII
    /// before it (folding and NFKC leave that ASCII alone), else all but the last, which a
    /// combining mark after it may compose with (`e` + U+0301 is `é`).
    static func settledASCIIPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ normalizes: Bool) -> Int {
        guard let first = bytes.firstIndex(where: { $0 >= 0x80 }) else { return bytes.count }
        guard normalizes else { return first }
        var decoder = UTF8()
        var rest = bytes[first...].makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&rest) else { return max(0, first - 1) }
        return isInertAfterASCII(scalar.value) ? first : max(0, first - 1)
    }

    /// Whether `scalar` and what folding and NFKC make of it begin with a starter that composes
    /// with nothing before it, so the ASCII before it stays as it is: Latin-1 and the Latin
    /// extensions, spacing modifiers (their compatibility forms begin with a space), Greek and
    /// Cyrillic letters, CJK ideographs, Hangul syllables. Combining marks (U+0300 onwards, and
    /// those of other scripts, which reorder around the marks that do compose) are not.
    private static func isInertAfterASCII(_ scalar: UInt32) -> Bool {
        scalar < 0x300 || (0x370..<0x483).contains(scalar) || (0x3400..<0xA000).contains(scalar)
            || (0xAC00..<0xD7A4).contains(scalar)
    }

    /// The pattern or subject text as matching sees it: folded, then NFKC, unless `[n]`.
    private static func prepare(
        _ text: String, _ normalizes: Bool, _ caseInsensitive: Bool, _ diacriticInsensitive: Bool
    ) -> String {
        guard normalizes else { return text }
        guard caseInsensitive || diacriticInsensitive else { return StringFolding.compatibilityComposed(text) }
        let folded = StringFolding.fold(
            text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        return StringFolding.compatibilityComposed(StringFolding.string(folded))
    }

    /// Greedy wildcard matching with a single backtrack point (the last `*` seen): when the
    /// tokens after that star fail, the star absorbs one more character and they are retried.
    /// Earlier stars never need revisiting, because a later star can absorb anything they could.
    /// Each pass of the loop spends one of `steps`; `nil` when they ran out.
    ///
    /// With `openEnded`, `subject` is only the start of the text: reaching its end leaves the
    /// answer open (``MatchOutcome/needsMore``) instead of deciding it.
    private static func match<Subject: RandomAccessCollection>(
        _ tokens: [UInt32], _ subject: Subject, steps: inout Int, openEnded: Bool = false
    ) -> MatchOutcome
    where Subject.Element == UInt32, Subject.Index == Int {
        var position = subject.startIndex
        let end = subject.endIndex
        var token = 0
        var starToken = -1
        var starPosition = position
        while position < end {
            steps -= 1
            if steps < 0 { return .outOfSteps }
            if token < tokens.count {
                let current = tokens[token]
                if current == anySequence {
                    // A star that ends the pattern absorbs whatever is left (`img_*`): done.
                    if token == tokens.count - 1 { return .decided(true) }
                    starToken = token
                    starPosition = position
                    token += 1
                    continue
                }
                if current == anyCharacter || current == subject[position] {
                    token += 1
                    position += 1
                    continue
                }
            }
            guard starToken >= 0 else { return .decided(false) }
            token = starToken + 1
            starPosition += 1
            position = starPosition
        }
        if openEnded { return .needsMore }
        while token < tokens.count && tokens[token] == anySequence { token += 1 }
        return .decided(token == tokens.count)
    }

    /// How a run of the matcher ended.
    private enum MatchOutcome {
        case decided(Bool)
        case outOfSteps
        /// Only for an open-ended subject: its end was reached undecided.
        case needsMore

        /// The answer, `nil` when the steps ran out (never asked of ``needsMore``).
        var answer: Bool? {
            if case .decided(let answer) = self { return answer }
            return nil
        }

        var needsMore: Bool {
            if case .needsMore = self { return true }
            return false
        }
    }
}

/// ASCII bytes as the scalar values the matcher compares, lower-cased for `[c]`: one concrete
/// collection, so the matcher is specialized for it (a chain of lazy maps over the bytes left
/// the matcher generic, looking up type metadata on every call).
private struct ASCIIScalars: RandomAccessCollection {
    let bytes: UnsafeBufferPointer<UInt8>
    let lowercased: Bool

    init(_ bytes: UnsafeBufferPointer<UInt8>, lowercased: Bool) {
        self.bytes = bytes
        self.lowercased = lowercased
    }

    var startIndex: Int { 0 }
    var endIndex: Int { bytes.count }

    subscript(position: Int) -> UInt32 {
        let byte = bytes[position]
        return UInt32(lowercased ? StringFolding.asciiLowercase(byte) : byte)
    }
}
