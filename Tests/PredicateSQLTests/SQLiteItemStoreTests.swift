import PredicateInterpreter
import PredicateSQL
import PredicateSQLite
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@Suite("SQLite item store")
struct SQLiteItemStoreTests {
    static func rule(_ text: String) throws -> PredicateNode { try PredicateParser.parsePredicate(text).predicate }

    static let sample: [String: Value] = [
        "bytes": .int(5_000_000), "name": .string("Report.PDF"), "flag": .bool(true),
        "modified": .date(secondsSinceReferenceDate: 100), "score": .double(2.5),
        "userInfo": .dictionary(["note": .string("urgent"), "rank": .int(3)]),
        "tags": .array([.dictionary(["label": .string("work"), "weight": .int(2)]), .dictionary(["weight": .int(7)])]),
    ]

    @Test func itemsReadBackAsStored() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 7, Self.sample)
        let all = try store.query(Self.rule("TRUEPREDICATE"))
        #expect(all.items.map(\.id) == [7])
        #expect(all.items.first.map { Value.dictionary($0.item) } == .dictionary(Self.sample))
    }

    @Test func insertUpdateDelete() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, Self.sample)
        try store.insert(id: 2, ["bytes": .int(10)])
        let big = try Self.rule("bytes > 1000")
        #expect(try store.query(big).items.map(\.id) == [1])
        try store.update(id: 2, ["bytes": .int(2_000)])
        #expect(try store.query(big).items.map(\.id) == [1, 2])
        try store.delete(id: 1)
        #expect(try store.query(big).items.map(\.id) == [2])
        // The child rows went with their item.
        #expect(try store.query(Self.rule("ANY tags.weight > 0")).items.isEmpty)
    }

    @Test func batchesGoInWholeOrNotAtAll() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(contentsOf: (1...3).map { StoredItem(id: $0, item: ["bytes": .int($0)]) })
        #expect(try store.query(Self.rule("bytes >= 2")).items.map(\.id) == [2, 3])
        let clash = [StoredItem(id: 4, item: ["bytes": .int(4)]), StoredItem(id: 1, item: [:])]
        #expect(throws: ItemStoreError.self) { try store.insert(contentsOf: clash) }
        #expect(try store.query(Self.rule("TRUEPREDICATE")).items.map(\.id) == [1, 2, 3])
    }

    @Test func aFailedInsertLeavesNothingBehind() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, ["bytes": .int(1)])
        #expect(throws: ItemStoreError.self) { try store.insert(id: 1, Self.sample) }
        #expect(try store.query(Self.rule("ANY tags.weight > 0")).items.isEmpty)
    }

    /// Items the mapping cannot hold are refused with the key named, before anything is written.
    @Test(arguments: [
        (["bytes": Value.string("big")], "'bytes' is stored as integer, got string"),
        (["score": Value.double(.nan)], "'score' is NaN"),
        (["other": Value.int(1)], "has a key 'other'"),
        (["userInfo": Value.array([])], "'userInfo' must be a dictionary"),
        (["tags": Value.array([.int(1)])], "each element of 'tags' must be a dictionary"),
        (["tags": Value.array([.dictionary(["label": .string("a")])])], "'tags.weight' is declared not null"),
    ])
    func badItemsAreRefused(_ item: [String: Value], _ message: String) throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        do {
            try store.insert(id: 1, item)
            Issue.record("inserted \(item)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
        #expect(try store.query(Self.rule("TRUEPREDICATE")).items.isEmpty)
    }

    /// The caller's index serves the pushed-down clause.
    @Test func declaredIndexesAreUsed() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping, indexes: ["bytes"])
        let plan = try store.queryPlan(Self.rule("bytes > 1000 AND name ==[c] 'a'"))
        #expect(plan.contains { $0.contains("USING INDEX items_bytes (bytes>?)") }, "\(plan)")
        let unindexed = try store.queryPlan(Self.rule("score > 1"))
        #expect(unindexed.contains { $0.hasPrefix("SCAN items") }, "\(unindexed)")
    }

    /// Rows the rule raises on are reported, as the interpreter reports them item by item.
    @Test func errorsAreReportedPerRow() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, ["userInfo": .dictionary(["rank": .string("high")])])
        try store.insert(id: 2, ["userInfo": .dictionary(["rank": .int(5)])])
        try store.insert(id: 3, [:])
        let result = try store.query(Self.rule("userInfo.rank > 1"))
        #expect(!result.translation.isExact)
        #expect(result.items.map(\.id) == [2])
        #expect(result.errors.map(\.id) == [1])
        #expect(result.errors.first?.error.kind == .typeMismatch)
    }

    @Test func unknownKeysAreRuleErrors() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        #expect(throws: ItemStoreError.self) { try store.query(Self.rule("colour == 'red'")) }
    }

    /// Every function a clause can name is registered on every connection.
    @Test func registeredFunctionsCoverTheTranslator() throws {
        let rule = try Self.rule(
            "name ==[c] 'a' OR name < 'b' OR name CONTAINS[d] 'c' OR name BEGINSWITH 'd' OR name ENDSWITH 'e' "
                + "OR name LIKE 'f*' OR name MATCHES 'g.*' OR kind UTI-CONFORMS-TO 'public.image' OR kind UTI-EQUALS 'public.jpeg'"
        )
        let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .sqlite)
        #expect(translation.functions == SQLiteDatabase.functionNames.sorted())
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, ["kind": .string("public.png")])
        #expect(try store.query(rule).items.map(\.id) == [1])
    }
}

