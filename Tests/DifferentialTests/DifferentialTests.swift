import Foundation
import PredicateSyntax
import PredicateValue
import Testing

/// Random rules on random objects through every engine: the interpreter, the VM, the VM on the
/// rule bound to the object's type and the interpreter on the bound rule must give the same
/// result, or the same error (kind, message and source range).
///
/// `DIFFERENTIAL_SEED` and `DIFFERENTIAL_CASES` override the seed and the number of cases;
/// `DIFFERENTIAL_CASE` runs the one case with that index (as printed in a failure), and
/// `DIFFERENTIAL_VERBOSE` prints every case as a conformance line.
@Suite struct DifferentialTests {
    static let defaultSeed: UInt64 = 0x5EED_2026
    static let defaultCases = 10_000
    /// Disagreements recorded as issues, at most, in all and per signature (the engines' kinds
    /// of answer); every one is counted.
    static let maximumReports = 12
    static let maximumReportsPerSignature = 3

    @Test func enginesAgreeOnRandomRules() {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? DifferentialTests.defaultSeed
        let count = environment["DIFFERENTIAL_CASES"].flatMap { Int($0) } ?? DifferentialTests.defaultCases
        let indices: Range<Int>
        if let only = environment["DIFFERENTIAL_CASE"].flatMap({ Int($0) }) {
            indices = only..<(only + 1)
        } else {
            indices = 0..<count
        }
        print("differential: DIFFERENTIAL_SEED=\(seed), \(indices.count) cases")
        let verbose = environment["DIFFERENTIAL_VERBOSE"] != nil

        let engines = Engines()
        var statistics = Statistics()
        var reported: Set<String> = []
        var signatures: [String: Int] = [:]
        let start = Date()
        for index in indices {
            let testCase = CaseGenerator.make(seed: SplitMix64.caseSeed(seed, index))
            guard let verdict = engines.verdict(testCase) else {
                statistics.unparseable += 1
                if statistics.unparseable <= 3 {
                    Issue.record(
                        "case \(index) (seed \(seed)): the printed rule does not parse: \(testCase.rule.format)")
                }
                continue
            }
            statistics.count(verdict, testCase)
            if verbose {
                print("case \(index): \(CaseText.line(testCase, expected: CaseText.expectation(verdict.reference)))")
            }
            guard !verdict.agrees else { continue }
            statistics.disagreements += 1
            var shrinker = Shrinker(engines: engines)
            let (small, smallVerdict) = shrinker.shrink(testCase, verdict)
            let line = CaseText.line(small, expected: CaseText.expectation(smallVerdict.reference))
            let signature = smallVerdict.outcomes.map(\.outcome.category).joined(separator: " | ")
            signatures[signature, default: 0] += 1
            guard signatures[signature, default: 0] <= DifferentialTests.maximumReportsPerSignature,
                reported.count < DifferentialTests.maximumReports, reported.insert(small.rule.format).inserted
            else { continue }
            var message = "engines disagree on case \(index) (DIFFERENTIAL_SEED=\(seed) DIFFERENTIAL_CASE=\(index))\n"
            message += "shrunk (expected: the interpreter's answer; check it against SPEC):\n  \(line)\n"
            for (engine, outcome) in smallVerdict.outcomes { message += "  \(engine): \(outcome)\n" }
            message += "original: \(CaseText.line(testCase, expected: CaseText.expectation(verdict.reference)))"
            Issue.record(Comment(rawValue: message))
        }
        let seconds = Date().timeIntervalSince(start)
        print(statistics.summary(seconds: seconds))
        for (signature, number) in signatures.sorted(by: { $0.value > $1.value }) {
            print("  disagreement \(signature): \(number)")
        }
        #expect(statistics.disagreements == 0)
        #expect(statistics.unparseable == 0)
    }
}

/// Builds the case with a given seed: a shape, an object and bindings of that shape, and a rule.
enum CaseGenerator {
    static func make(seed: UInt64) -> DifferentialCase {
        var rng = SplitMix64(seed: seed)
        let shape = [ObjectShape.plain, .fileProvider, .interaction, .item, .other][rng.weighted([38, 36, 10, 6, 10])]
        let calm = rng.chance(50)
        var objects = ObjectGenerator(rng: SplitMix64(seed: rng.next()))
        objects.calm = calm
        let object = objects.object(shape)
        let variables = objects.variables()
        var rules = RuleGenerator(rng: SplitMix64(seed: rng.next()), shape: shape)
        rules.calm = calm
        let depth = rng.weighted([2, 4, 5, 3, 1])
        let rule: Rule
        if rng.chance(12) {
            rules.allowsClock = false
            rule = .expression(rules.expression(rng.pick(Sort.allCases), depth))
        } else {
            rule = .predicate(rules.predicate(depth))
        }
        return DifferentialCase(rule: rule, object: object, variables: variables)
    }
}

