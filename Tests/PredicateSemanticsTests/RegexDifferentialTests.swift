import Foundation
import PredicateSemantics
import PredicateSyntax
import Testing

/// The automaton against `NSRegularExpression` on generated patterns and subjects: every answer
/// must be ICU's whole-string match (`(?:p)\z`, anchored, with `MATCHES`'s flags). Seeded, so a
/// failure is reproduced by its seed.
@Suite struct RegexDifferentialTests {
    static let cases = 3_000

    @Test func automatonAgreesWithICU() throws {
        var random = Generator(seed: 0x5EED_0014)
        var decided = 0
        for index in 0..<Self.cases {
            let pattern = random.pattern()
            let flags: NSRegularExpression.Options = [.dotMatchesLineSeparators, .anchorsMatchLines]
            guard let reference = try? NSRegularExpression(pattern: "(?:" + pattern + ")\\z", options: flags),
                let matcher = try? RegularExpressionMatcher(pattern, options: .normalized)
            else { continue }
            if matcher.usesAutomaton { decided += 1 }
            for _ in 0..<8 {
                let subject = random.subject()
                let whole = NSRange(location: 0, length: subject.utf16.count)
                let expected = reference.firstMatch(in: subject, options: [.anchored], range: whole) != nil
                let actual = matcher.matches(subject)
                #expect(
                    actual == expected,
                    "case \(index): '\(subject.debugDescription)' MATCHES '\(pattern)': \(actual), ICU \(expected)")
            }
        }
        // Most generated patterns are in the automaton's syntax, so it is what is tested.
        #expect(decided > Self.cases / 2)
    }

    /// Patterns and subjects over a small alphabet, so that they often match.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
        }

        mutating func pick(_ choices: [String]) -> String { choices[next(choices.count)] }

        static let atoms = [
            "a", "b", "A", "-", ".", "\\.", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[ab]", "[^a]", "[a-c]",
            "[A-Z]", "[\\d_]", "[^\\s]", "\\n", "é", "𝒜", "[-a]", "[a-]", "\\t", "[à-ÿ]", "[^é]", "[é-𝒜]",
            "[a-zü]",
        ]
        static let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "+?", "??", "{1,3}?"]
        /// Inside groups: quantifiers that never match empty, since ICU takes exponential time on
        /// loops over loops that may (and the automaton leaves those to ICU anyway).
        static let innerQuantifiers = ["", "", "", "+", "{2}", "{1,2}", "+?", "{1,3}?"]
        static let letters = [
            "a", "b", "A", "B", "1", " ", "-", "\n", "\r", "é", "𝒜", "_", "\t", "\u{0B}", ".", "ü", "ā", "ÿ",
        ]

        mutating func pattern() -> String {
            var text = next(6) == 0 ? "(?i)" : ""
            if next(5) == 0 { text += "^" }
            text += alternation(depth: 0)
            if next(5) == 0 { text += "$" }
            return text
        }

        mutating func alternation(depth: Int) -> String {
            var branches = [sequence(depth: depth)]
            while next(4) == 0 { branches.append(sequence(depth: depth)) }
            return branches.joined(separator: "|")
        }

        mutating func sequence(depth: Int) -> String {
            var text = ""
            for _ in 0..<(1 + next(3)) {
                let atom: String
                if depth < 2 && next(4) == 0 {
                    atom = pick(["(", "(?:"]) + alternation(depth: depth + 1) + ")"
                } else {
                    atom = pick(Self.atoms)
                }
                text += atom + pick(depth == 0 ? Self.quantifiers : Self.innerQuantifiers)
            }
            return text
        }

        mutating func subject() -> String {
            (0..<next(7)).map { _ in pick(Self.letters) }.joined()
        }
    }
}
