import Foundation
import PredicateSyntax

/// The string forms of `==`, the ordering operators, `BEGINSWITH`, `ENDSWITH` and string
/// `CONTAINS`/`IN`, under the `[cdnlw]` options (SPEC §4.4.1, §4.4.2, §4.5.1, §4.5.2).
///
/// What the options do:
/// * `n` wins: UTF-16 code units are compared as they are, and `c`, `d` and `l` are ignored.
/// * `c` and/or `d`: both sides are folded (see ``folded(_:options:)``), then compared by
///   UTF-16 code unit, so canonically equivalent spellings (`é`, `e` + U+0301) are equal.
/// * Neither: equality and substrings compare UTF-16 code units with no normalisation
///   (`'é' == 'e\u0301'` is false, as Apple's `isEqual:`), and ordering compares UTF-16 code
///   units after canonical decomposition of both sides (as Apple's `compare:`).
/// * `l` asks Apple for the user's locale; here it has no effect (root, locale-independent
///   behaviour, SPEC §9 item 11), so `<[l]` orders as `<` does. `w` has no effect either.
///
/// ASCII operands are compared byte by byte without allocating. Other text is folded by table
/// look-up when it is made of BMP characters without combining marks, and from first principles
/// (Foundation's normaliser, then the folding) otherwise; both give the same answers. To fold a
/// constant operand once instead of at every evaluation, use ``StringMatcher``.
public enum StringOperators: Sendable {
    /// Option-aware string equality: the string case of `==` (`!=` is its negation).
    public static func equals(_ lhs: String, _ rhs: String, options: ComparisonOptions) -> Bool {
        let kind = StringComparisonKind(options)
        guard case .folded = kind else { return literalEqual(lhs, rhs) }
        if let result = StringKernels.withASCII(lhs, rhs, lowercased: kind.lowercasesASCII, { $0.elementsEqual($1) }) {
            return result
        }
        return kind.withTransformed(lhs) { left in kind.withTransformed(rhs) { right in left.elementsEqual(right) } }
    }

    /// The order of `lhs` against `rhs`, for `<`, `<=`, `>` and `>=` between strings.
    public static func compare(_ lhs: String, _ rhs: String, options: ComparisonOptions) -> ComparisonResult {
        let kind = StringComparisonKind(options)
        if case .literal = kind { return StringKernels.order(lhs.utf16, rhs.utf16) }
        if let result = StringKernels.withASCII(
            lhs, rhs, lowercased: kind.lowercasesASCII, { StringKernels.order($0, $1) })
        {
            return result
        }
        return kind.withTransformed(lhs) { left in
            kind.withTransformed(rhs) { right in
                StringKernels.order(left.lazy.map(StringKernels.utf16Order), right.lazy.map(StringKernels.utf16Order))
            }
        }
    }

    /// `haystack BEGINSWITH needle`. An empty needle is never found.
    public static func hasPrefix(_ haystack: String, _ needle: String, options: ComparisonOptions) -> Bool {
        search(.prefix, haystack, needle, options: options)
    }

    /// `haystack ENDSWITH needle`. An empty needle is never found.
    public static func hasSuffix(_ haystack: String, _ needle: String, options: ComparisonOptions) -> Bool {
        search(.suffix, haystack, needle, options: options)
    }

    /// `haystack CONTAINS needle` and `needle IN haystack` between strings. An empty needle is
    /// never found, even in an empty haystack.
    public static func contains(_ haystack: String, _ needle: String, options: ComparisonOptions) -> Bool {
        search(.contains, haystack, needle, options: options)
    }

    /// `text` as the comparisons under `options` see it: for `[c]` and/or `[d]`, canonically
    /// decomposed and folded the way Foundation's `String.folding(options:locale:)` folds with
    /// `.caseInsensitive`/`.diacriticInsensitive` and `.widthInsensitive`; otherwise unchanged.
    ///
    /// Two strings are equal under the options exactly when their folded forms have the same
    /// UTF-16 code units. Where Foundation departs from the textbook rules (which marks `[d]`
    /// removes, Cherokee, characters newer than its tables), this follows Foundation; the
    /// departures are listed on the folding implementation and pinned by tests.
    public static func folded(_ text: String, options: ComparisonOptions) -> String {
        let kind = StringComparisonKind(options)
        guard case .folded = kind else { return text }
        return StringFolding.string(kind.transform(text))
    }

    static func literalEqual(_ lhs: String, _ rhs: String) -> Bool {
        StringKernels.withUTF8(lhs) { left in StringKernels.withUTF8(rhs) { right in left.elementsEqual(right) } }
    }

