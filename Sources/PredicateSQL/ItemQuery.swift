import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// An item read back from the database, with its primary key.
public struct StoredItem: Sendable {
    /// The primary key.
    public let id: Int64
    /// The item.
    public let item: [String: Value]

    /// Creates a stored item.
    public init(id: Int64, item: [String: Value]) {
        self.id = id
        self.item = item
    }
}

/// A row on which the rule raised an error (found when re-checking the residual).
public struct RowError: Sendable {
    /// The row's primary key.
    public let id: Int64
    /// The interpreter's error.
    public let error: EvaluationError
}

/// What a query returns: the items the rule is true of, in primary-key order, and the rows it
/// raised on (as the interpreter would, item by item).
public struct QueryResult: Sendable {
    /// The matching items.
    public let items: [StoredItem]
    /// The rows the rule raised on.
    public let errors: [RowError]
    /// The translation the database ran.
    public let translation: SQLTranslation
    /// How many rows the database returned before the re-check.
    public let rowsFetched: Int
}

/// The statements that fetch the items a translation keeps, and the re-check of the residual
/// on each, shared by the SQLite store and the PostgreSQL client.
public struct ItemQuery: Sendable {
    /// The translation.
    public let translation: SQLTranslation
    /// The codec of the mapping.
    public let codec: ItemCodec

    /// Prepares the statements of `translation` over `codec`'s mapping.
    public init(_ translation: SQLTranslation, codec: ItemCodec) {
        self.translation = translation
        self.codec = codec
    }

    private var mapping: TableMapping { codec.mapping }

    /// The items the clause keeps: primary key, then the columns in ``ItemCodec/columnNames`` order.
    /// Unordered: an `ORDER BY` the primary key would make SQLite prefer scanning the table in
    /// key order to searching an index on the filtered column; ``assemble(items:children:interpreter:)``
    /// sorts instead.
    public var itemStatement: String {
        let columns = ([mapping.primaryKey] + codec.columnNames).map { quoted(mapping.table) + "." + quoted($0) }
        return "SELECT " + columns.joined(separator: ", ") + " FROM " + quoted(mapping.table) + " WHERE "
            + translation.sql
    }

    /// The child rows of the kept items for one to-many key: foreign key, then the element columns.
    /// It uses the same parameters as ``itemStatement``.
    public func childStatement(_ key: String) -> String? {
        guard let child = mapping.children[key] else { return nil }
        let columns = ([child.foreignKey] + codec.childColumnNames(key)).map(quoted)
        return "SELECT " + columns.joined(separator: ", ") + " FROM " + quoted(child.table) + " WHERE "
            + quoted(child.foreignKey) + " IN (SELECT " + quoted(mapping.primaryKey) + " FROM " + quoted(mapping.table)
            + " WHERE " + translation.sql + ") ORDER BY " + quoted(child.foreignKey) + ", "
            + quoted(child.positionColumn)
    }

    /// Decodes the rows and re-checks the residual, if any, on each item.
    public func assemble(
        items rows: [[SQLValue]], children: [String: [[SQLValue]]], interpreter: Interpreter = Interpreter()
    ) -> QueryResult {
        var childRows: [Int64: [String: [[SQLValue]]]] = [:]
        for (key, list) in children {
            for row in list {
                guard case .integer(let owner) = row.first else { continue }
                childRows[owner, default: [:]][key, default: []].append(Array(row.dropFirst()))
            }
        }
        var keyed: [(id: Int64, row: [SQLValue])] = []
        for row in rows {
            guard case .integer(let id) = row.first else { continue }
            keyed.append((id, row))
        }
        keyed.sort { $0.id < $1.id }
        var items: [StoredItem] = []
        var errors: [RowError] = []
        for (id, row) in keyed {
            let item = codec.decode(Array(row.dropFirst()), children: childRows[id] ?? [:])
            guard let residual = translation.residual else {
                items.append(StoredItem(id: id, item: item))
                continue
            }
            do {
                if try interpreter.evaluate(residual, on: .dictionary(item)) {
                    items.append(StoredItem(id: id, item: item))
                }
            } catch {
                errors.append(RowError(id: id, error: error))
            }
        }
        return QueryResult(items: items, errors: errors, translation: translation, rowsFetched: rows.count)
    }
}
