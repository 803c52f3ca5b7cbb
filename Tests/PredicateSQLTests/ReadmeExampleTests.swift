import Foundation
import PredicatePostgres
import PredicateSQL
import PredicateSQLite
import PredicateSyntax
import PredicateValue
import Testing

/// The README's SQL examples are the bodies below, copied verbatim (between the `README` marker
/// comments, without their indentation): the first test fails when the two drift apart, and the
/// others run the code.
@Suite("README SQL examples")
struct ReadmeExampleTests {
    @Test func readmeShowsTheseExamples() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let examples = Self.marked(source)
        #expect(examples.count == 2)
        for example in examples {
            #expect(readme.contains("```swift\n" + example + "```\n"), "README lacks:\n\(example)")
        }
    }

    @Test func embeddedStore() throws {
        // README embedded begin
        let mapping = TableMapping(table: "items", columnTypes: ["filename": .text, "documentSize": .integer])
        let store = try SQLiteItemStore(mapping: mapping, indexes: ["documentSize"])
        try store.insert(id: 1, ["filename": .string("a.PDF"), "documentSize": .int(5_000_000)])
        let rule = try PredicateParser.parsePredicate("documentSize > 1e6 AND filename ENDSWITH[c] '.pdf'").predicate
        print(try store.query(rule).items.map(\.id))  // [1]: decided inside SQLite, nothing re-checked
        print(try store.queryPlan(rule))  // ["SEARCH items USING INDEX items_documentSize (documentSize>?)"]
        // README embedded end
        #expect(try store.query(rule).items.map(\.id) == [1])
        #expect(try store.query(rule).translation.isExact)
        #expect(try store.queryPlan(rule) == ["SEARCH items USING INDEX items_documentSize (documentSize>?)"])
        if let connectionString = PostgresServer.connectionString {
            try postgres(mapping, rule, connectionString)
        }
    }

    private func postgres(
        _ mapping: TableMapping, _ rule: PredicateSyntax.PredicateNode, _ connectionString: String
    ) throws {
        let schemaConnection = try PostgresServer.connect(schema: "readme")
        defer { PostgresServer.drop("readme", on: schemaConnection) }
        let connectionString = connectionString + " options='-c search_path=readme'"
        // README postgres begin
        let connection = try PostgresConnection(connectionString)  // "host=/run/postgresql dbname=sync"
        let items = PostgresItemStore(mapping: mapping, connection: connection)
        try items.createTables(indexes: ["documentSize"])
        try items.insert(id: 1, ["filename": .string("a.PDF"), "documentSize": .int(5_000_000)])
        let result = try items.query(rule)  // the server filters; the residual is re-checked here
        print(result.items.map(\.id), result.translation.sql, result.translation.parameters)
        print(result.translation.residual?.format ?? "exact")  // filename ENDSWITH[c] ".pdf"
        // README postgres end
        #expect(result.items.map(\.id) == [1])
        #expect(result.translation.residual?.format == #"filename ENDSWITH[c] ".pdf""#)
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The text between each `// README … begin` and `// README … end` pair, de-indented.
    static func marked(_ source: String) -> [String] {
        var examples: [String] = []
        var current: [Substring]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("// README "), trimmed.hasSuffix(" begin") {
                current = []
            } else if trimmed.hasPrefix("// README "), trimmed.hasSuffix(" end"), let lines = current {
                examples.append(lines.map { $0.dropFirst(8) + "\n" }.joined())
                current = nil
            } else {
                current?.append(line)
            }
        }
        return examples
    }
}
