import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// `lhs op[options] rhs` between two strings, checked through ``StringOperators`` and, for the
/// operators it serves, through a ``StringMatcher`` prepared from either side.
struct OperatorCase: CustomTestStringConvertible, Sendable {
    let lhs: String
    let op: ComparisonOperator
    let rhs: String
    let letters: String
    let expected: Bool

    init(_ lhs: String, _ op: ComparisonOperator, _ rhs: String, _ letters: String = "", _ expected: Bool) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.letters = letters
        self.expected = expected
    }

    var testDescription: String {
        "\(lhs.debugDescription) \(op.rawValue)\(letters.isEmpty ? "" : "[\(letters)]") \(rhs.debugDescription)"
    }

    func check(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let result = try? StringVector.evaluate(lhs, op, rhs, options: options(letters))
        #expect(result == expected, sourceLocation: sourceLocation)
        for (form, answer) in preparedAnswers() {
            #expect(answer == expected, "\(form)", sourceLocation: sourceLocation)
        }
    }

    /// The same comparison through matchers prepared from the right and from the left operand.
    private func preparedAnswers() -> [(String, Bool)] {
        let right = StringMatcher(rhs, options: options(letters))
        let left = StringMatcher(lhs, options: options(letters))
        switch op {
        case .equal: return [("rhs.equals", right.equals(lhs)), ("lhs.equals", left.equals(rhs))]
        case .notEqual: return [("rhs.equals", !right.equals(lhs)), ("lhs.equals", !left.equals(rhs))]
        case .less: return [("rhs.order", right.order(of: lhs) == .orderedAscending)]
        case .lessOrEqual: return [("rhs.order", right.order(of: lhs) != .orderedDescending)]
        case .greater: return [("rhs.order", right.order(of: lhs) == .orderedDescending)]
        case .greaterOrEqual: return [("rhs.order", right.order(of: lhs) != .orderedAscending)]
        case .beginsWith: return [("rhs.isPrefix", right.isPrefix(of: lhs)), ("lhs.hasPrefix", left.hasPrefix(rhs))]
        case .endsWith: return [("rhs.isSuffix", right.isSuffix(of: lhs)), ("lhs.hasSuffix", left.hasSuffix(rhs))]
        case .contains:
            return [("rhs.isContained", right.isContained(in: lhs)), ("lhs.contains", left.contains(rhs))]
        case .in: return [("lhs.isContained", left.isContained(in: rhs)), ("rhs.contains", right.contains(lhs))]
        default: return []
        }
    }
}

