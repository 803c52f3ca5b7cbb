import Foundation
import PredicateInterpreter
import PredicatePostgres
import PredicateSQL
import PredicateSQLite
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// The conformance suite through the databases: every case whose object is a dictionary the
/// SQL module can store (scalars as columns, dictionaries as JSON, arrays of dictionaries as a
/// child table) is stored in SQLite (exact push-down) and PostgreSQL (push-down plus re-check),
/// and the rule queried there must give the case's answer, errors included.
@Suite("SQL conformance")
struct SQLConformanceTests {
    /// The cases the databases can hold, with the mapping of each. (Made by each test rather
    /// than kept in a static: parsed trees held for the life of the process read as leaks to
    /// LeakSanitizer when their allocation stack is deeper than it records.)
    static func storable() -> [(ConformanceCase, Value, PredicateSyntax.PredicateNode, TableMapping)] {
        ConformanceFiles.all.compactMap { testCase in
            guard !testCase.isExpression, testCase.variables.isEmpty else { return nil }
            switch testCase.expected {
            case .result, .error: break
            default: return nil
            }
            guard let parsed = try? PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments) else {
                return nil
            }
            // A rule that never reads SELF answers the same on any object: store an empty item.
            let object = CaseMapping.readsSelf(.predicate(parsed.predicate)) ? testCase.object : .dictionary([:])
            guard let mapping = CaseMapping.mapping(for: object, rule: parsed.predicate) else { return nil }
            return (testCase, object, parsed.predicate, mapping)
        }
    }

    /// A change that made the stores refuse most cases would otherwise go unnoticed.
    static let minimumChecked = 200

    @Test("every storable conformance case through SQLite")
    func sqlite() throws {
        var checked = 0
        for (testCase, object, rule, mapping) in Self.storable() {
            guard case .dictionary(let item) = object else { continue }
            let store = try SQLiteItemStore(mapping: mapping)
            do {
                try store.insert(id: 1, item)
            } catch {
                continue  // a value the columns cannot hold (mixed kinds in one column)
            }
            check(testCase, object, rule, try store.query(rule), engine: "SQLite")
            checked += 1
        }
        #expect(checked >= Self.minimumChecked, "only \(checked) conformance cases checked")
    }

    @Test(
        "every storable conformance case through PostgreSQL",
        .enabled(if: ProcessInfo.processInfo.environment["PREDICATE_POSTGRES"] != nil, "set PREDICATE_POSTGRES"))
    func postgres() throws {
        let connection = try PostgresConnection(ProcessInfo.processInfo.environment["PREDICATE_POSTGRES"] ?? "")
        defer { try? connection.execute("DROP SCHEMA IF EXISTS conformance CASCADE") }
        var checked = 0
        for (testCase, object, rule, mapping) in Self.storable() {
            guard case .dictionary(let item) = object else { continue }
            try connection.execute("DROP SCHEMA IF EXISTS conformance CASCADE")
            try connection.execute("CREATE SCHEMA conformance")
            try connection.execute("SET search_path TO conformance")
            let store = PostgresItemStore(mapping: mapping, connection: connection)
            try store.createTables()
            do {
                try store.insert(id: 1, item)
            } catch {
                continue  // text with NUL, or mixed kinds in one column
            }
            check(testCase, object, rule, try store.query(rule), engine: "PostgreSQL")
            checked += 1
        }
        #expect(checked >= Self.minimumChecked, "only \(checked) conformance cases checked")
    }

    private func check(
        _ testCase: ConformanceCase, _ object: Value, _ rule: PredicateSyntax.PredicateNode, _ result: QueryResult,
        engine: String
    ) {
        let outcome: ConformanceOutcome
        if let error = result.errors.first {
            outcome = .error(error.error)
        } else {
            outcome = .result(!result.items.isEmpty)
        }
        let comment = Comment(
            rawValue: "\(engine) on \(testCase.location): \(testCase.rule) ⟶ \(outcome); SQL \(result.translation.sql)")
        switch (testCase.expected, outcome) {
        case (.result(let expected), .result(let actual)): #expect(expected == actual, comment)
        case (.error(let expected), .error(let actual)):
            #expect(expected == actual.kind, comment)
            // Reported as the interpreter reports the whole rule: same message, same place.
            do {
                _ = try Interpreter().evaluate(rule, on: object)
                Issue.record(Comment(rawValue: "the interpreter does not raise; " + comment.rawValue))
            } catch {
                #expect(actual.message == error.message, comment)
                #expect(actual.range == error.range, comment)
            }
        default: Issue.record(Comment(rawValue: "expected \(testCase.expected); " + comment.rawValue))
        }
    }
}