/// The distribution of outcomes over a run.
struct Statistics {
    var outcomes: [String: Int] = [:]
    var shapes: [String: Int] = [:]
    var total = 0
    var disagreements = 0
    var unparseable = 0
    var ruleLength = 0
    var constructs: [String: Int] = [:]

    /// What the coverage line counts: the number of rules whose format string has each marker.
    static let markers: [(name: String, text: String)] = [
        ("SUBQUERY", "SUBQUERY("), ("TERNARY", "TERNARY("), ("CAST", "CAST("), ("FUNCTION", "FUNCTION("),
        (":=", ":="), ("ANY", "ANY "), ("ALL", "ALL "), ("NOT ANY", "NOT ANY "), ("BETWEEN", " BETWEEN "),
        ("IN", " IN "), ("CONTAINS", " CONTAINS"), ("BEGINSWITH", " BEGINSWITH"), ("ENDSWITH", " ENDSWITH"),
        ("LIKE", " LIKE"), ("MATCHES", " MATCHES"), ("UTI-CONFORMS-TO", " UTI-CONFORMS-TO"),
        ("UTI-EQUALS", " UTI-EQUALS"), ("TOKENMATCHES", " TOKENMATCHES"), ("$k", ".$k"), ("$it", "$it"),
        ("UNION", " UNION "), ("INTERSECTION", " INTERSECTION "), ("MINUS", " MINUS "), ("@sum", "@sum."),
        ("@avg", "@avg."), ("@min/@max", "@m"), ("@count", "@count"), ("**", " ** "), ("&", " & "), ("|", " | "),
        ("^", " ^ "), ("<<", " << "), (">>", " >> "), ("userInfo", "userInfo."), ("ANYKEY", "ANYKEY"),
        ("[FIRST]", "[FIRST]"), ("[LAST]", "[LAST]"), ("[SIZE]", "[SIZE]"), ("now()", "now()"),
        ("uploadded", "uploadded"), ("contentType UTI", "contentType UTI-"), ("AND", " AND "), ("OR", " OR "),
    ]

    mutating func count(_ verdict: Verdict, _ testCase: DifferentialCase) {
        total += 1
        outcomes[verdict.reference?.category ?? "none", default: 0] += 1
        ruleLength += verdict.source.count
        let text = verdict.source
        for (name, marker) in Statistics.markers where text.contains(marker) { constructs[name, default: 0] += 1 }
        if text.components(separatedBy: "SUBQUERY(").count > 2 { constructs["nested SUBQUERY", default: 0] += 1 }
        if testCase.rule.isExpression { constructs["expression", default: 0] += 1 }
        if text.range(of: #"(=|<|>|[NSHEO])\[[cdlnw]+\] "#, options: .regularExpression) != nil {
            constructs["options", default: 0] += 1
        }
        let shape: String
        switch testCase.object {
        case .dictionary(let entries) where entries["fileproviderItems"] != nil: shape = "activation"
        case .dictionary(let entries) where entries["action"] != nil: shape = "interaction"
        case .dictionary: shape = "plain"
        case .object: shape = "item"
        default: shape = "other"
        }
        shapes[shape, default: 0] += 1
    }

    func summary(seconds: Double) -> String {
        var lines = ["differential: \(total) cases in \(String(format: "%.1f", seconds)) s"]
        lines.append("  disagreements: \(disagreements), unparseable: \(unparseable)")
        lines.append("  mean rule length: \(total == 0 ? 0 : ruleLength / total) characters")
        for (category, number) in outcomes.sorted(by: { $0.value > $1.value }) {
            let share = total == 0 ? 0 : Double(number) * 100 / Double(total)
            lines.append("  \(category): \(number) (\(String(format: "%.1f", share))%)")
        }
        lines.append("  objects: " + Statistics.list(shapes))
        lines.append("  rules with: " + Statistics.list(constructs))
        return lines.joined(separator: "\n")
    }

    private static func list(_ counts: [String: Int]) -> String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
