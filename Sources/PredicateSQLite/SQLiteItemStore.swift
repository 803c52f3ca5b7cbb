import PredicateInterpreter
import PredicateSQL
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why a store operation failed.
public enum ItemStoreError: Error, Sendable, CustomStringConvertible {
    /// The item does not fit the mapping.
    case item(ItemEncodingError)
    /// The rule names a key the mapping does not store.
    case rule(TranslationError)
    /// The mapping cannot be set up (an index on a key it has no column for).
    case mapping(MappingError)
    /// The database failed.
    case database(SQLiteError)

    /// What went wrong.
    public var description: String {
        switch self {
        case .item(let error): return error.description
        case .rule(let error): return error.description
        case .mapping(let error): return error.description
        case .database(let error): return error.description
        }
    }
}

/// Items kept in SQLite, filtered where they live: a rule is translated, run inside SQLite with
/// this package's functions (exact for every construct the translator pushes down), and only the
/// residual, when there is one, is evaluated here on the rows SQLite returns.
///
/// ```swift
/// let store = try SQLiteItemStore(mapping: mapping, indexes: ["fileSize"])
/// try store.insert(id: 1, ["name": .string("a.pdf"), "fileSize": .int(5_000_000)])
/// let big = try store.query(PredicateParser.parsePredicate("fileSize > 1e6").predicate).items
/// ```
public final class SQLiteItemStore {
    /// The mapping the tables were built from.
    public let mapping: TableMapping
    /// The connection.
    public let database: SQLiteDatabase
    /// The environment residuals are evaluated in.
    public let interpreter: Interpreter
    private let codec: ItemCodec

    /// Creates the tables of `mapping` (and an index on each column of `indexes`, by key) in
    /// `database`, by default a new in-memory one whose functions use `interpreter`'s environment
    /// (pass a database opened with the same environment, or UTI conformance may disagree).
    public init(
        mapping: TableMapping, indexes: [String] = [], database: SQLiteDatabase? = nil,
        interpreter: Interpreter = Interpreter()
    ) throws(ItemStoreError) {
        self.mapping = mapping
        self.interpreter = interpreter
        codec = ItemCodec(mapping: mapping)
        do {
            self.database = try database ?? SQLiteDatabase(environment: interpreter.environment)
            for statement in codec.createStatements(.sqlite) { try self.database.execute(statement) }
            for key in indexes {
                guard let column = mapping.columns[key]?.column else {
                    throw ItemStoreError.mapping(
                        MappingError("cannot index '\(key)': it is not a column of the mapping"))
                }
                try self.database.execute(
                    "CREATE INDEX " + sqlName(mapping.table + "_" + column) + " ON " + sqlName(mapping.table) + " ("
                        + sqlName(column) + ")")
            }
        } catch let error as SQLiteError {
            throw .database(error)
        } catch let error as ItemStoreError {
            throw error
        } catch {
            throw .database(SQLiteError(code: -1, message: "\(error)"))
        }
    }

    /// Adds an item under `id`.
    public func insert(id: Int64, _ item: [String: Value]) throws(ItemStoreError) {
        let encoded: EncodedItem
        do { encoded = try codec.encode(item, for: .sqlite) } catch { throw .item(error) }
        do { try savepoint { () throws(SQLiteError) in try write(id, encoded) } } catch { throw .database(error) }
    }

    /// Adds many items in one transaction: all of them, or none when one is refused.
    public func insert(contentsOf items: [StoredItem]) throws(ItemStoreError) {
        var encoded: [(Int64, EncodedItem)] = []
        encoded.reserveCapacity(items.count)
        for stored in items {
            do { encoded.append((stored.id, try codec.encode(stored.item, for: .sqlite))) } catch { throw .item(error) }
        }
        do {
            try savepoint { () throws(SQLiteError) in
                for (id, item) in encoded { try write(id, item) }
            }
        } catch {
            throw .database(error)
        }
    }

