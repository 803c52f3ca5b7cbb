import PredicateInterpreter
import PredicateSQL
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why a PostgreSQL store operation failed.
public enum PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// The item does not fit the mapping.
    case item(ItemEncodingError)
    /// The rule names a key the mapping does not store.
    case rule(TranslationError)
    /// The mapping cannot be set up (an index on a key it has no column for).
    case mapping(MappingError)
    /// The server failed.
    case database(PostgresError)

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

/// Items in a PostgreSQL table, filtered where they live: the rule is translated for PostgreSQL,
/// the server returns the rows the clause keeps (a superset when the clause is not exact), and
/// the residual is re-checked here on each, so the answer is the interpreter's.
///
/// ```swift
/// let connection = try PostgresConnection("host=/run/postgresql dbname=items")
/// let store = PostgresItemStore(mapping: mapping, connection: connection)
/// try store.createTables()
/// let result = try store.query(rule)   // result.translation.isExact says if anything was re-checked
/// ```
public final class PostgresItemStore {
    /// The mapping of the tables.
    public let mapping: TableMapping
    /// The connection.
    public let connection: PostgresConnection
    /// The interpreter residuals are evaluated with.
    public let interpreter: Interpreter
    private let codec: ItemCodec

    /// A store over `mapping`'s tables through `connection` (see ``createTables(indexes:)``).
    public init(mapping: TableMapping, connection: PostgresConnection, interpreter: Interpreter = Interpreter()) {
        self.mapping = mapping
        self.connection = connection
        self.interpreter = interpreter
        codec = ItemCodec(mapping: mapping)
    }

    /// Creates the mapping's tables, and an index on the column of each key in `indexes`.
    public func createTables(indexes: [String] = []) throws(PostgresStoreError) {
        do {
            for statement in codec.createStatements(.postgres) { try connection.execute(statement) }
            for key in indexes {
                guard let column = mapping.columns[key]?.column else {
                    throw PostgresStoreError.mapping(
                        MappingError("cannot index '\(key)': it is not a column of the mapping"))
                }
                try connection.execute(
                    "CREATE INDEX ON " + sqlName(mapping.table) + " (" + sqlName(column) + ")")
            }
        } catch let error as PostgresError {
            throw .database(error)
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw .database(PostgresError("\(error)"))
        }
    }

    /// Adds an item under `id`, in one transaction with its child rows.
    public func insert(id: Int64, _ item: [String: Value]) throws(PostgresStoreError) {
        let encoded: EncodedItem
        do { encoded = try codec.encode(item, for: .postgres) } catch { throw .item(error) }
        do { try transaction { () throws(PostgresError) in try write(id, encoded) } } catch { throw .database(error) }
    }

    /// Adds many items in one transaction: all of them, or none when one is refused.
    public func insert(contentsOf items: [StoredItem]) throws(PostgresStoreError) {
        var encoded: [(Int64, EncodedItem)] = []
        encoded.reserveCapacity(items.count)
        for stored in items {
            do { encoded.append((stored.id, try codec.encode(stored.item, for: .postgres))) } catch {
                throw .item(error)
            }
        }
        do {
            try transaction { () throws(PostgresError) in
                for (id, item) in encoded { try write(id, item) }
            }
        } catch {
            throw .database(error)
        }
    }

    /// Replaces the item stored under `id`.
    public func update(id: Int64, _ item: [String: Value]) throws(PostgresStoreError) {
        let encoded: EncodedItem
        do { encoded = try codec.encode(item, for: .postgres) } catch { throw .item(error) }
        do {
            try transaction { () throws(PostgresError) in
                try connection.execute(deleteStatement, [.integer(id)])
                try write(id, encoded)
            }
        } catch {
            throw .database(error)
        }
    }

    /// Removes the item stored under `id` (and its child rows).
    public func delete(id: Int64) throws(PostgresStoreError) {
        do { try connection.execute(deleteStatement, [.integer(id)]) } catch { throw .database(error) }
    }

    /// The server's `EXPLAIN` of the query of `rule`, one line per row of the plan.
    public func queryPlan(_ rule: PredicateNode) throws(PostgresStoreError) -> [String] {
        let query = try prepare(rule)
        do {
            return try connection.query("EXPLAIN " + query.itemStatement, query.translation.parameters).compactMap {
                row in
                guard case .text(let line) = row.first else { return nil }
                return line
            }
        } catch {
            throw .database(error)
        }
    }

    /// The items `rule` is true of and the rows it raises on, as the interpreter would answer.
    public func query(_ rule: PredicateNode) throws(PostgresStoreError) -> QueryResult {
        let query = try prepare(rule)
        do {
            let rows = try connection.query(query.itemStatement, query.translation.parameters)
            var children: [String: [[SQLValue]]] = [:]
            for key in codec.childKeys {
                guard let statement = query.childStatement(key) else { continue }
                children[key] = try connection.query(statement, query.translation.parameters)
            }
            return query.assemble(items: rows, children: children, interpreter: interpreter)
        } catch {
            throw .database(error)
        }
    }

    private func prepare(_ rule: PredicateNode) throws(PostgresStoreError) -> ItemQuery {
        do {
            let translation = try SQLTranslator.translate(
                rule, mapping: mapping, dialect: .postgres, environment: interpreter.environment)
            return ItemQuery(translation, codec: codec)
        } catch {
            throw .rule(error)
        }
    }

    private var deleteStatement: String {
        "DELETE FROM " + sqlName(mapping.table) + " WHERE " + sqlName(mapping.primaryKey) + " = $1"
    }

    /// Runs `body` in one transaction, rolled back if it fails.
    private func transaction(_ body: () throws(PostgresError) -> Void) throws(PostgresError) {
        try connection.execute("BEGIN")
        do {
            try body()
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        try connection.execute("COMMIT")
    }

    private func write(_ id: Int64, _ encoded: EncodedItem) throws(PostgresError) {
        let columns = [mapping.primaryKey] + codec.columnNames
        try connection.execute(
            "INSERT INTO " + sqlName(mapping.table) + " (" + columns.map(sqlName).joined(separator: ", ") + ") VALUES ("
                + (1...columns.count).map { "$\($0)" }.joined(separator: ", ") + ")", [.integer(id)] + encoded.values)
        for (offset, key) in codec.childKeys.enumerated() where offset < encoded.children.count {
            guard let child = mapping.children[key] else { continue }
            let childColumns = [child.foreignKey, child.positionColumn] + codec.childColumnNames(key)
            let statement =
                "INSERT INTO " + sqlName(child.table) + " (" + childColumns.map(sqlName).joined(separator: ", ")
                + ") VALUES (" + (1...childColumns.count).map { "$\($0)" }.joined(separator: ", ") + ")"
            for row in encoded.children[offset] { try connection.execute(statement, [.integer(id)] + row) }
        }
    }
}

/// An identifier quoted for SQL.
func sqlName(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
