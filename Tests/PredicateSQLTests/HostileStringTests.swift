import PredicateSQL
import PredicateSQLite
import PredicateSyntax
import PredicateValue
import Testing

/// Constants and arguments are bound, never spliced: whatever a string holds, the statement's
/// text is the one a harmless string gives, and the string reaches the database intact.
@Suite("Hostile strings")
struct HostileStringTests {
    static let hostile: [String] = [
        "'", "''", "\"", "'; DROP TABLE items; --", "-- comment", "/* x */", ";", "a\u{0}b", "\u{0}",
        "?1", "$1", ":name", "@x", "\\", "\\'", "%", "_", "' OR 1=1 --", "\" OR \"\"=\"",
        String(repeating: "'; DROP TABLE items; --", count: 5_000), "é\u{301}😀\u{FFFD}",
    ]

    /// Rules with the string as a constant of several operators, and as a `%@` argument.
    static func rules(_ text: String) throws -> [PredicateNode] {
        let constant = TestMapping.constant(.string(text))
        return [
            TestMapping.compare(TestMapping.key("name"), .equal, constant),
            TestMapping.compare(TestMapping.key("name"), .notEqual, constant, .direct, .caseInsensitive),
            TestMapping.compare(TestMapping.key("name"), .beginsWith, constant),
            TestMapping.compare(
                TestMapping.key("name"), .in, TestMapping.constant(.array([.string(text), .string("b")]))),
            TestMapping.compare(TestMapping.key("userInfo", "note"), .equal, constant),
            TestMapping.compare(TestMapping.key("tags", "label"), .equal, constant, .any),
            try PredicateParser.parsePredicate("name == %@ OR kind == %@", arguments: [.string(text), .string(text)])
                .predicate,
        ]
    }

    @Test(arguments: hostile)
    func sqliteTextNeverChanges(_ text: String) throws {
        for (rule, harmless) in zip(try Self.rules(text), try Self.rules("x")) {
            let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .sqlite)
            let reference = try SQLTranslator.translate(harmless, mapping: TestMapping.mapping, dialect: .sqlite)
            #expect(translation.sql == reference.sql)
            #expect(translation.parameters.contains(.text(text)))
        }
    }

    /// PostgreSQL's text cannot hold NUL, so no stored value can equal such a constant: the
    /// comparison is re-checked rather than bound (and the text still never holds the string).
    @Test(arguments: hostile)
    func postgresTextNeverChanges(_ text: String) throws {
        for (rule, harmless) in zip(try Self.rules(text), try Self.rules("x")) {
            let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .postgres)
            if text.utf8.contains(0) {
                #expect(!translation.parameters.contains(.text(text)))
                #expect(!translation.sql.utf8.contains(0))
                continue
            }
            let reference = try SQLTranslator.translate(harmless, mapping: TestMapping.mapping, dialect: .postgres)
            #expect(translation.sql == reference.sql)
            #expect(translation.isExact == reference.isExact)
        }
    }

    /// Stored and queried for real: the string comes back whole and the tables survive.
    @Test(arguments: hostile)
    func sqliteStoresAndFindsIt(_ text: String) throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(
            id: 1, ["name": .string(text), "tags": .array([.dictionary(["label": .string(text), "weight": .int(1)])])])
        try store.insert(id: 2, ["name": .string("x")])
        for rule in try Self.rules(text) where !rule.format.contains("!=") {
            let result = try store.query(rule)
            #expect(result.items.map(\.id).contains(1) || rule.format.contains("userInfo"), "\(rule.format)")
        }
        let found = try store.query(
            TestMapping.compare(TestMapping.key("name"), .equal, TestMapping.constant(.string(text))))
        #expect(found.items.map(\.id) == [1])
        #expect(found.items.first?.item["name"] == .string(text))
    }
}
