import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// An item with only the conformance the protocol asks for: a schema per item and
/// `value(atSlot:)`, no shared schema and nothing stored for the engines.
private struct PlainItem: KeyValueCoding {
    var name: String?
    var bytes: Int64
    var ratio: Double
    var flag: Bool
    var info: [String: Value]

    static let fixedSchema = Schema(
        typeName: "PlainItem",
        fields: [
            .init("name", .optional(.string)), .init("bytes", .integer), .init("ratio", .number),
            .init("flag", .bool), .init("info", .dictionary(.any)),
        ])
    var schema: Schema { Self.fixedSchema }

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return name.map(Value.string) ?? .nil
        case 1: return .int(bytes)
        case 2: return .double(ratio)
        case 3: return .bool(flag)
        case 4: return .dictionary(info)
        default: return .nil
        }
    }

    static let items: [PlainItem] = [
        PlainItem(
            name: "report.PDF", bytes: 50, ratio: 0.25, flag: true, info: ["rank": .int(4), "color": .string("red")]),
        PlainItem(name: "Résumé.pdf", bytes: 5, ratio: .nan, flag: false, info: ["rank": .string("high")]),
        PlainItem(name: nil, bytes: 500, ratio: 0.75, flag: true, info: ["rank": .double(2.5), "color": .nil]),
        PlainItem(name: "apple", bytes: 100, ratio: -1, flag: false, info: [:]),
        PlainItem(name: "zebra.txt", bytes: 10, ratio: 0.5, flag: true, info: ["rank": .uint(UInt64.max)]),
        // A failure only the instructions report, before one the one-test program reports itself.
        PlainItem(name: "list", bytes: 7, ratio: 0.1, flag: false, info: ["rank": .array([.string("x")])]),
        PlainItem(name: "low", bytes: 8, ratio: 0.2, flag: true, info: ["rank": .string("low")]),
    ]
}

/// The same items through a key-path table: strings and the dictionary stored in place.
private struct TableItem: Queryable {
    var name: String?
    var bytes: Int64
    var ratio: Double
    var flag: Bool
    var info: [String: Value]

    static let queryKeyPaths: KeyPathTable<TableItem> = [
        "name": \.name, "bytes": \.bytes, "ratio": \.ratio, "flag": \.flag, "info": \.info,
    ]

    init(_ item: PlainItem) {
        (name, bytes, ratio, flag, info) = (item.name, item.bytes, item.ratio, item.flag, item.info)
    }
}

/// Tests of sites read from `SELF` that are not fields stored as scalars (strings, dictionary
/// keys, fields read through the type) are decided in the straight loop: what they answer,
/// charge and throw, item by item and budget by budget, is what the general path does with the
/// item boxed as a value.
@Suite struct SelfSiteTests {
    static let rules = [
        "flag == YES",
        "bytes BETWEEN {10, 100}",
        "ratio < 0.5",
        "name ENDSWITH[c] '.pdf'",
        "name == 'apple'",
        "name < 'm'",
        "name LIKE[c] 'r*'",
        "name LIKE '*.*'",
        "name MATCHES '.*[.]pdf'",
        "info.color LIKE 'r*d'",
        "info.rank >= 3",
        "name > 5",
        "info.rank == nil",
        "info.color == 'red'",
        "(flag == YES AND bytes > 5) OR info.rank >= 1",
        "NOT (name BEGINSWITH 'r') AND ratio != 0.5",
        // Rules a site table decides (fields read through the type, `NOT`, `AND`, `OR`).
        "(flag == YES AND bytes > 5) OR ratio < 0.5",
        "NOT (name ENDSWITH[c] '.pdf') OR bytes >= 100",
        "name == 'apple' OR name CONTAINS[cd] 'SUM'",
        "flag == NO AND NOT (ratio > 0)",
        "NOT (bytes IN {5, 50})",
        "name != 'zebra.txt'",
    ]

