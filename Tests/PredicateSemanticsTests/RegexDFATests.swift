import Testing

@testable import PredicateSemantics

/// The DFA an automaton gets over ASCII subjects must answer as the Pike VM does and charge the
/// same steps, at every budget.
@Suite struct RegexDFATests {
    static let patterns = [
        "abc", "a.c", "a|ab", "(a+)+$", "^a*$", "\\d{3}-\\d{2,}", "[a-c]+[^a-c]", "x{2,3}?", "(?:ab)*c", "(?i)abc",
        "[A-Za-z_]+ [0-9]+\\.txt", "(a|b)*abb", "\\w+\\s\\S", ".*x.*y", "[^x]*", "a{0,5}b{2}",
    ]
    static let subjects = [
        "", "a", "abc", "ABC", "xabc", "aaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "123-45", "abcd", "xxx", "ababc",
        "notes 12.txt", "Budget 2026.TXT", "abababb", "ab_9 x", "..x..y..", "aaabb", "a\nc", "tab\there",
    ]

    @Test(arguments: patterns)
    func dfaChargesWhatThePikeMachineCharges(_ pattern: String) throws {
        let program = try #require(RegexParser.parse(pattern, caseInsensitive: false).flatMap(RegexProgram.init))
        let dfa = try #require(program.dfa)
        for subject in Self.subjects {
            for budget in [Int.max, 0, 1, 3, 7, 20, 60, 200] {
                var nfaBudget = budget
                let nfa = program.wholeMatch(Array(subject.unicodeScalars), budget: &nfaBudget)
                var dfaBudget = budget
                var bytes = subject
                let answer = bytes.withUTF8 { dfa.wholeMatch($0, budget: &dfaBudget) }
                #expect(answer == nfa, "'\(subject)' at budget \(budget)")
                #expect(dfaBudget == nfaBudget || (answer == nil && dfaBudget < 0), "'\(subject)' at budget \(budget)")
            }
        }
    }

    static let scalarPatterns = [
        "abc", "a.c", "[à-ÿ]+", "[^é]*x", "é|ab", "[a-zé]+ [0-9]+", "(?:ü|ā)*ÿ", "[é-𝒜]{2}", "[^a-z]+", ".*é.*",
        "[\u{100}-\u{10FFFF}]b",
    ]
    static let scalarSubjects = [
        "", "é", "ab", "abc", "àéÿ", "ÀÉ", "üāÿ", "ÿ", "xé", "éé", "𝒜𝒜", "é𝒜", "notes 12", "résumé 7", "āb", "写真x",
        "a\u{10FFFF}b", "\u{FFFF}b", "\u{E000}b",
    ]

    /// Beyond ASCII the DFA reads scalars by class of interval: it must answer and charge as the
    /// Pike VM, at every budget, and give up on a scalar that is not stable, spending nothing.
    @Test(arguments: scalarPatterns)
    func scalarDFAChargesWhatThePikeMachineCharges(_ pattern: String) throws {
        let program = try #require(RegexParser.parse(pattern, caseInsensitive: false).flatMap(RegexProgram.init))
        let dfa = try #require(program.dfa)
        #expect(dfa.decidesNonASCII)
        for subject in Self.scalarSubjects + Self.subjects {
            for budget in [Int.max, 0, 1, 3, 7, 20, 60, 200] {
                var nfaBudget = budget
                let nfa = program.wholeMatch(Array(subject.unicodeScalars), budget: &nfaBudget)
                var dfaBudget = budget
                var bytes = subject
                let outcome = bytes.withUTF8 { dfa.wholeMatch(scalarsOf: $0, budget: &dfaBudget) { _ in true } }
                #expect(outcome == nfa.map { .decided($0) } ?? .ranOut, "'\(subject)' at budget \(budget)")
                #expect(dfaBudget == nfaBudget || (nfa == nil && dfaBudget < 0), "'\(subject)' at budget \(budget)")
                var untouched = budget
                let refused = bytes.withUTF8 {
                    dfa.wholeMatch(scalarsOf: $0, budget: &untouched) { $0 != UnicodeScalar("b").value }
                }
                if subject.unicodeScalars.contains("b") {
                    #expect(refused == .unstable && untouched == budget, "'\(subject)'")
                }
            }
        }
    }

    /// With NFKC on (no `[n]`), a subject whose scalars NFKC may change is prepared first: the
    /// answer is ICU's on the prepared text, never the DFA's on the text as given.
    @Test(arguments: [
        ("[a-z]+", "ﬁle", true), ("[a-z]+", "file", true), ("[^ﬁ]+", "ﬁ", false), ("é", "e\u{301}", true),
        ("e\u{301}", "é", true), ("[à-ÿ]+", "re\u{301}", false), ("[à-ÿ]x", "e\u{301}x", true), ("ｘ", "x", true),
        ("x", "ｘ", true), ("[é-𝒜]+", "résumé", false), ("[é-𝒜]+", "éüÿ", true),
    ])
    func unstableSubjectsArePreparedFirst(_ pattern: String, _ subject: String, _ expected: Bool) throws {
        let matcher = try RegularExpressionMatcher(pattern, options: [])
        #expect(matcher.usesAutomaton)
        #expect(matcher.matches(subject) == expected)
    }

    /// A pattern whose state sets over ASCII are too many keeps the NFA alone.
    @Test func tooManyStatesKeepTheNFA() throws {
        let program = try #require(
            RegexParser.parse("(a|b)*a(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)", caseInsensitive: false).flatMap(
                RegexProgram.init))
        #expect(program.dfa.map { _ in true } == nil)
        // Few state sets (start, after one letter, none) but over 512 instructions.
        let alternation = "(?:" + Array(repeating: "a", count: 300).joined(separator: "|") + ")"
        let long = try #require(RegexParser.parse(alternation, caseInsensitive: false).flatMap(RegexProgram.init))
        #expect(long.code.count > RegexDFA.maximumInstructions)
        #expect(long.dfa.map { _ in true } == nil, "an NFA past the instruction limit")
        var budget = Int.max
        #expect(program.wholeMatch(Array("bbbbabbbbb".unicodeScalars), budget: &budget) == false)
    }
}
