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
