import PredicateSyntax
import Testing

@testable import PredicateSemantics

/// `LIKE` patterns without `?` are matched run by run (``LikeSegments``), often from one end of
/// the name alone: the answers must be the backtracking matcher's, and the steps those of the
/// runs matched on the whole prepared text, however the text was reached.
@Suite struct LikeSegmentsTests {
    static let patterns = [
        "*.pdf", "*.PDF", "img_*", "IMG_*", "*sume*", "report", "r*t", "*", "**", "a*", "*a", "*a*",
        "m*iss*ppi", "*iss*iss*", "*ss*ss*ss*", "na*ve", "*\u{E9}*", "r\u{E9}sum\u{E9}*", "*\u{E9}.pdf",
        "*file*", "*\u{FB01}le", "*ABC", "*.p*f", "\u{6F22}*\u{30C8}", "*\u{1F600}", "e*", "*e",
        "*\u{10428}*", "stra*e", "*\\*", "a\\**",
    ]

    static let subjects = [
        "", "a", "e", ".pdf", "notes 7.pdf", "NOTES 7.PDF", "img_0001.jpg", "IMG_0001.JPG", "report", "Report",
        "resume.pdf", "r\u{E9}sum\u{E9}.pdf", "R\u{C9}SUM\u{C9}.PDF", "re\u{301}sume\u{301}.pdf",
        "mississippi", "na\u{EF}ve", "nai\u{308}ve", "\u{FB01}le", "pro\u{FB01}le", "\u{FF21}\u{FF22}\u{FF23}",
        "x\u{FF21}\u{FF22}\u{FF23}", "Stra\u{DF}e", "stra\u{DF}e", "\u{6F22}\u{5B57}\u{30C6}\u{30B9}\u{30C8}",
        "smile \u{1F600}", "x\u{10400}y", "img_\u{E9}t\u{E9}.png", "img_e\u{301}te.png", "e\u{301}", "\u{E9}",
        ".pdf\u{301}", "caf\u{E9} .pdf", "a*", "a*b", "\u{212A}elvin.pdf", "file.\u{FF50}\u{FF44}\u{FF46}",
    ]

    static let options: [ComparisonOptions] = [
        [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive], [.normalized],
        [.caseInsensitive, .normalized],
    ]

    @Test(arguments: options)
    func runsAnswerAsBacktrackingDoes(_ options: ComparisonOptions) throws {
        for pattern in Self.patterns {
            let compiled = try LikePattern(pattern, options: options)
            for subject in Self.subjects {
                var budget = Int.max
                var reference = Int.max
                let answer = compiled.matches(subject, budget: &budget)
                let expected = compiled.matchesByBacktracking(subject, budget: &reference)
                #expect(answer == expected, "\(subject.debugDescription) LIKE \(pattern.debugDescription) \(options)")
            }
        }
    }

    /// The decisive end spends what the whole text spends, so every engine (and every path of
    /// one) charges a match the same.
    @Test(arguments: options)
    func stepsAreThoseOfTheWholeText(_ options: ComparisonOptions) throws {
        for pattern in Self.patterns {
            let compiled = try LikePattern(pattern, options: options)
            for subject in Self.subjects + Self.subjects.map({ "\u{E9}l\u{E8}ve " + $0 }) {
                var budget = 1_000
                var whole = 1_000
                let answer = compiled.matches(subject, budget: &budget)
                let expected = compiled.matchesWholeText(subject, budget: &whole)
                #expect(answer == expected && budget == whole, "\(subject.debugDescription) LIKE \(pattern) \(options)")
            }
        }
    }

    /// `*.pdf` reads the last four scalars, however long the name and whatever comes before;
    /// one step for the match and one for each scalar compared.
    @Test(arguments: [
        ("*.pdf", "notes.pdf", 5, true),
        ("*.pdf", String(repeating: "x", count: 10_000) + ".pdf", 5, true),
        ("*.pdf", String(repeating: "\u{E9}", count: 10_000) + ".pdf", 5, true),
        ("*.pdf", "notes.pdx", 5, false),
        ("*.pdf", "notes.txt", 3, false),
        ("img_*", "img_0001.jpg", 5, true),
        ("img_*", "\u{E9}mg_0001.jpg", 2, false),
        ("img_*", "R\u{E9}sum\u{E9}.jpg", 2, false),
        ("img_*", "im\u{E9}.jpg", 4, false),
        ("report", "report", 7, true),
        ("report", "reports", 7, false),
        ("*sume*", "resume", 1 + 1 + 1 + 4, true),
    ])
    func stepsOfOneMatch(_ pattern: String, _ subject: String, _ steps: Int, _ expected: Bool) throws {
        let compiled = try LikePattern(pattern, options: [.caseInsensitive])
        var budget = 100
        #expect(compiled.matches(subject, budget: &budget) == expected)
        #expect(100 - budget == steps)
        var tooFew = steps - 1
        #expect(compiled.matches(subject, budget: &tooFew) == nil)
    }

    /// A long inner run searched for in a long name is still work the steps bound: a pattern
    /// such as `*aaa…ab*` stops at the limit instead of comparing 64 million scalars.
    @Test func longInnerRunStopsAtTheLimit() throws {
        let pattern = try LikePattern("*" + String(repeating: "a", count: 16_000) + "b*", options: [])
        let name = String(repeating: "a", count: 20_000)
        #expect(throws: EvaluationError.self) { try pattern.matches(name, limits: EvaluationLimits()) }
        let found = String(repeating: "a", count: 16_000) + "b and the rest"
        #expect(try pattern.matches(found, limits: EvaluationLimits(maximumPatternSteps: 16_002)))
    }
}
