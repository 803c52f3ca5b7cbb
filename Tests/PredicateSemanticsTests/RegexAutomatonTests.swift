import PredicateSemantics
import PredicateSyntax
import Testing

/// `MATCHES` on the automaton: which patterns it runs, and its answers (whole-string matches).
@Suite struct RegexAutomatonTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let pattern: String
        let subject: String
        let options: ComparisonOptions
        let automaton: Bool
        let expected: Bool
        var testDescription: String { "'\(subject)' MATCHES '\(pattern)'" }
        init(_ pattern: String, _ subject: String, _ automaton: Bool, _ expected: Bool, options: ComparisonOptions = [])
        {
            (self.pattern, self.subject, self.options, self.automaton, self.expected) =
                (pattern, subject, options, automaton, expected)
        }
    }

    static let cases: [Case] = [
        Case("abc", "abc", true, true),
        Case("a.c", "xabc", true, false),
        Case("a.c", "a\nc", true, true),
        Case("a|ab", "ab", true, true),
        Case("(a+)+$", String(repeating: "a", count: 40) + "!", true, false),
        Case("(a+)+$", String(repeating: "a", count: 40), true, true),
        Case("^a*$", "aaa", true, true),
        Case("a$|b", "b", true, true),
        Case("\\d{3}-\\d{2,}", "123-45", true, true),
        Case("\\d{3}-\\d{2,}", "123-4", true, false),
        Case("[a-c]+[^a-c]", "abcd", true, true),
        Case("[^a-c]", "é", true, true),
        Case(".", "𝒜", true, true),
        Case("..", "𝒜", true, false),
        Case("\\w+\\s\\S", "ab_9 x", true, true),
        Case("x{2,3}?", "xxx", true, true),
        Case("x{2}", "xxx", true, false),
        Case("(?:ab)*c", "ababc", true, true),
        Case("(?i)abc", "ABC", true, true),
        Case("ABC", "abc", true, true, options: .caseInsensitive),
        Case("[a-z]+", "ABC", true, true, options: .caseInsensitive),
        Case("\\.\\*", ".*", true, true),
        Case("a[-x]b", "a-b", true, true),
        Case("()*a", "a", false, true),
        Case("(a)\\1", "aa", false, true),
        Case("a(?=b)b", "ab", false, true),
        Case("a++", "aa", false, true),
        Case("(?>a)", "a", false, true),
        Case("\\bab", "ab", false, true),
        Case("\\p{L}", "é", false, true),
        Case("[[a]b]", "b", false, true),
        Case("a^b", "ab", false, false),
        Case("(?i)é", "É", false, true),
        Case("(?s)a", "a", false, true),
        Case(".", "\r\n", true, true),
        Case("\\w", "é", true, true),
        Case("(?i)k", "\u{212A}", true, true),
    ]

    @Test(arguments: cases)
    func matches(_ testCase: Case) throws {
        let matcher = try RegularExpressionMatcher(testCase.pattern, options: testCase.options)
        #expect(matcher.usesAutomaton == testCase.automaton)
        #expect(try matcher.matches(testCase.subject, limits: EvaluationLimits()) == testCase.expected)
    }
}