@Suite struct StringOperatorTests {
    /// Equality under every option, with the Unicode cases where rules are easy to get wrong.
    static let equalityCases: [OperatorCase] = [
        OperatorCase("abc", .equal, "ABC", "", false),
        OperatorCase("abc", .equal, "ABC", "c", true),
        OperatorCase("abc", .equal, "ABC", "cn", false),  // n wins: literal
        OperatorCase("abc", .equal, "ABC", "l", false),  // l: root behaviour, no effect
        OperatorCase("abc", .equal, "ABC", "w", false),
        OperatorCase("na\u{EF}ve", .equal, "naive", "d", true),
        OperatorCase("na\u{EF}ve", .equal, "naive", "c", false),
        OperatorCase("NA\u{CF}VE", .equal, "naive", "cd", true),
        OperatorCase("\u{C9}", .equal, "e", "cd", true),
        OperatorCase("\u{C9}", .equal, "\u{E9}", "c", true),
        OperatorCase("\u{C9}", .equal, "e", "c", false),
        OperatorCase("\u{C9}", .equal, "E", "d", true),
        OperatorCase("\u{C9}", .equal, "e", "d", false),
        // Canonically equivalent spellings: literal without c/d, equal once folded.
        OperatorCase("\u{E9}", .equal, "e\u{301}", "", false),
        OperatorCase("\u{E9}", .equal, "e\u{301}", "n", false),
        OperatorCase("\u{E9}", .equal, "e\u{301}", "c", true),
        OperatorCase("\u{E9}", .equal, "e\u{301}", "d", true),
        OperatorCase("\u{E9}", .equal, "e\u{301}", "cdn", false),
        OperatorCase("\u{1EC7}", .equal, "e\u{323}\u{302}", "c", true),  // ệ, marks in canonical order
        OperatorCase("\u{1EC7}", .equal, "e\u{302}\u{323}", "c", true),
        // Full case folding (Foundation agrees): ß is ss, final sigma is sigma, ligatures expand.
        OperatorCase("\u{DF}", .equal, "SS", "c", true),
        OperatorCase("\u{DF}", .equal, "ss", "c", true),
        OperatorCase("\u{1E9E}", .equal, "ss", "c", true),
        OperatorCase("\u{DF}", .equal, "ss", "d", false),
        OperatorCase("stra\u{DF}e", .equal, "STRASSE", "cd", true),
        OperatorCase("\u{3C2}", .equal, "\u{3A3}", "c", true),
        OperatorCase("\u{FB01}", .equal, "FI", "c", true),
        OperatorCase("\u{FB01}", .equal, "fi", "d", false),  // d does not expand ligatures
        OperatorCase("\u{212A}", .equal, "k", "c", true),  // KELVIN SIGN
        OperatorCase("\u{2126}", .equal, "\u{3C9}", "c", true),  // OHM SIGN
        OperatorCase("\u{B5}", .equal, "\u{3BC}", "c", true),  // MICRO SIGN
        OperatorCase("\u{1C5}", .equal, "\u{1C6}", "c", true),  // Dž titlecase
        OperatorCase("\u{10400}", .equal, "\u{10428}", "c", true),  // Deseret, a surrogate pair
        OperatorCase("\u{3A9}\u{345}", .equal, "\u{3C9}\u{3B9}", "c", true),  // ypogegrammeni folds to iota
        OperatorCase("\u{3A9}\u{345}", .equal, "\u{3C9}", "cd", true),
        // Turkish dotted and dotless I: root folding, no Turkish tailoring.
        OperatorCase("\u{130}", .equal, "i\u{307}", "c", true),
        OperatorCase("\u{130}", .equal, "i", "c", false),
        OperatorCase("\u{130}", .equal, "i", "cd", true),
        OperatorCase("\u{131}", .equal, "I", "c", false),
        OperatorCase("\u{131}", .equal, "i", "cd", false),
        // Width: U+FF00–U+FFEF fold under c or d.
        OperatorCase("\u{FF21}", .equal, "a", "c", true),  // Ａ
        OperatorCase("\u{FF21}", .equal, "A", "d", true),
        OperatorCase("\u{FF21}", .equal, "A", "", false),
        OperatorCase("\u{FF21}", .equal, "A", "w", false),
        OperatorCase("\u{FF21}\u{FF22}\u{FF23}", .equal, "abc", "cd", true),
        OperatorCase("\u{FF76}", .equal, "\u{30AB}", "c", true),  // half-width katakana KA
        OperatorCase("\u{FF76}\u{FF9E}", .equal, "\u{30AC}", "c", true),  // ｶﾞ: sound mark folded too
        OperatorCase("\u{3000}", .equal, " ", "cd", false),  // IDEOGRAPHIC SPACE is not in the range
        // CJK and emoji are unaffected by folding, and compare as themselves.
        OperatorCase("\u{6F22}\u{5B57}", .equal, "\u{6F22}\u{5B57}", "cd", true),
        OperatorCase("\u{1F600}", .equal, "\u{1F600}", "cd", true),
        OperatorCase("\u{1F44D}\u{1F3FD}", .equal, "\u{1F44D}\u{1F3FD}", "c", true),
        OperatorCase("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", .equal, "\u{1F468}\u{1F469}\u{1F467}", "cd", false),
    ]

    /// Where Foundation's folding departs from the textbook rules (SPEC §4.5.1 says "remove Mn,
    /// full case folding"), the operators follow Foundation, the reference the options exist for.
    static let foundationFoldingCases: [OperatorCase] = [
        // [d] removes marks only after a base below U+0510 (ASCII, Latin, Greek, Cyrillic).
        OperatorCase("\u{304C}", .equal, "\u{304B}", "d", false),  // が is not か (textbook: equal)
        OperatorCase("\u{304B}\u{3099}", .equal, "\u{304C}", "d", true),  // but is its decomposition
        OperatorCase("\u{5E9}\u{5BC}", .equal, "\u{5E9}", "d", false),  // Hebrew dagesh is kept
        OperatorCase("\u{915}\u{93C}", .equal, "\u{915}", "d", false),  // Devanagari nukta is kept
        OperatorCase("\u{304B}\u{301}", .equal, "\u{304B}", "d", true),  // a first mark below U+0510 goes
        // "Mark" means Grapheme_Extend: enclosing marks and skin-tone modifiers go after Latin.
        OperatorCase("e\u{20DD}", .equal, "e", "d", true),  // textbook (Mn only): not equal
        OperatorCase("a\u{1F3FD}", .equal, "a", "d", true),
        OperatorCase("\u{1F44D}\u{1F3FD}", .equal, "\u{1F44D}", "d", false),  // kept after emoji
        OperatorCase("\u{301}a", .equal, "a", "d", false),  // a leading mark is kept
        // Cherokee folds to its lower-case letters; both cases are still equal.
        OperatorCase("\u{13A0}", .equal, "\u{AB70}", "c", true),
        OperatorCase("\u{13F0}", .equal, "\u{13F8}", "c", true),
        OperatorCase("\u{13A0}\u{301}", .equal, "\u{AB70}\u{301}", "c", true),
        OperatorCase("\u{13A0}\u{301}", .equal, "\u{AB70}\u{301}", "cd", false),  // a folded base keeps its mark
        OperatorCase("\u{AB70}\u{301}", .equal, "\u{AB70}", "cd", true),
        // Case pairs newer than Foundation's tables do not fold (textbook: equal).
        OperatorCase("\u{1C80}", .equal, "\u{432}", "c", false),  // CYRILLIC SMALL LETTER ROUNDED VE
        OperatorCase("\u{A7CB}", .equal, "\u{264}", "c", false),  // Unicode 16
        // A mark after a base is not case-folded under [d]: U+0345 is dropped, not turned to iota.
        OperatorCase("\u{3B1}\u{345}", .equal, "\u{3B1}", "cd", true),
        OperatorCase("\u{345}", .equal, "\u{3B9}", "cd", true),  // alone it is a base, and folds
    ]

