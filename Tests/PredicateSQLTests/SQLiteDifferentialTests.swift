import PredicateInterpreter
import PredicateSQL
import PredicateSQLite
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// What the interpreter says about one item, the reference every database path must reproduce:
/// an error with its kind, message and place in the rule, so that a row the re-check raises on is
/// reported exactly as the interpreter reports the whole rule on that item.
enum Verdict: Hashable, CustomStringConvertible {
    case match, noMatch
    case error(EvaluationError.Kind, message: String, range: SourceRange?)

    init(_ error: EvaluationError) { self = .error(error.kind, message: error.message, range: error.range) }

    var description: String {
        switch self {
        case .match: return "true"
        case .noMatch: return "false"
        case .error(let kind, let message, let range):
            return "error(\(kind.rawValue) at \(range.map(String.init(describing:)) ?? "-"): \(message))"
        }
    }
}

enum Reference {
    /// One interpreter for every evaluation, so that its pattern cache is shared.
    static let interpreter = Interpreter()

    static func verdicts(_ rule: PredicateNode, _ items: [(Int64, [String: Value])]) -> [Int64: Verdict] {
        var result: [Int64: Verdict] = [:]
        for (id, item) in items {
            do {
                result[id] = try interpreter.evaluate(rule, on: .dictionary(item)) ? .match : .noMatch
            } catch {
                result[id] = Verdict(error)
            }
        }
        return result
    }

    /// The verdicts a query result implies: kept items match, reported rows raised.
    static func verdicts(_ result: QueryResult, ids: [Int64]) -> [Int64: Verdict] {
        var verdicts = Dictionary(uniqueKeysWithValues: ids.map { ($0, Verdict.noMatch) })
        for item in result.items { verdicts[item.id] = .match }
        for error in result.errors { verdicts[error.id] = Verdict(error.error) }
        return verdicts
    }

    /// The first disagreement, described for the failure message.
    static func disagreement(
        _ rule: PredicateNode, _ expected: [Int64: Verdict], _ actual: [Int64: Verdict], _ translation: SQLTranslation
    ) -> String? {
        for id in expected.keys.sorted() where expected[id] != actual[id] {
            return
                "rule \(rule.format) on item \(id): interpreter \(expected[id].map(String.init(describing:)) ?? "-"), "
                + "database \(actual[id].map(String.init(describing:)) ?? "-"); SQL \(translation.sql) "
                + "\(translation.parameters), residual \(translation.residual.map(\.format) ?? "none")"
        }
        return nil
    }
}

@Suite("SQLite differential")
struct SQLiteDifferentialTests {
    static let itemCount = 50
    static let ruleCount = 5_000

    /// `SQL_DIFFERENTIAL_SEED` draws other items and rules (for exploring; CI uses the defaults).
    static let seed: UInt64? = PostgresServer.environment("SQL_DIFFERENTIAL_SEED").flatMap { UInt64($0) }
    static var ruleSeed: UInt64 { seed ?? 2026 }

    static func items() -> [(Int64, [String: Value])] {
        var random = SplitMix64(state: seed.map { $0 &* 0x9E37_79B9 } ?? 19)
        return (0..<itemCount).map { (Int64($0 + 1), Generators.item(&random)) }
    }

    @Test("5,000 generated rules select through SQLite exactly the rows the interpreter selects")
    func generatedRules() throws {
        let items = Self.items()
        let store = try SQLiteItemStore(mapping: TestMapping.mapping, indexes: ["bytes", "name"])
        for (id, item) in items { try store.insert(id: id, item) }
        var random = SplitMix64(state: Self.ruleSeed)
        var exactComparisons = 0
        var comparisons = 0
        for _ in 0..<Self.ruleCount {
            let rule = Generators.rule(&random)
            let result = try store.query(rule)
            comparisons += result.translation.comparisons.count
            exactComparisons += result.translation.comparisons.filter(\.isExact).count
            let expected = Reference.verdicts(rule, items)
            let actual = Reference.verdicts(result, ids: items.map(\.0))
            if let problem = Reference.disagreement(rule, expected, actual, result.translation) {
                Issue.record(Comment(rawValue: problem))
                return
            }
            // An exact clause must keep nothing the interpreter rejects: nothing is re-checked.
            if result.translation.isExact {
                #expect(result.rowsFetched == result.items.count)
            }
        }
        // Most generated comparisons push down exactly on SQLite (the rest have operands of kinds
        // the interpreter rejects); a regression that sent everything to the residual would
        // still agree with the interpreter, so count them.
        #expect(exactComparisons * 100 > comparisons * 45, "\(exactComparisons) of \(comparisons) comparisons exact")
    }
}