    /// Runs one substring test: on bytes when both sides are ASCII or the comparison is literal
    /// (UTF-8 substrings of valid strings are exactly the UTF-16 ones), on folded scalars otherwise.
    private static func search(
        _ test: SubstringTest, _ haystack: String, _ needle: String, options: ComparisonOptions
    ) -> Bool {
        if needle.isEmpty { return false }
        let kind = StringComparisonKind(options)
        guard case .folded = kind else {
            return StringKernels.withUTF8(haystack) { text in
                StringKernels.withUTF8(needle) { pattern in test.run(text, pattern) }
            }
        }
        if let result = StringKernels.withASCII(
            haystack, needle, lowercased: kind.lowercasesASCII, { test.run($0, $1) })
        {
            return result
        }
        return kind.withTransformed(haystack) { text in kind.withTransformed(needle) { test.run(text, $0) } }
    }
}

/// One string operand prepared once (folded under its options) for comparisons against many
/// other strings: what a compiler makes of a constant such as `'.jpg'` in
/// `filename ENDSWITH[c] '.jpg'`.
///
/// Every answer equals the corresponding ``StringOperators`` function's. When the other string is
/// ASCII and the prepared one folds to ASCII (`'Résumé'` under `[cd]` folds to `resume`), the
/// comparison runs on bytes and allocates nothing.
public struct StringMatcher: Sendable {
    /// The prepared string, as given.
    public let string: String
    /// The options it was prepared for.
    public let options: ComparisonOptions

    private let kind: StringComparisonKind
    /// Folded scalars (`[c]`/`[d]`), or the canonical decomposition (no `c`/`d`, for ordering).
    private let scalars: [UInt32]
    /// The bytes compared against ASCII operands: the folded form if it is ASCII, the UTF-8
    /// otherwise (literal comparisons use UTF-8 whatever the text).
    private let bytes: [UInt8]
    /// Whether ``bytes`` is ASCII.
    private let isASCII: Bool
    /// An ASCII ``bytes`` of at most eight bytes as the last bytes of a little-endian word, and
    /// the mask of those bytes (zero otherwise): a suffix compared with one load.
    private let suffixWord: UInt64
    private let suffixMask: UInt64

    /// Prepares `string` for comparisons under `options`.
    public init(_ string: String, options: ComparisonOptions) {
        self.string = string
        self.options = options
        kind = StringComparisonKind(options)
        switch kind {
        case .literal:
            scalars = []
            bytes = Array(string.utf8)
        case .canonical:
            scalars = StringFolding.decomposed(string)
            bytes = Array(string.utf8)
        case .folded:
            scalars = kind.transform(string)
            bytes =
                scalars.allSatisfy { $0 < 0x80 } ? scalars.map { UInt8(truncatingIfNeeded: $0) } : Array(string.utf8)
        }
        isASCII = bytes.allSatisfy { $0 < 0x80 }
        (suffixWord, suffixMask) = isASCII ? Self.lastBytesWord(bytes) : (0, 0)
    }

