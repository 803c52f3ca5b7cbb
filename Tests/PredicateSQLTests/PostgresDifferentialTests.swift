import PredicatePostgres
import PredicateSQL
import PredicateSyntax
import PredicateValue
import Testing

@Suite(
    "PostgreSQL differential",
    .enabled(
        if: PostgresServer.isConfigured, "set PREDICATE_POSTGRES to a libpq connection string (scripts/with-postgres)"))
struct PostgresDifferentialTests {
    @Test("5,000 generated rules select through PostgreSQL plus the re-check exactly the rows the interpreter selects")
    func generatedRules() throws {
        let connection = try PostgresServer.connect(schema: "differential")
        defer { PostgresServer.drop("differential", on: connection) }
        let store = PostgresItemStore(mapping: TestMapping.mapping, connection: connection)
        try store.createTables(indexes: ["bytes"])
        // The same items as the SQLite test, less the text PostgreSQL cannot hold (none here).
        let items = SQLiteDifferentialTests.items()
        try store.insert(contentsOf: items.map { StoredItem(id: $0.0, item: $0.1) })
        var random = SplitMix64(state: SQLiteDifferentialTests.ruleSeed)
        var exactComparisons = 0
        var comparisons = 0
        for _ in 0..<SQLiteDifferentialTests.ruleCount {
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
        }
        // PostgreSQL decides numbers, dates, literal string equality and substrings, nil tests,
        // counts and quantifiers; folded and ordered strings, LIKE and MATCHES are re-checked.
        #expect(exactComparisons * 100 > comparisons * 25, "\(exactComparisons) of \(comparisons) comparisons exact")
    }
}
