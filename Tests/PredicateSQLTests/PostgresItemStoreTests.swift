import PredicatePostgres
import PredicateSQL
import PredicateSyntax
import PredicateValue
import Testing

@Suite(
    "PostgreSQL item store",
    .enabled(
        if: PostgresServer.isConfigured, "set PREDICATE_POSTGRES to a libpq connection string (scripts/with-postgres)"))
struct PostgresItemStoreTests {
    static func rule(_ text: String) throws -> PredicateNode { try PredicateParser.parsePredicate(text).predicate }

    @Test func itemsReadBackAsStored() throws {
        let connection = try PostgresServer.connect(schema: "store_round_trip")
        defer { PostgresServer.drop("store_round_trip", on: connection) }
        let store = PostgresItemStore(mapping: TestMapping.mapping, connection: connection)
        try store.createTables(indexes: ["bytes"])
        try store.insert(id: 7, SQLiteItemStoreTests.sample)
        let all = try store.query(Self.rule("TRUEPREDICATE"))
        #expect(all.items.map(\.id) == [7])
        #expect(all.items.first.map { Value.dictionary($0.item) } == .dictionary(SQLiteItemStoreTests.sample))
    }

    /// A superset clause keeps more rows than match; the re-check drops them and reports errors.
    @Test func theResidualIsRechecked() throws {
        let connection = try PostgresServer.connect(schema: "store_recheck")
        defer { PostgresServer.drop("store_recheck", on: connection) }
        let store = PostgresItemStore(mapping: TestMapping.mapping, connection: connection)
        try store.createTables()
        try store.insert(id: 1, ["name": .string("STRASSE"), "bytes": .int(10)])
        try store.insert(id: 2, ["name": .string("straße"), "bytes": .int(20)])
        try store.insert(id: 3, ["name": .string("weg"), "bytes": .int(30)])
        try store.insert(id: 4, ["name": .string("Strasse"), "bytes": .int(1)])
        let result = try store.query(Self.rule("bytes > 5 AND name ==[c] 'strasse'"))
        #expect(result.translation.residual?.format == #"name ==[c] "strasse""#)
        #expect(result.rowsFetched == 3)
        #expect(result.items.map(\.id) == [1, 2])
        try store.insert(id: 5, ["userInfo": .dictionary(["rank": .string("high")])])
        let errors = try store.query(Self.rule("userInfo.rank > 1"))
        #expect(errors.errors.map(\.id) == [5])
    }

    @Test func insertUpdateDelete() throws {
        let connection = try PostgresServer.connect(schema: "store_changes")
        defer { PostgresServer.drop("store_changes", on: connection) }
        let store = PostgresItemStore(mapping: TestMapping.mapping, connection: connection)
        try store.createTables(indexes: ["bytes"])
        try store.insert(id: 1, SQLiteItemStoreTests.sample)
        try store.insert(id: 2, ["bytes": .int(10)])
        let big = try Self.rule("bytes > 1000")
        #expect(try store.query(big).items.map(\.id) == [1])
        try store.update(id: 2, ["bytes": .int(2_000)])
        #expect(try store.query(big).items.map(\.id) == [1, 2])
        try store.delete(id: 1)
        #expect(try store.query(big).items.map(\.id) == [2])
        #expect(try store.query(Self.rule("ANY tags.weight > 0")).items.isEmpty)
        // The index can serve the pushed-down clause (the planner prefers a scan of so few rows).
        try connection.execute("SET enable_seqscan TO off")
        #expect(try store.queryPlan(big).contains { $0.contains("Index") && $0.contains("items_bytes_idx") })
    }

    @Test func textWithNULIsRefused() throws {
        let connection = try PostgresServer.connect(schema: "store_nul")
        defer { PostgresServer.drop("store_nul", on: connection) }
        let store = PostgresItemStore(mapping: TestMapping.mapping, connection: connection)
        try store.createTables()
        #expect(throws: PostgresStoreError.self) { try store.insert(id: 1, ["name": .string("a\u{0}b")]) }
    }

    @Test func serverErrorsAreReported() throws {
        let connection = try PostgresServer.connect(schema: "store_errors")
        defer { PostgresServer.drop("store_errors", on: connection) }
        #expect(throws: PostgresError.self) { try connection.execute("SELECT * FROM no_such_table") }
        #expect(throws: PostgresError.self) { try PostgresConnection("host=/nonexistent-directory dbname=x") }
    }
}
