import Foundation
import PredicateSemantics
import PredicateSyntax
import Testing

@Suite struct LikePatternTests {
    /// Patterns are written as LIKE receives them (after string-literal escapes).
    static let likeCases: [OperatorCase] = [
        // Wildcards, escapes, literal metacharacters.
        OperatorCase("a*c", .like, #"a\*c"#, "", true),
        OperatorCase("abc", .like, #"a\*c"#, "", false),
        OperatorCase("a?c", .like, #"a\?c"#, "", true),
        OperatorCase("abc", .like, #"a\?c"#, "", false),
        OperatorCase(#"a\c"#, .like, #"a\\c"#, "", true),
        OperatorCase("abc", .like, #"\a\b\c"#, "", true),
        OperatorCase("a.c", .like, "a.c", "", true),
        OperatorCase("abc", .like, "a.c", "", false),
        OperatorCase("a+c", .like, "a+c", "", true),
        OperatorCase("aac", .like, "a+c", "", false),
        OperatorCase("(x)[y]{1}^$|", .like, "(x)[y]{1}^$|", "", true),
        OperatorCase("x", .like, "[x]", "", false),
        OperatorCase("line1\nline2", .like, "line1*line2", "", true),
        OperatorCase("a\nb", .like, "a?b", "", true),
        OperatorCase("", .like, "*", "", true),
        OperatorCase("", .like, "**", "", true),
        OperatorCase("", .like, "?", "", false),
        OperatorCase("abc", .like, "", "", false),
        OperatorCase("abc", .like, "a**c", "", true),
        OperatorCase("abc", .like, "*b*", "", true),
        OperatorCase("abc", .like, "*c", "", true),
        OperatorCase("abc", .like, "*b", "", false),
        OperatorCase("mississippi", .like, "*sip*", "", true),
        OperatorCase("mississippi", .like, "m*iss*ppi", "", true),
        OperatorCase("mississippi", .like, "m*iss*ppx", "", false),
        // Options: folding as for ==, NFKC unless n.
        OperatorCase("NeXT", .like, "next", "c", true),
        OperatorCase("NeXT", .like, "next", "", false),
        OperatorCase("NeXT", .like, "next", "cn", false),  // n: no folding at all
        OperatorCase("na\u{EF}ve", .like, "naive", "d", true),
        OperatorCase("na\u{EF}ve", .like, "naive", "", false),
        OperatorCase("NA\u{CF}VE", .like, "na?ve", "cd", true),
        OperatorCase("na\u{EF}ve", .like, "na?ve", "", true),  // ï is one scalar
        OperatorCase("nai\u{308}ve", .like, "na?ve", "", true),  // NFKC composes it
        OperatorCase("nai\u{308}ve", .like, "na?ve", "n", false),  // n: two scalars
        OperatorCase("NA\u{CF}VE", .like, "na?ve", "c", true),  // folded, then recomposed
        OperatorCase("na\u{EF}ve", .like, "NA\u{CF}VE", "cn", false),
        OperatorCase("\u{FB01}le", .like, "file", "", true),  // ligature, NFKC
        OperatorCase("\u{FB01}le", .like, "file", "n", false),
        OperatorCase("\u{FF21}\u{FF22}\u{FF23}", .like, "ABC", "", true),  // full-width, NFKC
        OperatorCase("\u{FF21}\u{FF22}\u{FF23}", .like, "abc", "c", true),
        OperatorCase("\u{FF21}\u{FF22}\u{FF23}", .like, "ABC", "n", false),
        OperatorCase("Stra\u{DF}e", .like, "STRASSE", "c", true),
        OperatorCase("Stra\u{DF}e", .like, "stra?e", "c", false),  // ß folds to two characters
        OperatorCase("\u{304C}", .like, "\u{304B}", "d", false),  // Foundation keeps the kana mark
        // CJK, emoji, surrogate pairs: ? is one scalar.
        OperatorCase("\u{6F22}\u{5B57}\u{30C6}\u{30B9}\u{30C8}", .like, "\u{6F22}*\u{30C8}", "", true),
        OperatorCase("\u{6F22}\u{5B57}", .like, "??", "cd", true),
        OperatorCase("\u{1F600}", .like, "?", "", true),
        OperatorCase("\u{1F600}\u{1F600}", .like, "??", "", true),
        OperatorCase("\u{1F600}\u{1F600}", .like, "?", "", false),
        OperatorCase("\u{1F44D}\u{1F3FD}", .like, "?", "", false),  // two scalars
        OperatorCase("\u{1F44D}\u{1F3FD}", .like, "??", "", true),
        OperatorCase("x\u{10400}y", .like, "*\u{10428}*", "c", true),
        OperatorCase("x\u{10400}y", .like, "x?y", "", true),
    ]

    @Test(arguments: likeCases) func like(_ testCase: OperatorCase) { testCase.check() }

    @Test(arguments: [#"ab\"#, #"\"#, #"a*\"#, #"\\\"#])
    func trailingBackslashIsAnError(_ pattern: String) {
        #expect(throws: EvaluationError.self) { try LikePattern(pattern, options: []) }
        do {
            _ = try LikePattern(pattern, options: [.caseInsensitive])
            Issue.record("\(pattern) compiled")
        } catch {
            #expect(error.kind == .invalidPattern)
            #expect(error.message.contains(pattern))
        }
    }

    /// Sizes at which exponential backtracking would never finish; each must answer at once.
    @Test(arguments: [
        ("*a*a*a*a*a*b", false),
        ("*a*a*a*a*a*", true),
        ("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", false),
        ("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a?", true),
        ("*aaaaaaaaaaaaaaaaaaaab", false),
        ("*?*?*?*?*?*?*?*?*?*?*b", false),
    ])
    func hostilePatternsFinish(_ pattern: String, _ expected: Bool) throws {
        let subject = String(repeating: "a", count: 100_000)
        #expect(try LikePattern(pattern, options: []).matches(subject) == expected)
        #expect(try LikePattern(pattern, options: [.caseInsensitive]).matches(subject.uppercased()) == expected)
        // The same shapes on non-ASCII text, which takes the folding path.
        let accented = String(repeating: "\u{E9}", count: 20_000)
        let accentedPattern = pattern.replacingOccurrences(of: "a", with: "\u{E9}")
        #expect(try LikePattern(accentedPattern, options: [.caseInsensitive]).matches(accented) == expected)
        #expect(try LikePattern(accentedPattern, options: [.diacriticInsensitive]).matches(accented) == expected)
    }

    @Test func longPatternOfStars() throws {
        let pattern = String(repeating: "*a", count: 2_000) + "*"
        #expect(try LikePattern(pattern, options: []).matches(String(repeating: "ab", count: 5_000)))
        #expect(try !LikePattern(pattern, options: []).matches(String(repeating: "ab", count: 1_999)))
    }
}

@Suite struct RegularExpressionTests {
    static let matchCases: [OperatorCase] = [
        OperatorCase("abc", .matches, "a.c", "", true),
        OperatorCase("xabc", .matches, "a.c", "", false),
        OperatorCase("abcx", .matches, "a.c", "", false),
        OperatorCase("ab", .matches, "a|ab", "", true),  // whole-string match, as uregex_matches
        OperatorCase("ab", .matches, "(a|ab)(c|bcd)?", "", true),
        OperatorCase("a\nc", .matches, "a.c", "", true),  // dot matches line separators
        OperatorCase("a\nb", .matches, "a$.b", "", true),  // $ matches at line ends
        OperatorCase("a\nb", .matches, "^b", "", false),  // but the match must cover everything
        OperatorCase("a\nb", .matches, "a", "", false),
        OperatorCase("a\n", .matches, "a$", "", false),
        OperatorCase("a\n", .matches, "a$\n", "", true),
        OperatorCase("x", .matches, "(?x) x # a comment", "", true),  // cannot be wrapped: range check
        OperatorCase("xy", .matches, "(?x) x # a comment", "", false),
        OperatorCase("a(b", .matches, #"\Qa(b"#, "", true),
        OperatorCase("a(bc", .matches, #"\Qa(b"#, "", false),
        // Options.
        OperatorCase("ABC", .matches, "abc", "c", true),
        OperatorCase("ABC", .matches, "abc", "", false),
        OperatorCase("ABC", .matches, "abc", "cn", false),  // n: no folding, c ignored
        OperatorCase("ab", .matches, #"\D+"#, "c", true),  // escapes keep their meaning under [c]
        OperatorCase("12", .matches, #"\D+"#, "c", false),
        OperatorCase("Stra\u{DF}e", .matches, "STRASSE", "c", true),
        OperatorCase("na\u{EF}ve", .matches, "naive", "d", true),
        OperatorCase("na\u{EF}ve", .matches, "na.ve", "d", true),
        OperatorCase("naive", .matches, "na\u{EF}ve", "d", true),  // diacritics leave the pattern too
        OperatorCase("na\u{EF}ve", .matches, "naive", "", false),
        OperatorCase("na\u{EF}ve", .matches, "naive", "dn", false),
        OperatorCase("NA\u{CF}VE", .matches, "na[i]ve", "cd", true),
        OperatorCase("\u{E9}", .matches, "e\u{301}", "", true),  // NFKC on both sides
        OperatorCase("\u{E9}", .matches, "e\u{301}", "n", false),
        OperatorCase("\u{FB01}", .matches, "fi", "", true),
        OperatorCase("\u{FF21}\u{FF22}", .matches, "AB", "", true),
        OperatorCase("a(b)", .matches, "a\u{FF08}b\u{FF09}", "", false),  // NFKC: （b） is a group
        OperatorCase("x", .matches, "\u{FF08}|x", "", true),  // NFKC "(|x" fails: NFC is used
        OperatorCase("x", .matches, "\u{FF08}|x", "n", true),
        // UTF-16 ranges: surrogate pairs and combining marks.
        OperatorCase("\u{1F600}x", .matches, ".x", "", true),
        OperatorCase("\u{1F600}\u{1F600}", .matches, "\u{1F600}+", "", true),
        OperatorCase("\u{1F600}\u{1F600}", .matches, "\u{1F600}", "", false),
        OperatorCase("\u{6F22}\u{5B57}", .matches, "\\p{Han}{2}", "", true),
        OperatorCase("x\u{10400}", .matches, "x\u{10428}", "c", true),
    ]

    @Test(arguments: matchCases) func matches(_ testCase: OperatorCase) { testCase.check() }

    @Test(arguments: ["(", "[", "a)(b", "*a", "a{2,1}", "(?<name", #"\"#, #"\p{NotAProperty}"#])
    func invalidPatternIsAnError(_ pattern: String) {
        do {
            _ = try RegularExpressionMatcher(pattern, options: [])
            Issue.record("'\(pattern)' compiled")
        } catch {
            #expect(error.kind == .invalidPattern)
            #expect(error.message.contains("'\(pattern)'"))
        }
    }

    @Test func emptyPatternMatchesNothing() throws {
        let matcher = try RegularExpressionMatcher("", options: [.caseInsensitive])
        #expect(!matcher.matches(""))
        #expect(!matcher.matches("a"))
    }
}