    /// Ordering: UTF-16 code units after decomposition, or after folding with c/d.
    static let orderingCases: [OperatorCase] = [
        OperatorCase("a", .less, "B", "", false),
        OperatorCase("a", .less, "B", "c", true),
        OperatorCase("a", .less, "B", "l", false),  // root behaviour: as without options
        OperatorCase("abc", .less, "abd", "n", true),
        OperatorCase("\u{E9}", .lessOrEqual, "e\u{301}", "", true),  // canonically equivalent: same
        OperatorCase("\u{E9}", .greaterOrEqual, "e\u{301}", "", true),
        OperatorCase("\u{E9}", .less, "e\u{301}", "", false),
        OperatorCase("\u{E9}", .greater, "e\u{301}", "n", true),  // literal: U+00E9 > U+0065
        OperatorCase("\u{E9}", .less, "f", "", true),  // e + U+0301 < f
        OperatorCase("\u{C9}", .less, "f", "c", true),
        OperatorCase("\u{C9}", .less, "e", "d", true),  // E < e
        OperatorCase("\u{C9}", .lessOrEqual, "e", "cd", true),
        OperatorCase("\u{C9}", .greaterOrEqual, "e", "cd", true),
        // UTF-16 order, not scalar order: a surrogate pair sorts before U+E000–U+FFFF.
        OperatorCase("\u{1F600}", .less, "\u{E000}", "", true),
        OperatorCase("\u{1F600}", .less, "\u{FF21}", "n", true),
        OperatorCase("\u{D7FF}", .less, "\u{1F600}", "", true),
        OperatorCase("\u{10400}", .less, "\u{E000}", "c", true),
        OperatorCase("\u{10428}", .greater, "\u{FF41}", "c", true),  // ａ folds to a
        OperatorCase("\u{6F22}", .greater, "\u{5B57}", "cd", true),
        OperatorCase("", .less, "\u{1F600}", "cd", true),
        OperatorCase("stra\u{DF}e", .greater, "STRASS", "c", true),  // strasse > strass
    ]