    @Test(arguments: rules)
    func selfSitesAnswerAsTheGeneralPath(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let plain = PlainItem.items
        let table = plain.map(TableItem.init)
        let plainProgram = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(PlainItem.fixedSchema))), source: rule)
        let tableProgram = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(TableItem.queryKeyPaths.schema))), source: rule)
        var outcomes: Set<String> = []
        // Each budget with the default per-match limit, and with one that a pattern outruns.
        for (budget, patternSteps) in (0...30).flatMap({ [($0, 5_000_000), ($0, 3)] }) {
            let environment = EvaluationEnvironment(
                limits: EvaluationLimits(maximumSteps: budget, maximumPatternSteps: patternSteps))
            var plainMachine = VirtualMachine(program: plainProgram, environment: environment)
            var tableMachine = VirtualMachine(program: tableProgram, environment: environment)
            let boxed = plain.map { item in
                FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try plainMachine.evaluate(on: .object(item))
                }
            }
            #expect(
                Self.inPlace(plain, &plainMachine) == boxed,
                "\(rule), \(budget) steps (\(patternSteps) a match), plain items")
            #expect(
                Self.inPlace(table, &tableMachine) == boxed,
                "\(rule), \(budget) steps (\(patternSteps) a match), table items")
            for (index, item) in plain.enumerated() {
                let one = withUnsafePointer(to: item) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in
                        try plainMachine.evaluate(item: pointer)
                    }
                }
                #expect(one == boxed[index], "\(rule), \(budget) steps, item \(index) alone")
            }
            outcomes.formUnion(boxed.map { $0.hasPrefix("limitExceeded") ? "limitExceeded" : "answered" })
        }
        // The budgets cover both sides of the limit.
        #expect(outcomes == ["limitExceeded", "answered"])
    }

    /// Many items whose names are long enough to live on the heap (where the one-test loop asks
    /// for each name a few items ahead), between short names, nil and other lengths: each answer
    /// is the general path's.
    @Test(arguments: [
        "name ENDSWITH[c] '.pdf'", "name BEGINSWITH 'a document'", "name CONTAINS[cd] 'NUMBER 1'",
        "name == 'a document with a long name, number 12.pdf'", "name != 'short 10.pdf'", "name LIKE '*7*'",
        "NOT (name ENDSWITH 'txt')",
    ])
    func longNamesAnswerAsTheGeneralPath(_ rule: String) throws {
        let extensions = [".pdf", ".PDF", ".txt", "é.pdf"]
        let items = (0..<300).map { index in
            let name: String? =
                index % 7 == 0
                ? nil
                : index % 5 == 0
                    ? "short \(index).pdf" : "a document with a long name, number \(index)\(extensions[index % 4])"
            return PlainItem(name: name, bytes: Int64(index), ratio: 0, flag: false, info: [:])
        }
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(PlainItem.fixedSchema))), source: rule)
        var machine = VirtualMachine(program: program)
        let boxed = items.map { item in
            FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(on: .object(item)) }
        }
        #expect(Set(boxed).count == 2, "\(rule): both answers occur")
        #expect(Self.inPlace(items, &machine) == boxed, "\(rule)")
        // Fewer items than the distance the loop asks ahead.
        #expect(Self.inPlace(Array(items.prefix(9)), &machine) == Array(boxed.prefix(9)), "\(rule), 9 items")
    }

    /// A batch large enough for the one-test loop to ask for each name's memory ahead (more
    /// bytes of items than ``StringStorageHint/worthwhileBytes``) answers as the same items do in
    /// batches too small for it, which ``longNamesAnswerAsTheGeneralPath(_:)`` checks against the
    /// general path.
    @Test(arguments: ["name ENDSWITH[c] '.pdf'", "name CONTAINS 'number 1'", "NOT (name BEGINSWITH 'a doc')"])
    func largeBatchesAnswerAsSmallOnes(_ rule: String) throws {
        let count = StringStorageHint.worthwhileBytes / MemoryLayout<PlainItem>.stride + 1_000
        let extensions = [".pdf", ".PDF", ".txt", "é.pdf"]
        let items = (0..<count).map { index in
            let name: String? =
                index % 7 == 0
                ? nil : "a document with a long name, number \(index)\(extensions[index % 4])"
            return PlainItem(name: name, bytes: Int64(index), ratio: 0, flag: false, info: [:])
        }
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(PlainItem.fixedSchema))), source: rule)
        var machine = VirtualMachine(program: program)
        let whole = machine.evaluate(items: items)
        var answers: [Bool] = []
        for start in stride(from: 0, to: count, by: 1_000) {
            answers += machine.evaluate(items: Array(items[start..<min(start + 1_000, count)])).answers
        }
        #expect(whole.answers == answers, "\(rule)")
        #expect(whole.failures.isEmpty)
        #expect(Set(answers).count == 2, "\(rule): both answers occur")
    }

    /// The straight loop decides these sites: their words say so once the machine has seen
    /// items of the type.
    @Test func wordsNameTheWayTheyAreDecided() throws {
        let rule = "name ENDSWITH 'x' AND info.rank > 1 AND ratio < 2"
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let table = PlainItem.items.map(TableItem.init)
        func operations<Item: KeyValueCoding>(_ schema: Schema, _ items: [Item]) throws -> [MachineOperation] {
            let program = try Compiler.compile(
                Binder.bind(parsed, selfType: .object(SchemaReference(schema))), source: rule)
            var machine = VirtualMachine(program: program)
            _ = machine.evaluate(items: items)
            return (0..<machine.machineCode.count).map { machine.machineCode.base[$0].operation }
                .filter { $0 != .returnBool }
        }
        #expect(
            try operations(PlainItem.fixedSchema, PlainItem.items) == [
                .testSelfScalar, .testSelfDictionary, .testSelfScalar,
            ])
        #expect(
            try operations(TableItem.queryKeyPaths.schema, table) == [
                .testSelfString, .testSelfDictionary, .testSelfDouble,
            ])
    }

    /// Rules made of tests of fields that the minimal conformance answers, or of strings a
    /// key-path table stores, are decided by a site table, in a loop compiled for the item type;
    /// the others are not (stored scalars have the decision table).
    @Test(arguments: [
        ("bytes BETWEEN {10, 100}", 1, 0), ("name ENDSWITH[c] '.pdf'", 1, 1), ("NOT (bytes IN {5, 50})", 1, 1),
        ("(flag == YES AND bytes > 5) OR ratio < 0.5", 3, 0), ("name == 'apple' OR name CONTAINS[cd] 'SUM'", 2, 2),
        ("name LIKE[c] 'r*'", 0, 0), ("info.rank >= 3", 0, 0), ("flag == YES OR info.rank >= 1", 0, 0),
    ])
    func siteTablesDecideRulesOfFieldsReadThroughTheType(_ rule: String, plainTests: Int, tableTests: Int) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        func tests<Item: KeyValueCoding>(_ schema: Schema, _ items: [Item]) throws -> (Int, Bool) {
            let program = try Compiler.compile(
                Binder.bind(parsed, selfType: .object(SchemaReference(schema))), source: rule)
            var machine = VirtualMachine(program: program)
            _ = machine.evaluate(items: items)
            return (machine.siteTable?.tests.count ?? 0, machine.siteTable?.single != nil)
        }
        #expect(try tests(PlainItem.fixedSchema, PlainItem.items) == (plainTests, plainTests == 1), "\(rule)")
        let table = PlainItem.items.map(TableItem.init)
        #expect(try tests(TableItem.queryKeyPaths.schema, table) == (tableTests, tableTests == 1), "\(rule)")
    }

    /// `rule`, bound to `schema`, on each of `items` boxed as a value (the general path) and on all
    /// of them in place (`evaluate(items:)`), as outcomes (``inPlace(_:_:)``).
    static func boxedAndInPlace<Item: KeyValueCoding>(
        _ rule: String, schema: Schema, _ items: [Item]
    ) throws -> (boxed: [String], inPlace: [String]) {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(schema))), source: rule)
        var machine = VirtualMachine(program: program)
        let boxed = items.map { item in
            FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(on: .object(item)) }
        }
        return (boxed, inPlace(items, &machine))
    }

    /// What `evaluate(items:)` answers for each item, as ``FusedComparisonTests/outcome(_:)`` writes
    /// it (an answer, or the error reported for the item).
    static func inPlace<Item: KeyValueCoding>(_ items: [Item], _ machine: inout VirtualMachine) -> [String] {
        let (answers, failures) = machine.evaluate(items: items)
        #expect(failures.map(\.index) == failures.map(\.index).sorted(), "failures in the order of their items")
        let errors = Dictionary(uniqueKeysWithValues: failures.map { ($0.index, $0.error) })
        return answers.indices.map { index in
            FusedComparisonTests.outcome { () throws(EvaluationError) in
                if let error = errors[index] { throw error }
                return answers[index]
            }
        }
    }
}
