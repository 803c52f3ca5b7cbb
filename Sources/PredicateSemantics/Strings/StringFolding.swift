import Foundation

/// The `[c]` and `[d]` transformation (SPEC §4.5.1): canonical decomposition, then the character
/// folding of Foundation's `CFStringFold` with width folding always on.
///
/// Why not the textbook rule ("remove every Mn, apply CaseFolding.txt")? The options exist to
/// reproduce Apple, whose comparisons fold with CoreFoundation, and on this platform the same
/// CoreFoundation code is what `String.folding(options:locale:)` runs. The tests check this
/// implementation against it character by character and on generated strings. Where the two
/// rules disagree, this one follows Foundation:
///
/// * **Marks** are the characters with the Grapheme_Extend property as of Unicode 15 plus the
///   emoji skin-tone modifiers: combining marks of every kind, U+200C, the half-width sound marks
///   U+FF9E/U+FF9F. Under `[d]` they are removed after a base below U+0510 (ASCII, Latin, Greek,
///   Cyrillic). After any other base (kana, Hebrew, Devanagari, emoji…) only a first mark below
///   U+0510 is removed and the rest are kept, so `'が' ==[d] 'か'` is false. A mark that starts
///   the string is kept.
/// * **Case** folds with full case folding (`'ß' ==[c] 'ss'`), except that Cherokee folds to its
///   lower-case letters and characters whose case mapping is newer than Foundation's tables
///   (U+1C80–U+1C88, everything assigned in Unicode 16 or later) are left alone.
/// * **Width** folding maps U+FF00–U+FFEF to their one-character compatibility forms only
///   (`'Ａ' ==[c] 'a'`); U+3000 and U+FFE3 are unchanged.
/// * A mark that follows a base is neither case- nor width-folded under `[d]`, and the marks kept
///   in a cluster are put in canonical-combining-class order. When the base itself was changed by
///   case or width folding and is not below U+0510, even its first mark is kept: `'Ꭰ́'` and
///   `'ꭰ́'` (U+13A0 and U+AB70 with U+0301) differ under `[cd]`.
enum StringFolding {
    /// `text` transformed for comparison under `[c]` and/or `[d]`, as Unicode scalar values.
    ///
    /// With neither option the result is the canonical decomposition (what ordering without
    /// options compares). Text made of BMP scalars that fold independently is folded by look-up
    /// (``FoldTable``); anything else takes ``exactFold(_:caseInsensitive:diacriticInsensitive:)``.
    /// Both give the same result.
    static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> [UInt32] {
        guard caseInsensitive || diacriticInsensitive else { return decomposed(text) }
        let table = FoldTable.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        if let folded = table.fold(text) { return folded }
        return exactFold(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
    }

    /// The canonical decomposition (NFD) of `text`, as scalar values.
    static func decomposed(_ text: String) -> [UInt32] {
        // Nothing below U+00C0 (UTF-8 lead byte 0xC3) has a canonical decomposition.
        if StringKernels.withUTF8(text, { $0.allSatisfy { $0 < 0xC3 } }) { return text.unicodeScalars.map(\.value) }
        return FoldTable.canonical.fold(text) ?? exactFold(text, caseInsensitive: false, diacriticInsensitive: false)
    }

    /// The folding computed from first principles: Foundation's canonical decomposition, then
    /// the cluster-by-cluster folding of ``fold(scalars:caseInsensitive:diacriticInsensitive:)``.
    static func exactFold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> [UInt32] {
        let scalars = text.decomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        guard caseInsensitive || diacriticInsensitive else { return scalars }
        return fold(scalars: scalars, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
    }

    /// The compatibility composition (NFKC) of `text`, which LIKE and MATCHES apply to both
    /// sides unless `[n]` is given.
    static func compatibilityComposed(_ text: String) -> String {
        if StringKernels.withUTF8(text, StringKernels.isASCII) { return text }
        if text.unicodeScalars.allSatisfy(isCompatibilityStable) { return text }
        return text.precomposedStringWithCompatibilityMapping
    }

    /// Whether `scalar` is one NFKC leaves alone wherever it stands: no compatibility or
    /// canonical decomposition that composition would not restore (NFKC_Quick_Check = Yes),
    /// combining class 0, and never the second of a composed pair. A string made only of such
    /// scalars is its own NFKC form, so the common non-ASCII names (`Résumé`, `Übersicht`,
    /// `写真`) skip Foundation's normalization. Deliberately few ranges, each checked against
    /// the Unicode Character Database: ASCII, Latin-1's letters and signs from U+00C0, Latin
    /// Extended-A without its six compatibility characters, hiragana and katakana without the
    /// sound marks, and the CJK unified ideographs.
    static func isCompatibilityStable(_ scalar: Unicode.Scalar) -> Bool {
        isCompatibilityStable(scalar.value)
    }

    /// ``isCompatibilityStable(_:)-(Unicode.Scalar)`` of a scalar value.
    static func isCompatibilityStable(_ value: UInt32) -> Bool {
        switch value {
        case 0x00...0x7F, 0xC0...0xFF: return true
        case 0x0132, 0x0133, 0x013F, 0x0140, 0x0149, 0x017F: return false
        case 0x0100...0x017F: return true
        case 0x3041...0x3096, 0x30A1...0x30FA, 0x4E00...0x9FFF: return true
        default: return false
        }
    }

    /// ``compatibilityComposed(_:)`` of ``fold(_:caseInsensitive:diacriticInsensitive:)`` (what
    /// `LIKE[c]`, `[d]` and `[cd]` prepare a string to), one scalar at a time, when every scalar
    /// is one ``PreparedScalars`` answers for; `nil` for any other text.
    static func preparedByScalar(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> [UInt32]? {
        let table = PreparedScalars.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        return StringKernels.withUTF8(text) { utf8 in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: table.capacity(for: utf8.count)) { buffer in
                guard case .whole(let count) = table.prepare(utf8, into: buffer) else { return nil }
                return Array(buffer[..<count])
            }
        }
    }

    /// A string made of scalar values that came from a valid string.
    static func string(_ scalars: [UInt32]) -> String {
        // One scalar at a time: appending a lazy map was left generic, looking up type metadata
        // on every call.
        var view = String.UnicodeScalarView()
        for value in scalars { view.append(scalar(value)) }
        return String(view)
    }

    /// Folds decomposed text one cluster (a base and the marks after it) at a time.
    static func fold(scalars input: [UInt32], caseInsensitive: Bool, diacriticInsensitive: Bool) -> [UInt32] {
        var output: [UInt32] = []
        output.reserveCapacity(input.count + 4)
        var index = 0
        while index < input.count {
            let original = input[index]
            index += 1
            if original < 0x80 && !diacriticInsensitive {
                output.append(caseInsensitive ? asciiLowercase(original) : original)
                continue
            }
            let clusterStart = output.count
            var base = original
            if original < 0x80 {
                if caseInsensitive && isASCIIUppercase(original) {
                    base = original + 0x20
                    output.append(base)
                }
            } else {
                if (0xFF00...0xFFEF).contains(base) {
                    base = widthFoldings[Int(base - 0xFF00)]
                    output.append(base)
                }
                if caseInsensitive, let folding = caseFolding(of: base) {
                    output.removeSubrange(clusterStart...)
                    let dropsMarks = diacriticInsensitive && base < 0x510
                    for folded in folding.unicodeScalars {
                        // The last scalar of the folding is the base even when it is a dropped mark.
                        base = folded.value
                        if !(dropsMarks && isMark(base)) { output.append(base) }
                    }
                }
            }
            if diacriticInsensitive {
                index = collectMarks(after: base, from: input, at: index, into: &output, clusterStart: clusterStart)
            }
            if output.count == clusterStart { output.append(original) }
        }
        return output
    }

    /// Consumes the marks after a base under `[d]`, keeping those Foundation keeps; returns the
    /// index after the cluster.
    private static func collectMarks(
        after base: UInt32, from input: [UInt32], at start: Int, into output: inout [UInt32], clusterStart: Int
    ) -> Int {
        // Foundation folds at most this many scalars (CFStringInlineBuffer's size) as one cluster.
        let clusterLimit = 64
        var index = start
        var keepsMarks = base >= 0x510
        var baseWritten = output.count > clusterStart
        if !baseWritten && keepsMarks {
            if index < input.count && isMark(input[index]) {
                output.append(base)
                baseWritten = true
                if input[index] > 0x50F { output.append(input[index]) }
                index += 1
            } else {
                keepsMarks = false
            }
        }
        while index < input.count && output.count - clusterStart < clusterLimit && isMark(input[index]) {
            if keepsMarks {
                output.append(input[index])
            } else if !baseWritten {
                output.append(base)
                baseWritten = true
            }
            index += 1
        }
        sortTrailingMarks(&output, clusterStart: clusterStart)
        return index
    }

    /// Stable sort of the cluster's trailing marks, and the character before them, by canonical
    /// combining class.
    private static func sortTrailingMarks(_ output: inout [UInt32], clusterStart: Int) {
        let end = output.count
        guard end - clusterStart > 1 else { return }
        var first = end - 1
        while first > clusterStart && isMark(output[first]) { first -= 1 }
        guard end - first > 1 else { return }
        for position in (first + 1)..<end {
            let item = output[position]
            let itemClass = combiningClass(item)
            var slot = position
            while slot > first && combiningClass(output[slot - 1]) > itemClass {
                output[slot] = output[slot - 1]
                slot -= 1
            }
            output[slot] = item
        }
    }

    // MARK: - Character data

    /// Whether Foundation's folding treats `value` as a mark attached to the preceding base.
    static func isMark(_ value: UInt32) -> Bool {
        if value < 0x300 { return false }
        if value == 0x1171E || (0x1F3FB...0x1F3FF).contains(value) { return true }
        let properties = scalar(value).properties
        guard properties.isGraphemeExtend else { return false }
        if let age = properties.age, age.major >= 16 { return false }
        // Spacing marks that became Grapheme_Extend in Unicode 16.
        switch value {
        case 0x1715, 0x1734, 0x1B44, 0x1BAA, 0x1BF2, 0x1BF3, 0xA953, 0xA9C0, 0x111C0, 0x11235, 0x1134D, 0x116B6,
            0x1193D, 0x11F41, 0x16FF0, 0x16FF1, 0x1D166, 0x1D16D:
            return false
        default:
            return true
        }
    }

    /// Foundation's case folding of one scalar, or `nil` when it folds to itself.
    static func caseFolding(of value: UInt32) -> String? {
        if value < 0x80 {
            return isASCIIUppercase(value) ? String(Character(scalar(value + 0x20))) : nil
        }
        if (0x1C80...0x1C88).contains(value) { return nil }
        let character = scalar(value)
        let properties = character.properties
        let changesWhenFolded = properties.changesWhenCaseFolded
        guard changesWhenFolded || properties.changesWhenLowercased else { return nil }
        if let age = properties.age, age.major >= 16 { return nil }
        // Cherokee upper-case letters are the only ones in this branch: Foundation lower-cases them.
        if !changesWhenFolded { return properties.lowercaseMapping }
        let lower = properties.lowercaseMapping
        if let only = lower.unicodeScalars.first, lower.unicodeScalars.count == 1, only != character,
            !only.properties.changesWhenCaseFolded
        {
            return lower
        }
        // Full folding: upper- then lower-case until nothing changes (ß → SS → ss, ẞ → ß → ss).
        var current = String(Character(character))
        for _ in 0..<3 {
            let next = current.uppercased().lowercased()
            if next.unicodeScalars.elementsEqual(current.unicodeScalars) { break }
            current = next
        }
        if current.unicodeScalars.elementsEqual(CollectionOfOne(character)) { return nil }
        return current
    }

    /// U+FF00–U+FFEF mapped to their compatibility form when it is a single scalar.
    private static let widthFoldings: [UInt32] = (UInt32(0xFF00)...0xFFEF).map { value in
        let mapped = String(Character(scalar(value))).decomposedStringWithCompatibilityMapping.unicodeScalars
        guard mapped.count == 1, let only = mapped.first else { return value }
        return only.value
    }

    private static func combiningClass(_ value: UInt32) -> UInt8 {
        value < 0x300 ? 0 : scalar(value).properties.canonicalCombiningClass.rawValue
    }

    /// The scalar for a value taken from a valid string.
    static func scalar(_ value: UInt32) -> Unicode.Scalar {
        Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    static func isASCIIUppercase(_ value: UInt32) -> Bool {
        value &- 0x41 < 26
    }

    static func asciiLowercase(_ value: UInt32) -> UInt32 {
        isASCIIUppercase(value) ? value + 0x20 : value
    }

    static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte + 0x20 : byte
    }
}