    /// BEGINSWITH, ENDSWITH, CONTAINS and IN between strings.
    static let substringsCases: [OperatorCase] = [
        OperatorCase("R\u{E9}sum\u{E9}.pdf", .contains, "resume", "cd", true),
        OperatorCase("R\u{E9}sum\u{E9}.pdf", .contains, "resume", "c", false),
        OperatorCase("R\u{E9}sum\u{E9}.pdf", .contains, "Resume", "d", true),
        OperatorCase("R\u{E9}sum\u{E9}.pdf", .contains, "R\u{C9}SUM\u{C9}", "c", true),
        OperatorCase("photo.JPG", .endsWith, ".jpg", "c", true),
        OperatorCase("photo.JPG", .endsWith, ".jpg", "", false),
        OperatorCase("photo.JPG", .endsWith, ".jpg", "cn", false),
        OperatorCase("photo.jpg", .endsWith, ".JPG", "cd", true),
        OperatorCase("Stra\u{DF}e", .contains, "SS", "c", true),
        OperatorCase("Stra\u{DF}e", .endsWith, "SSE", "c", true),
        OperatorCase("caf\u{E9}", .endsWith, "e", "", false),  // literal: é is one code unit
        OperatorCase("cafe\u{301}", .endsWith, "e\u{301}", "", true),
        OperatorCase("cafe\u{301}", .contains, "e", "", true),  // literal code units, mid-cluster
        OperatorCase("caf\u{E9}", .endsWith, "e\u{301}", "c", true),  // folded: both decomposed
        OperatorCase("caf\u{E9}", .beginsWith, "cafe", "d", true),
        OperatorCase("\u{FF26}\u{FF55}\u{FF4C}\u{FF4C}", .beginsWith, "full", "c", true),
        OperatorCase("\u{6F22}\u{5B57}\u{30C6}\u{30B9}\u{30C8}", .contains, "\u{5B57}\u{30C6}", "cd", true),
        OperatorCase("a\u{1F600}b", .contains, "\u{1F600}", "", true),
        OperatorCase("a\u{1F600}b", .contains, "\u{1F600}b", "cd", true),
        OperatorCase("a\u{1F600}b", .endsWith, "\u{1F600}", "c", false),
        OperatorCase("x\u{10400}y", .contains, "\u{10428}", "c", true),
        OperatorCase("x\u{10400}y", .contains, "\u{10428}", "", false),
        OperatorCase("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", .contains, "\u{1F469}", "", true),
        OperatorCase("abc", .in, "xabcx", "", true),
        OperatorCase("ABC", .in, "xabcx", "c", true),
        OperatorCase("abc", .in, "xabx", "cd", false),
        // An empty needle is never found, even in an empty haystack, under any options.
        OperatorCase("", .contains, "", "", false),
        OperatorCase("", .contains, "", "cd", false),
        OperatorCase("abc", .beginsWith, "", "c", false),
        OperatorCase("abc", .endsWith, "", "n", false),
        OperatorCase("", .in, "abc", "d", false),
        OperatorCase("", .beginsWith, "a", "c", false),
        OperatorCase("a", .beginsWith, "ab", "", false),
    ]

    @Test(arguments: equalityCases) func equality(_ testCase: OperatorCase) { testCase.check() }
    @Test(arguments: foundationFoldingCases) func followsFoundationFolding(_ testCase: OperatorCase) {
        testCase.check()
    }
    @Test(arguments: orderingCases) func ordering(_ testCase: OperatorCase) { testCase.check() }
    @Test(arguments: substringsCases) func substrings(_ testCase: OperatorCase) { testCase.check() }

    /// Strings ordered from their first differing UTF-8 byte (when it is ASCII) agree with the
    /// definition, UTF-16 units after canonical decomposition, on pairs that share a prefix and
    /// then differ by ASCII, precomposed and decomposed letters, combining marks of different
    /// classes, singletons (Å), Hangul and astral characters.
    @Test func orderingAgreesWithDecompositionOnGeneratedPairs() throws {
        let pieces = [
            "", "a", "e", "f", "E", " ", "~", "\u{E9}", "e\u{301}", "\u{301}", "\u{316}", "\u{327}", "\u{C5}",
            "A\u{30A}", "\u{212B}", "\u{1F600}", "\u{E000}", "\u{AC00}", "\u{1100}\u{1161}", "\u{1E0B}\u{323}",
            "\u{345}",
        ]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        func text(_ count: Int) -> String { (0..<count).map { _ in pieces[next(pieces.count)] }.joined() }
        for _ in 0..<20_000 {
            let prefix = text(next(3))
            let lhs = prefix + text(next(4))
            let rhs = prefix + text(next(4))
            let left = Array(lhs.decomposedStringWithCanonicalMapping.utf16)
            let right = Array(rhs.decomposedStringWithCanonicalMapping.utf16)
            let expected: Ordering =
                left == right ? .same : left.lexicographicallyPrecedes(right) ? .ascending : .descending
            let ordered = try ValueComparison.compare(.string(lhs), .string(rhs))
            #expect(ordered == expected, "\(lhs.unicodeScalars.map(\.value)) vs \(rhs.unicodeScalars.map(\.value))")
        }
    }

    /// The folded form is what comparisons see.
    @Test(arguments: [
        ("Stra\u{DF}e", "cd", "strasse"),
        ("NA\u{CF}VE", "cd", "naive"),
        ("NA\u{CF}VE", "c", "nai\u{308}ve"),
        ("NA\u{CF}VE", "d", "NAIVE"),
        ("NA\u{CF}VE", "n", "NA\u{CF}VE"),
        ("NA\u{CF}VE", "", "NA\u{CF}VE"),
        ("\u{FF21}\u{FF42}", "c", "ab"),
    ])
    func folded(_ text: String, _ letters: String, _ expected: String) {
        #expect(
            StringOperators.folded(text, options: options(letters)).unicodeScalars.elementsEqual(
                expected.unicodeScalars))
    }
}
