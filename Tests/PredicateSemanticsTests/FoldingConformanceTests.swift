import Foundation
import PredicateSemantics
import PredicateSyntax
import Testing

/// The `[c]`/`[d]` folding against Foundation's own (`String.folding(options:locale:)` with
/// width folding, after canonical decomposition), character by character and on generated text.
@Suite struct FoldingConformanceTests {
    static let foldingOptions: [ComparisonOptions] = [
        [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive],
    ]

    /// Every assigned scalar on its own, plane by plane.
    @Test(arguments: [0x0000...0xFFFF, 0x1_0000...0x1_FFFF, 0x2_0000...0x3_FFFF, 0xE_0000...0xE_FFFF])
    func everyScalarFoldsAsFoundationDoes(_ plane: ClosedRange<UInt32>) {
        var mismatches: [String] = []
        for value in plane {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let category = scalar.properties.generalCategory
            if category == .unassigned || category == .privateUse { continue }
            let text = String(Character(scalar))
            for options in Self.foldingOptions {
                let ours = Array(StringOperators.folded(text, options: options).utf16)
                if ours != FoundationReference.folded(text, options) {
                    mismatches.append("U+\(hex(text)) \(options.rawValue)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// Every mark after bases of each kind that the folding treats differently, and a mark
    /// starting the string.
    @Test func marksFoldAsFoundationDoesInContext() {
        let bases: [UInt32] = [
            0x61, 0x41, 0x3B1, 0x416, 0x304B, 0x13A0, 0xAB70, 0x1E9E, 0x4E00, 0x1F600, 0xFF76, 0x301,
        ]
        var mismatches: [String] = []
        for value in UInt32(0x300)...0x10FFFF {
            guard let mark = Unicode.Scalar(value) else { continue }
            let properties = mark.properties
            let isCandidate =
                properties.isGraphemeExtend || properties.generalCategory == .spacingMark
                || properties.generalCategory == .enclosingMark || properties.isEmojiModifier
                || (0xFF9E...0xFF9F).contains(value)
            guard isCandidate else { continue }
            for base in bases {
                let text = String(
                    String.UnicodeScalarView([base, value, 0x302, value].compactMap(Unicode.Scalar.init)))
                for options in Self.foldingOptions {
                    let ours = Array(StringOperators.folded(text, options: options).utf16)
                    if ours != FoundationReference.folded(text, options) {
                        mismatches.append("\(hex(text)) \(options.rawValue)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// 10,000 generated strings, each compared with a variant of itself (re-cased, re-composed,
    /// widened, stripped of marks…) and searched for pieces of that variant, under `[c]`, `[d]`
    /// and `[cd]`, one-shot and prepared; plus literal and canonical comparisons.
    @Test(arguments: 0..<4) func generatedStringsCompareAsFoundationDoes(_ batch: Int) {
        var generator = TextGenerator(seed: 0x5EED_0000 + UInt64(batch))
        var failures: [String] = []
        var equalPairs = 0
        for _ in 0..<2_500 {
            let text = generator.text()
            let variant = generator.variant(of: text)
            let needle = generator.piece(of: generator.chance(0.5) ? variant : text)
            for options in Self.foldingOptions {
                let folded = FoundationReference.folded(text, options)
                let foldedVariant = FoundationReference.folded(variant, options)
                let foldedNeedle = FoundationReference.folded(needle, options)
                let expectedEqual = folded == foldedVariant
                if expectedEqual { equalPairs += 1 }
                let expectedOrder = FoundationReference.order(folded, foldedVariant)
                let expectedContains = !needle.isEmpty && FoundationReference.contains(folded, foldedNeedle)
                let expectedPrefix = !needle.isEmpty && folded.starts(with: foldedNeedle)
                let expectedSuffix = !needle.isEmpty && folded.reversed().starts(with: foldedNeedle.reversed())
                let matcher = StringMatcher(variant, options: options)
                let needleMatcher = StringMatcher(needle, options: options)
                let checks: [(String, Bool)] = [
                    ("equals", StringOperators.equals(text, variant, options: options) == expectedEqual),
                    ("prepared equals", matcher.equals(text) == expectedEqual),
                    ("compare", StringOperators.compare(text, variant, options: options) == expectedOrder),
                    ("prepared order", matcher.order(of: text) == expectedOrder),
                    ("contains", StringOperators.contains(text, needle, options: options) == expectedContains),
                    ("prepared contains", needleMatcher.isContained(in: text) == expectedContains),
                    ("prepared container", StringMatcher(text, options: options).contains(needle) == expectedContains),
                    ("prefix", StringOperators.hasPrefix(text, needle, options: options) == expectedPrefix),
                    ("prepared prefix", needleMatcher.isPrefix(of: text) == expectedPrefix),
                    ("suffix", StringOperators.hasSuffix(text, needle, options: options) == expectedSuffix),
                    ("prepared suffix", needleMatcher.isSuffix(of: text) == expectedSuffix),
                ]
                for (name, passed) in checks where !passed {
                    failures.append("\(name)[\(options.rawValue)] \(hex(text)) | \(hex(variant)) | \(hex(needle))")
                }
            }
            for options in [ComparisonOptions(), [.normalized], [.localeSensitive, .widthInsensitive]] {
                let literal = Array(text.utf16) == Array(variant.utf16)
                let expectedOrder =
                    options.contains(.normalized)
                    ? FoundationReference.order(Array(text.utf16), Array(variant.utf16))
                    : FoundationReference.order(
                        Array(text.decomposedStringWithCanonicalMapping.utf16),
                        Array(variant.decomposedStringWithCanonicalMapping.utf16))
                let expectedContains = FoundationReference.contains(Array(text.utf16), Array(needle.utf16))
                let matcher = StringMatcher(variant, options: options)
                let checks: [(String, Bool)] = [
                    ("equals", StringOperators.equals(text, variant, options: options) == literal),
                    ("prepared equals", matcher.equals(text) == literal),
                    ("compare", StringOperators.compare(text, variant, options: options) == expectedOrder),
                    ("prepared order", matcher.order(of: text) == expectedOrder),
                    ("contains", StringOperators.contains(text, needle, options: options) == expectedContains),
                    (
                        "prepared contains",
                        StringMatcher(needle, options: options).isContained(in: text) == expectedContains
                    ),
                ]
                for (name, passed) in checks where !passed {
                    failures.append("\(name)[\(options.rawValue)] \(hex(text)) | \(hex(variant)) | \(hex(needle))")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(10))")
        // The variants must make equality common, or the equality checks would prove little.
        #expect(equalPairs > 2_500)
    }

    /// A prepared constant that folds to ASCII keeps the byte path for ASCII subjects; one that
    /// does not is never found in them.
    @Test(arguments: [
        ("R\u{C9}SUM\u{C9}", "my resume.pdf", "cd", true),
        ("R\u{C9}SUM\u{C9}", "my resume.pdf", "c", false),
        ("\u{FF32}\u{FF25}", "pre", "c", true),
        ("stra\u{DF}e", "STRASSE", "c", true),
        ("\u{6F22}", "kanji", "cd", false),
    ])
    func preparedConstantAgainstASCII(_ constant: String, _ subject: String, _ letters: String, _ found: Bool) {
        let matcher = StringMatcher(constant, options: options(letters))
        #expect(matcher.isContained(in: subject) == found)
        #expect(StringOperators.contains(subject, constant, options: options(letters)) == found)
    }
}

/// Text for the conformance tests: ASCII, Latin-1, combining sequences, Greek, Cyrillic, CJK,
/// kana, Hangul, full- and half-width forms, emoji with modifiers and joiners, and the special
/// cases of case folding.
struct TextGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private static let pools: [[UInt32]] = [
        Array(0x20...0x7E), Array(0x41...0x5A), Array(0x61...0x7A),
        Array(0xA0...0xFF), Array(0x100...0x17F), Array(0x180...0x24F),
        Array(0x370...0x3FF), Array(0x1F00...0x1FFF), Array(0x400...0x4FF),
        Array(0x4E00...0x4FFF), Array(0x3040...0x30FF), Array(0xAC00...0xAD00),
        Array(0xFF01...0xFF5E), Array(0xFF61...0xFF9F), Array(0xFFE0...0xFFEE),
        Array(0x1F300...0x1F3FF), Array(0x1F600...0x1F64F),
        Array(0x13A0...0x13F5), Array(0xAB70...0xABBF), Array(0x10400...0x1044F),
        Array(0x5D0...0x5EA), Array(0x915...0x939),
        [0xDF, 0x1E9E, 0x130, 0x131, 0x3C2, 0x17F, 0xB5, 0x212A, 0x212B, 0x2126, 0xFB00, 0xFB01, 0x345, 0x1C80],
    ]
    private static let marks: [UInt32] =
        Array(0x300...0x36F) + Array(0x483...0x487) + Array(0x20D0...0x20F0) + Array(0x1DC0...0x1DCF)
        + [0x3099, 0x309A, 0x5B4, 0x5BC, 0x93C, 0x94D, 0x200D, 0x200C, 0x34F, 0x1F3FB, 0x1F3FD, 0xFF9E, 0xFF9F]

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }

    private mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    /// A string of 0–10 pieces, each a character from a pool, sometimes followed by marks.
    mutating func text() -> String {
        var scalars: [UInt32] = []
        for _ in 0..<Int.random(in: 0...10, using: &random) {
            scalars.append(
                pick(
                    Self.pools[
                        chance(0.3)
                            ? Int.random(in: 0..<3, using: &random)
                            : Int.random(in: 0..<Self.pools.count, using: &random)]))
            if chance(0.25) {
                for _ in 0..<Int.random(in: 1...3, using: &random) { scalars.append(pick(Self.marks)) }
            }
            if chance(0.05) { scalars.append(0x200D) }
        }
        return String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
    }

    /// `text` changed in ways that the options may or may not see through.
    mutating func variant(of text: String) -> String {
        var result = text
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            switch Int.random(in: 0..<9, using: &random) {
            case 0: result = result.uppercased()
            case 1: result = result.lowercased()
            case 2: result = result.decomposedStringWithCanonicalMapping
            case 3: result = result.precomposedStringWithCanonicalMapping
            case 4:
                result = String(
                    String.UnicodeScalarView(
                        result.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                            $0.properties.generalCategory != .nonspacingMark
                        }))
            case 5:
                // Full-width ASCII letters and digits.
                result = String(
                    String.UnicodeScalarView(
                        result.unicodeScalars.map { scalar in
                            guard (0x21...0x7E).contains(scalar.value), chance(0.7) else { return scalar }
                            return Unicode.Scalar(scalar.value + 0xFEE0) ?? scalar
                        }))
            case 6:
                // Flip the case of some characters.
                result = String(
                    result.map { character in
                        guard chance(0.5) else { return String(character) }
                        return character.isUppercase ? character.lowercased() : character.uppercased()
                    }.joined())
            case 7:
                // Add or remove a mark.
                var scalars = Array(result.unicodeScalars)
                if !scalars.isEmpty && chance(0.5) {
                    scalars.remove(at: Int.random(in: 0..<scalars.count, using: &random))
                } else if let mark = Unicode.Scalar(pick(Self.marks)) {
                    scalars.insert(mark, at: Int.random(in: 0...scalars.count, using: &random))
                }
                result = String(String.UnicodeScalarView(scalars))
            default:
                break
            }
        }
        return result
    }

    /// A run of scalars from `text` (sometimes empty).
    mutating func piece(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty, chance(0.97) else { return "" }
        let start = Int.random(in: 0..<scalars.count, using: &random)
        let end = Int.random(in: (start + 1)...min(scalars.count, start + 4), using: &random)
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}