    /// `bytes` (at most eight) as the most significant bytes of a little-endian word, and their
    /// mask; zeros for more than eight.
    private static func lastBytesWord(_ bytes: [UInt8]) -> (word: UInt64, mask: UInt64) {
        guard bytes.count <= 8 else { return (0, 0) }
        var word: UInt64 = 0
        var mask: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            let shift = UInt64(8 &* (8 &- bytes.count &+ index))
            word |= UInt64(byte) << shift
            mask |= 0xFF << shift
        }
        return (word, mask)
    }

    /// `other == string` under the options.
    public func equals(_ other: String) -> Bool {
        find(.equal, in: other)
    }

    /// The order of `other` against the prepared string: `.orderedAscending` means
    /// `other < string`.
    public func order(of other: String) -> ComparisonResult {
        if case .literal = kind { return StringKernels.order(other.utf16, string.utf16) }
        return StringKernels.withUTF8(other) { text in
            if StringKernels.isASCII(text) {
                let view = StringKernels.view(text, lowercased: kind.lowercasesASCII)
                if isASCII { return StringKernels.order(view, bytes) }
                return StringKernels.order(
                    view.lazy.map { UInt32($0) }, scalars.lazy.map(StringKernels.utf16Order))
            }
            return kind.withTransformed(other) { folded in
                StringKernels.order(
                    folded.lazy.map(StringKernels.utf16Order), scalars.lazy.map(StringKernels.utf16Order))
            }
        }
    }

    /// `text BEGINSWITH string`.
    public func isPrefix(of text: String) -> Bool {
        !string.isEmpty && find(.prefix, in: text)
    }

    /// `text ENDSWITH string`.
    public func isSuffix(of text: String) -> Bool {
        !string.isEmpty && find(.suffix, in: text)
    }

    /// `text CONTAINS string`, or `string IN text`.
    public func isContained(in text: String) -> Bool {
        !string.isEmpty && find(.contains, in: text)
    }

    /// `string BEGINSWITH needle`, for a prepared left operand.
    public func hasPrefix(_ needle: String) -> Bool {
        !needle.isEmpty && look(.prefix, for: needle)
    }

    /// `string ENDSWITH needle`, for a prepared left operand.
    public func hasSuffix(_ needle: String) -> Bool {
        !needle.isEmpty && look(.suffix, for: needle)
    }

    /// `string CONTAINS needle`, for a prepared left operand.
    public func contains(_ needle: String) -> Bool {
        !needle.isEmpty && look(.contains, for: needle)
    }

    /// Runs `test` with `text` as the haystack and the prepared string as the needle.
    ///
    /// An ASCII `text` folds to ASCII, so it can neither equal nor contain a prepared string that
    /// does not: that case is answered without looking.
    @inline(__always)
    private func find(_ test: SubstringTest, in text: String) -> Bool {
        let onBytes = StringKernels.withUTF8(text) { utf8 -> Bool? in
            guard case .folded(let caseInsensitive, let diacriticInsensitive) = kind else {
                return test.run(utf8, bytes)
            }
            // An ASCII suffix is compared with as many bytes at the end of the text, when they
            // are ASCII: they are then the text's last scalars, starters that fold as ASCII does
            // whatever comes before them (`Résumé.PDF` ENDSWITH[c] `.pdf`), so the rest is
            // neither scanned nor folded. (Not a prefix: a mark after it would change its folding.)
            if isASCII, case .suffix = test, utf8.count >= bytes.count {
                if suffixMask != 0, utf8.count >= 8, let base = utf8.baseAddress {
                    // The text's last eight bytes in one word; only the needle's are compared
                    // (and others cleared first, so that lowering them carries into nothing).
                    let last = UInt64(
                        littleEndian: UnsafeRawPointer(base + (utf8.count &- 8)).loadUnaligned(as: UInt64.self))
                    let end = last & suffixMask
                    if end & 0x8080_8080_8080_8080 == 0 {
                        let folded = kind.lowercasesASCII ? StringKernels.asciiLowercased(end) : end
                        return folded == suffixWord
                    }
                } else if let answer = StringKernels.asciiSuffix(utf8, bytes, lowercased: kind.lowercasesASCII) {
                    return answer
                }
            }
            guard StringKernels.isASCII(utf8) else {
                // A suffix, a prefix or an equality needs only the scalars it compares folded; a
                // containment, the whole text, folded from the bytes at hand.
                let table = FoldTable.table(
                    caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                switch test {
                case .suffix: return table.folding(of: utf8, endsWith: self.scalars)
                case .prefix: return table.folding(of: utf8, startsWith: self.scalars, whole: false)
                case .equal: return table.folding(of: utf8, startsWith: self.scalars, whole: true)
                case .contains: return table.folding(of: utf8, contains: self.scalars)
                }
            }
            guard isASCII else { return false }
            if case .contains = test {
                return StringKernels.asciiContains(utf8, bytes, lowercased: kind.lowercasesASCII)
            }
            return test.run(StringKernels.view(utf8, lowercased: kind.lowercasesASCII), bytes)
        }
        if let onBytes { return onBytes }
        // Only the folded scalars are captured: the closure copying the whole matcher cost
        // more than the folding.
        let scalars = self.scalars
        return kind.withTransformed(text) { test.run($0, scalars) }
    }

    /// Runs `test` with the prepared string as the haystack and `needle` as the needle.
    @inline(__always)
    private func look(_ test: SubstringTest, for needle: String) -> Bool {
        let onBytes = StringKernels.withUTF8(needle) { utf8 -> Bool? in
            guard case .folded = kind else { return test.run(bytes, utf8) }
            guard isASCII && StringKernels.isASCII(utf8) else { return nil }
            return test.run(bytes, StringKernels.view(utf8, lowercased: kind.lowercasesASCII))
        }
        if let onBytes { return onBytes }
        let scalars = self.scalars
        return kind.withTransformed(needle) { test.run(scalars, $0) }
    }
}