/// A mapping for a conformance object: each scalar key a column typed by its value, each
/// dictionary a JSON column, each array of dictionaries a child table; keys the rule reads that
/// the object lacks become text columns (nil on this row). `nil` when the object holds something
/// no column can (arrays of scalars, sets, objects, data).
enum CaseMapping {
    /// Whether evaluating the node can read the object at all.
    static func readsSelf(_ node: SyntaxNode) -> Bool {
        switch node {
        case .expression(let expression):
            if case .evaluatedObject = expression.kind { return true }
            return expression.kind.children.contains(where: readsSelf)
        case .predicate(let predicate):
            return predicate.kind.children.contains(where: readsSelf)
        }
    }

    static func mapping(for object: Value, rule: PredicateSyntax.PredicateNode) -> TableMapping? {
        guard case .dictionary(let entries) = object else { return nil }
        var mapping = TableMapping(table: "items", primaryKey: "pvm_id")
        for (key, value) in entries {
            switch value {
            case .nil, .null:
                continue
            case .dictionary(let inner):
                guard inner.values.allSatisfy(isJSONScalar) else { return nil }
                mapping.jsonColumns[key] = "json_" + key
            case .array(let elements):
                var columns: [String: ColumnMapping] = [:]
                for element in elements {
                    guard case .dictionary(let fields) = element else { return nil }
                    for (field, fieldValue) in fields where !fieldValue.isNil && !fieldValue.isNull {
                        guard let type = columnType(fieldValue) else { return nil }
                        if let known = columns[field], known.type != type { return nil }
                        columns[field] = ColumnMapping(column: field, type: type)
                    }
                }
                mapping.children[key] = ChildTableMapping(
                    table: "items_" + key, foreignKey: "pvm_item", positionColumn: "pvm_position", columns: columns)
            default:
                guard let type = columnType(value) else { return nil }
                mapping.columns[key] = ColumnMapping(column: key, type: type)
            }
        }
        var usable = true
        rule.forEachKeyPath { components in
            guard let first = components.first?.key else { return }
            if first.hasPrefix("@") {
                usable = false
                return
            }
            if let child = mapping.children[first] {
                if components.count > 1, let field = components[1].key, !field.hasPrefix("@"),
                    child.columns[field] == nil
                {
                    mapping.children[first]?.columns[field] = ColumnMapping(column: field, type: .text)
                }
                return
            }
            if mapping.columns[first] == nil && mapping.jsonColumns[first] == nil && entries[first] == nil {
                mapping.columns[first] = ColumnMapping(column: first, type: .text)
            }
        }
        return usable ? mapping : nil
    }

    private static func isJSONScalar(_ value: Value) -> Bool {
        switch value {
        case .nil, .null, .bool, .int, .string: return true
        case .double(let number): return number.isFinite
        default: return false
        }
    }

    private static func columnType(_ value: Value) -> SQLColumnType? {
        switch value {
        case .string: return .text
        case .int: return .integer
        case .uint(let number): return Int64(exactly: number) == nil ? nil : .integer
        case .double(let number): return number.isNaN ? nil : .real
        case .bool: return .boolean
        case .date(let seconds): return seconds.isNaN ? nil : .date
        default: return nil
        }
    }
}
