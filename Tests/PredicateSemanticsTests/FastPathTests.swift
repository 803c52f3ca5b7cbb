import Foundation
import PredicateSyntax
import Testing

@testable import PredicateSemantics

/// The fast paths (ASCII bytes, the per-scalar fold tables, prepared operands) against the exact
/// path: Foundation's canonical decomposition followed by the cluster-by-cluster folding.
@Suite struct FastPathTests {
    static let optionSets: [(caseInsensitive: Bool, diacriticInsensitive: Bool)] = [
        (false, false), (true, false), (false, true), (true, true),
    ]

    /// Every BMP scalar the tables answer for gets the exact path's result.
    @Test(arguments: 0..<4) func foldTablesAgreeWithExactFolding(_ optionSet: Int) {
        let (caseInsensitive, diacriticInsensitive) = Self.optionSets[optionSet]
        let table = FoldTable.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        var answered = 0
        var mismatches: [String] = []
        for value in UInt32(0)..<0x1_0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            guard let fast = table.fold(text) else { continue }
            answered += 1
            let exact = StringFolding.exactFold(
                text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
            if fast != exact { mismatches.append("U+\(hex(text))") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        // Nearly all of the BMP: everything but marks, surrogates and the few scalars whose
        // decomposition starts with a mark.
        #expect(answered > 60_000)
    }

    /// Generated text folds the same by table (when it can) and exactly.
    @Test func generatedTextFoldsTheSameEitherWay() {
        var generator = TextGenerator(seed: 7)
        var tableAnswered = 0
        var mismatches: [String] = []
        for _ in 0..<3_000 {
            let text = generator.text()
            for (caseInsensitive, diacriticInsensitive) in Self.optionSets {
                let exact = StringFolding.exactFold(
                    text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                let folded = StringFolding.fold(
                    text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                if folded != exact { mismatches.append("\(caseInsensitive)\(diacriticInsensitive) \(hex(text))") }
                let table = FoldTable.table(
                    caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                if table.fold(text) != nil { tableAnswered += 1 }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(tableAnswered > 3_000)
    }

    /// ASCII operands take the byte path; its answers are those of the exact folding.
    @Test func asciiOperandsAgreeWithExactFolding() {
        var random = SeededGenerator(seed: 42)
        let alphabet = Array("aAbBcCzZ09 .-_*?\\\u{7F}\t".unicodeScalars)
        func word() -> String {
            let length = Int.random(in: 0...6, using: &random)
            let scalars = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            return String(String.UnicodeScalarView(scalars))
        }
        var failures: [String] = []
        for _ in 0..<4_000 {
            let (lhs, rhs) = (word(), word())
            for options in FoldingConformanceTests.foldingOptions {
                if Self.firstDisagreement(lhs, rhs, options).check != nil {
                    failures.append("\(options.rawValue) \(lhs.debugDescription) \(rhs.debugDescription)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// Eight bytes at a time: the ASCII `CONTAINS` kernel agrees with the byte-at-a-time search
    /// on texts longer than a word, with letters beside the bytes that bound the upper-case range
    /// (`@`, `[`) and needles at every offset.
    @Test func asciiContainsAgreesWithTheSimpleSearch() {
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("aAbBzZ@[`{ 09.".utf8)
        func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
        }
        var failures: [String] = []
        for _ in 0..<20_000 {
            let text = bytes(Int.random(in: 0...40, using: &random))
            let raw = bytes(Int.random(in: 1...4, using: &random))
            for lowercased in [false, true] {
                let needle = lowercased ? raw.map(StringFolding.asciiLowercase) : raw
                let expected = StringKernels.contains(
                    text.lazy.map { lowercased ? StringFolding.asciiLowercase($0) : $0 }, needle)
                let found = text.withUnsafeBufferPointer {
                    StringKernels.asciiContains($0, needle, lowercased: lowercased)
                }
                if found != expected {
                    failures.append(
                        "\(String(decoding: text, as: UTF8.self)) \(String(decoding: needle, as: UTF8.self))")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// Text that is not ASCII but holds runs of ASCII longer than a word, upper case included,
    /// is folded eight bytes at a time there; its answers are those of the exact folding.
    @Test func asciiRunsInTextThatIsNotASCIIFoldAsExactly() {
        var random = SeededGenerator(seed: 5)
        let ascii = Array("aAbBzZ@[`{ 09.".unicodeScalars)
        let others = Array("éÉßﬁ\u{212A}ö".unicodeScalars)
        func run(_ lengths: ClosedRange<Int>) -> [Unicode.Scalar] {
            (0..<Int.random(in: lengths, using: &random)).map { _ in
                ascii[Int.random(in: 0..<ascii.count, using: &random)]
            }
        }
        func other() -> Unicode.Scalar { others[Int.random(in: 0..<others.count, using: &random)] }
        var failures: [String] = []
        for _ in 0..<3_000 {
            let scalars = run(0...3) + [other()] + run(8...24) + [other()] + run(0...9)
            let text = String(String.UnicodeScalarView(scalars))
            let start = Int.random(in: 0..<scalars.count, using: &random)
            let end = Int.random(in: start...scalars.count, using: &random)
            let flipped = scalars[start..<end].map { scalar -> Unicode.Scalar in
                guard scalar.isASCII, Bool.random(using: &random) else { return scalar }
                return String(scalar).uppercased().unicodeScalars.first ?? scalar
            }
            let part = String(String.UnicodeScalarView(flipped))
            for options in FoldingConformanceTests.foldingOptions {
                if Self.firstDisagreement(text, part, options).check != nil {
                    failures.append("\(options.rawValue) \(text.debugDescription) \(part.debugDescription)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// An ASCII suffix of text that is not ASCII but ends in ASCII is decided from the text's
    /// last bytes alone; its answers are those of the exact folding, whatever comes before those
    /// bytes (marks, a prepended format character, a joiner, ligatures, scalars that fold to
    /// ASCII) and wherever the suffix starts.
    @Test func asciiSuffixOfTextThatIsNotASCIIFoldsAsExactly() {
        var random = SeededGenerator(seed: 13)
        let ascii = Array("aAbBpPdDfF.zZ@[`{ 09".unicodeScalars)
        let others = Array("éÉßﬁ\u{212A}\u{17F}ö\u{301}\u{600}\u{200D}\u{1F600}\u{AC00}\u{1100}".unicodeScalars)
        var failures: [String] = []
        var found = 0
        for _ in 0..<3_000 {
            let head = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                others[Int.random(in: 0..<others.count, using: &random)]
            }
            let tail = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                ascii[Int.random(in: 0..<ascii.count, using: &random)]
            }
            let text = String(String.UnicodeScalarView(head + tail))
            // The end of the tail, or more than it (reaching into the head), its case flipped.
            let length = Int.random(in: 1...(tail.count + 2), using: &random)
            let needle = String(
                String.UnicodeScalarView(
                    (head.suffix(max(0, length - tail.count)) + tail.suffix(length)).map { scalar in
                        guard scalar.isASCII, Bool.random(using: &random) else { return scalar }
                        return String(scalar).uppercased().unicodeScalars.first ?? scalar
                    }))
            // Only ASCII needles take the path; others keep it honest.
            let suffixes = [needle, String(needle.unicodeScalars.filter(\.isASCII))].filter { !$0.isEmpty }
            for suffix in suffixes {
                for options in FoldingConformanceTests.foldingOptions {
                    let (check, isSuffix) = Self.firstDisagreement(text, suffix, options)
                    if isSuffix { found += 1 }
                    if let check { failures.append("check \(check) \(options.rawValue) \(hex(text)) | \(hex(suffix))") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(found > 1_000, "suffixes found")
    }

    /// Text that is not ASCII takes the table paths (folded into a buffer on the stack, or for a
    /// suffix only its last scalars folded); their answers are those of the exact folding,
    /// whatever marks, supplementary scalars or ligatures lie before or inside the part compared.
    @Test func nonASCIIOperandsAgreeWithExactFolding() {
        var generator = TextGenerator(seed: 11)
        var random = SeededGenerator(seed: 12)
        // The other operand: unrelated text, or a piece of the first (its end, its start, its
        // middle), cut anywhere, marks included, so that many answers are true.
        func piece(of text: String) -> String {
            let scalars = Array(text.unicodeScalars)
            let start = Int.random(in: 0...scalars.count, using: &random)
            let end = Int.random(in: start...scalars.count, using: &random)
            let cut: ArraySlice<Unicode.Scalar> =
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars[start...]
                case 1: scalars[..<end]
                default: scalars[start..<end]
                }
            return String(String.UnicodeScalarView(cut))
        }
        var failures: [String] = []
        var found = 0
        for _ in 0..<3_000 {
            let lhs = generator.text()
            let rhs = generator.chance(0.7) ? piece(of: lhs) : generator.text()
            for options in FoldingConformanceTests.foldingOptions {
                let (check, suffix) = Self.firstDisagreement(lhs, rhs, options)
                if suffix { found += 1 }
                if let check { failures.append("check \(check) \(options.rawValue) \(hex(lhs)) | \(hex(rhs))") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(found > 1_000, "suffixes found")
    }

    /// Every operator on `lhs` and `rhs` (with either side prepared, where the API has both)
    /// against the exact folding's answer: the index of the first check that disagrees, if any,
    /// and whether `rhs` is a suffix of `lhs`.
    static func firstDisagreement(
        _ lhs: String, _ rhs: String, _ options: ComparisonOptions
    ) -> (check: Int?, suffix: Bool) {
        func exact(_ text: String) -> [UInt16] {
            let scalars = StringFolding.exactFold(
                text, caseInsensitive: options.contains(.caseInsensitive),
                diacriticInsensitive: options.contains(.diacriticInsensitive))
            return Array(StringFolding.string(scalars).utf16)
        }
        let (left, right) = (exact(lhs), exact(rhs))
        let matcher = StringMatcher(rhs, options: options)
        let prepared = StringMatcher(lhs, options: options)
        let suffix =
            !rhs.isEmpty && !right.isEmpty && left.count >= right.count && left.suffix(right.count) == right[...]
        let prefix = !rhs.isEmpty && !right.isEmpty && left.starts(with: right)
        let contains = !rhs.isEmpty && FoundationReference.contains(left, right)
        let order = FoundationReference.order(left, right)
        let checks = [
            StringOperators.equals(lhs, rhs, options: options) == (left == right),
            matcher.equals(lhs) == (left == right),
            StringOperators.compare(lhs, rhs, options: options) == order,
            matcher.order(of: lhs) == order,
            StringOperators.hasSuffix(lhs, rhs, options: options) == suffix,
            matcher.isSuffix(of: lhs) == suffix,
            prepared.hasSuffix(rhs) == suffix,
            StringOperators.hasPrefix(lhs, rhs, options: options) == prefix,
            matcher.isPrefix(of: lhs) == prefix,
            prepared.hasPrefix(rhs) == prefix,
            StringOperators.contains(lhs, rhs, options: options) == contains,
            matcher.isContained(in: lhs) == contains,
            prepared.contains(rhs) == contains,
        ]
        return (checks.firstIndex(of: false), suffix)
    }

    /// LIKE on an ASCII subject (matched in place) agrees with the same subject forced through
    /// the Unicode path by a non-ASCII suffix that the pattern absorbs.
    @Test func likeOnASCIIAgreesWithUnicodePath() throws {
        var random = SeededGenerator(seed: 9)
        let alphabet = Array("aAbB*?\\".unicodeScalars)
        func word(_ maximum: Int) -> String {
            let length = Int.random(in: 0...maximum, using: &random)
            let scalars = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            return String(String.UnicodeScalarView(scalars))
        }
        var failures: [String] = []
        for _ in 0..<3_000 {
            let subject = word(8)
            var pattern = word(5)
            if pattern.reversed().prefix(while: { $0 == "\\" }).count % 2 == 1 { pattern += "\\" }
            for options in FoldingConformanceTests.foldingOptions + [[], [.normalized]] {
                let like = try LikePattern(pattern.isEmpty ? "*" : pattern, options: options)
                let withSuffix = try LikePattern((pattern.isEmpty ? "*" : pattern) + "\u{E9}", options: options)
                if like.matches(subject) != withSuffix.matches(subject + "\u{E9}") {
                    failures.append("\(options.rawValue) \(subject.debugDescription) LIKE \(pattern.debugDescription)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// LIKE on a subject with an ASCII start and a non-ASCII rest (decided from the start when
    /// the match ends there) gives the answer and spends the steps of matching the whole text as
    /// it is prepared (folded, then NFKC), which the pattern prepared the same way, under `[n]`,
    /// matches without preparing anything. The rests include combining marks that compose with
    /// the ASCII before them, and characters that fold or decompose to ASCII.
    @Test func likeDecidedFromTheASCIIStartMeansTheWholeText() throws {
        var random = SeededGenerator(seed: 11)
        // `é`, `≠` and `Å` are what `e`, `=` and `A` compose into with the marks in `rests`.
        let alphabet = Array("aAbBie=é≠Å_*?\\".unicodeScalars)
        let rests = [
            "\u{301}", "é", "É", "ﬁx", "Ｉ", "\u{5B0}\u{301}", "写真", "İ", "ß", "\u{212B}", "\u{345}", "ǅ", "ë\u{323}",
            "\u{338}", "ά", "Жa", "한",
        ]
        func word(_ maximum: Int) -> String {
            let length = Int.random(in: 0...maximum, using: &random)
            let scalars = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            return String(String.UnicodeScalarView(scalars))
        }
        func prepared(_ text: String, _ options: ComparisonOptions) -> String {
            let caseInsensitive = options.contains(.caseInsensitive)
            let diacriticInsensitive = options.contains(.diacriticInsensitive)
            guard caseInsensitive || diacriticInsensitive else { return StringFolding.compatibilityComposed(text) }
            let folded = StringFolding.fold(
                text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
            return StringFolding.compatibilityComposed(StringFolding.string(folded))
        }
        var failures: [String] = []
        var decidedEarly = 0
        for _ in 0..<3_000 {
            let subject =
                word(6).replacingOccurrences(of: "*", with: "").replacingOccurrences(of: "?", with: "")
                .replacingOccurrences(of: "\\", with: "") + rests[Int.random(in: 0..<rests.count, using: &random)]
                + (Bool.random(using: &random) ? "" : word(3))
            var pattern = word(5)
            if pattern.reversed().prefix(while: { $0 == "\\" }).count % 2 == 1 { pattern += "\\" }
            if pattern.isEmpty { pattern = "*" }
            for options in FoldingConformanceTests.foldingOptions + [[]] {
                let like = try LikePattern(pattern, options: options)
                let reference = try LikePattern(prepared(pattern, options), options: [.normalized])
                for budget in [3, 1_000] {
                    var left = budget
                    var referenceLeft = budget
                    let answer = like.matches(subject, budget: &left)
                    let expected = reference.matches(prepared(subject, options), budget: &referenceLeft)
                    if answer != expected || left != referenceLeft {
                        failures.append(
                            "\(options.rawValue) \(subject.debugDescription) LIKE \(pattern.debugDescription) with "
                                + "\(budget): \(String(describing: answer)), \(left) steps left; expected "
                                + "\(String(describing: expected)), \(referenceLeft)")
                    }
                    if budget == 1_000, answer != nil, left > 1_000 - subject.unicodeScalars.count { decidedEarly += 1 }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        // Many matches end within the ASCII start, so the early decision is exercised.
        #expect(decidedEarly > 1_000)
    }
}

/// The scalars NFKC is skipped for are their own NFKC form alone and next to each other (and
/// next to any other scalar as the first of a pair: none is the second of a composition).
@Suite struct CompatibilityStableScalarTests {
    static let stable = (UInt32(0)..<0x1_0000).compactMap(Unicode.Scalar.init).filter(
        StringFolding.isCompatibilityStable)

    @Test func eachIsItsOwnNFKC() {
        let changed = Self.stable.filter { String($0).precomposedStringWithCompatibilityMapping != String($0) }
        #expect(changed.isEmpty, "\(changed.prefix(10).map { String($0.value, radix: 16) })")
    }

    /// Every pair of stable scalars outside the ideographs (whose pairs are ideographs too), and
    /// each ideograph after a few others.
    @Test func pairsStayAsTheyAre() {
        let small = Self.stable.filter { $0.value < 0x4E00 }
        var changed: [String] = []
        for first in small {
            for second in small {
                let pair = String(first) + String(second)
                if pair.precomposedStringWithCompatibilityMapping != pair { changed.append(pair) }
            }
        }
        for ideograph in Self.stable where ideograph.value >= 0x4E00 {
            for other in ["a", "é", "か", "写"] {
                let pair = other + String(ideograph)
                if pair.precomposedStringWithCompatibilityMapping != pair { changed.append(pair) }
            }
        }
        #expect(changed.isEmpty, "\(changed.prefix(10))")
    }

    /// `LIKE`'s preparation one scalar at a time equals the exact path's on every pair of the
    /// scalars it answers for (ASCII letters and signs, the table's, a few ideographs).
    @Test(arguments: [(true, false), (false, true), (true, true)])
    func preparationByScalarIsTheExactPreparation(_ options: (Bool, Bool)) {
        let (caseInsensitive, diacriticInsensitive) = options
        let scalars =
            Self.stable.filter { ($0.value >= 0x20 && $0.value < 0x7F) || ($0.value >= 0xC0 && $0.value < 0x4E00) }
            + ["写", "真", "\u{9FFF}"]
        func exact(_ text: String) -> [UInt32] {
            StringFolding.compatibilityComposed(
                StringFolding.string(
                    StringFolding.fold(
                        text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
            ).unicodeScalars.map(\.value)
        }
        var differing: [String] = []
        for first in scalars {
            for second in scalars {
                let pair = String(first) + String(second)
                let quick = StringFolding.preparedByScalar(
                    pair, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                if quick != exact(pair) { differing.append(pair) }
            }
        }
        #expect(differing.isEmpty, "\(differing.count): \(differing.prefix(10))")
        #expect(StringFolding.preparedByScalar("e\u{301}", caseInsensitive: true, diacriticInsensitive: false) == nil)
    }

    /// Text prepared by scalar up to a scalar the table cannot answer for: what it calls settled
    /// is the exact preparation's start, whatever follows (a mark that composes with the scalar
    /// before it, a ligature, a full-width letter, a Hangul jamo).
    @Test(arguments: [(true, false), (false, true), (true, true)])
    func settledHeadIsTheExactPreparationsStart(_ options: (Bool, Bool)) {
        let (caseInsensitive, diacriticInsensitive) = options
        let table = PreparedScalars.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        let heads = [
            "", "a", "E", "img_", "R\u{E9}sum", "\u{DC}ber", "\u{5199}", "\u{304B}", "stra\u{DF}", "IMG_0042 x",
        ]
        let breaks = [
            "\u{301}", "\u{308}\u{301}", "\u{3099}", "\u{FB01}", "\u{FF21}", "\u{1161}", "\u{1F600}", "\u{2460}",
        ]
        var differing: [String] = []
        for head in heads {
            for brk in breaks {
                let text = head + brk + "tail"
                let exact = StringFolding.compatibilityComposed(
                    StringFolding.string(
                        StringFolding.fold(
                            text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
                ).unicodeScalars.map(\.value)
                var bytes = text
                let settled = bytes.withUTF8 { utf8 in
                    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: table.capacity(for: utf8.count)) {
                        buffer -> [UInt32]? in
                        guard case .head(let settled) = table.prepare(utf8, into: buffer) else { return nil }
                        return Array(buffer[..<settled])
                    }
                }
                guard let settled, settled.count <= exact.count, Array(exact[..<settled.count]) == settled,
                    settled.count + 2 >= head.unicodeScalars.count
                else {
                    differing.append(text)
                    continue
                }
            }
        }
        #expect(differing.isEmpty, "\(differing.count): \(differing.prefix(10).map(\.debugDescription))")
    }

    @Test func othersAreNotStable() {
        for value: UInt32 in [0xA0, 0xB2, 0x132, 0x17F, 0x301, 0x3099, 0x309B, 0xFB01, 0xFF21, 0x2460, 0xAC00] {
            #expect(Unicode.Scalar(value).map(StringFolding.isCompatibilityStable) == false, "\(value)")
        }
    }
}