/// Types the host declares conform in the database as in the interpreter: the SQLite functions
/// use the store's environment, and the PostgreSQL `IN` list is drawn from its type table.
@Suite("Host type declarations")
struct HostTypeTests {
    static let interpreter = Interpreter(
        environment: EvaluationEnvironment(
            uniformTypes: UniformTypeRegistry.system.registering([
                UniformTypeDeclaration("com.example.notes", conformsTo: ["public.plain-text"])
            ])))

    @Test func sqliteFunctionsUseTheStoresTypes() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping, interpreter: Self.interpreter)
        try store.insert(id: 1, ["kind": .string("com.example.notes")])
        try store.insert(id: 2, ["kind": .string("public.jpeg")])
        let rule = try PredicateParser.parsePredicate("kind UTI-CONFORMS-TO 'public.text'").predicate
        let result = try store.query(rule)
        #expect(result.translation.isExact)
        #expect(result.items.map(\.id) == [1])
    }

    @Test func postgresListsTheHostsTypes() throws {
        let rule = try PredicateParser.parsePredicate("kind UTI-CONFORMS-TO 'public.text'").predicate
        let translation = try SQLTranslator.translate(
            rule, mapping: TestMapping.mapping, dialect: .postgres, environment: Self.interpreter.environment)
        #expect(translation.isExact)
        #expect(translation.parameters.contains(.text("com.example.notes")))
        #expect(translation.parameters.contains(.text("public.plain-text")))
        #expect(!translation.parameters.contains(.text("public.jpeg")))
    }
}

/// Rules of many thousand operands are answered, and in time: an allow-list becomes one `IN`
/// list, and past 1,000 comparisons the rest is left to the re-check (SQLite plans a long `WHERE`
/// in quadratic time).
@Suite("Large rules")
struct LargeRuleTests {
    static func chain(_ count: Int, _ op: ComparisonOperator, and: Bool = false) -> PredicateNode {
        let operands = (0..<count).map {
            TestMapping.compare(
                TestMapping.key($0 % 2 == 0 ? "bytes" : "score"), op, TestMapping.constant(.int(Int64($0))))
        }
        return PredicateNode(and ? .and(operands) : .or(operands))
    }

    @Test func allowListsBecomeOneList() throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, ["bytes": .int(39_998)])
        try store.insert(id: 2, ["bytes": .int(39_999), "score": .double(39_999)])
        try store.insert(id: 3, ["bytes": .int(40_000)])
        let result = try store.query(Self.chain(40_000, .equal))
        #expect(result.translation.isExact)
        #expect(result.translation.sql.components(separatedBy: " IN (").count == 3)
        #expect(result.items.map(\.id) == [1, 2])
    }

    @Test(arguments: [false, true])
    func pastTheBudgetTheRestIsRechecked(_ and: Bool) throws {
        let store = try SQLiteItemStore(mapping: TestMapping.mapping)
        try store.insert(id: 1, ["bytes": .int(50_000), "score": .double(50_000)])
        try store.insert(id: 2, ["bytes": .int(19_000)])
        try store.insert(id: 3, [:])
        let rule = Self.chain(20_000, .greater, and: and)
        let result = try store.query(rule)
        #expect(!result.translation.isExact)
        #expect(result.translation.comparisons.filter(\.isExact).count <= 1_000)
        let expected = try [1, 2, 3].filter { id in
            let item: [String: Value] =
                id == 1 ? ["bytes": .int(50_000), "score": .double(50_000)] : id == 2 ? ["bytes": .int(19_000)] : [:]
            return try Interpreter().evaluate(rule, on: .dictionary(item))
        }
        #expect(result.items.map(\.id).map(Int.init) == expected)
    }
}