    /// Replaces the item stored under `id`.
    public func update(id: Int64, _ item: [String: Value]) throws(ItemStoreError) {
        let encoded: EncodedItem
        do { encoded = try codec.encode(item, for: .sqlite) } catch { throw .item(error) }
        do {
            try savepoint { () throws(SQLiteError) in
                try database.execute(deleteStatement, [.integer(id)])
                try write(id, encoded)
            }
        } catch {
            throw .database(error)
        }
    }

    /// Removes the item stored under `id` (and its child rows).
    public func delete(id: Int64) throws(ItemStoreError) {
        do { try database.execute(deleteStatement, [.integer(id)]) } catch { throw .database(error) }
    }

    /// The items `rule` is true of, and the rows it raises on, as the interpreter would answer
    /// item by item.
    public func query(_ rule: PredicateNode) throws(ItemStoreError) -> QueryResult {
        let query = try prepare(rule)
        do {
            let rows = try database.query(query.itemStatement, query.translation.parameters)
            var children: [String: [[SQLValue]]] = [:]
            for key in codec.childKeys {
                guard let statement = query.childStatement(key) else { continue }
                children[key] = try database.query(statement, query.translation.parameters)
            }
            return query.assemble(items: rows, children: children, interpreter: interpreter)
        } catch {
            throw .database(error)
        }
    }

    /// SQLite's `EXPLAIN QUERY PLAN` for the query of `rule`, one line per step (to check that
    /// an index is used: `SEARCH items USING INDEX …`).
    public func queryPlan(_ rule: PredicateNode) throws(ItemStoreError) -> [String] {
        let query = try prepare(rule)
        do {
            return try database.query("EXPLAIN QUERY PLAN " + query.itemStatement, query.translation.parameters)
                .compactMap { row in
                    guard case .text(let detail) = row.last else { return nil }
                    return detail
                }
        } catch {
            throw .database(error)
        }
    }

    private func prepare(_ rule: PredicateNode) throws(ItemStoreError) -> ItemQuery {
        do {
            let translation = try SQLTranslator.translate(
                rule, mapping: mapping, dialect: .sqlite, environment: interpreter.environment)
            return ItemQuery(translation, codec: codec)
        } catch {
            throw .rule(error)
        }
    }

    /// Runs `body` so that it takes effect whole or not at all.
    private func savepoint(_ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try database.execute("SAVEPOINT item_change")
        do {
            try body()
        } catch {
            try? database.execute("ROLLBACK TO item_change")
            try? database.execute("RELEASE item_change")
            throw error
        }
        try database.execute("RELEASE item_change")
    }

    private var deleteStatement: String {
        "DELETE FROM " + sqlName(mapping.table) + " WHERE " + sqlName(mapping.primaryKey) + " = ?1"
    }

    private func write(_ id: Int64, _ encoded: EncodedItem) throws(SQLiteError) {
        let columns = [mapping.primaryKey] + codec.columnNames
        let placeholders = (1...columns.count).map { "?\($0)" }.joined(separator: ", ")
        try database.execute(
            "INSERT INTO " + sqlName(mapping.table) + " (" + columns.map(sqlName).joined(separator: ", ") + ") VALUES ("
                + placeholders + ")", [.integer(id)] + encoded.values)
        for (offset, key) in codec.childKeys.enumerated() where offset < encoded.children.count {
            guard let child = mapping.children[key] else { continue }
            let childColumns = [child.foreignKey, child.positionColumn] + codec.childColumnNames(key)
            let statement =
                "INSERT INTO " + sqlName(child.table) + " (" + childColumns.map(sqlName).joined(separator: ", ")
                + ") VALUES (" + (1...childColumns.count).map { "?\($0)" }.joined(separator: ", ") + ")"
            for row in encoded.children[offset] { try database.execute(statement, [.integer(id)] + row) }
        }
    }
}

/// An identifier quoted for SQL.
func sqlName(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
