import PredicateValue

/// Why an item cannot be stored under a mapping.
public struct ItemEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the key.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// An item's row and its child rows, ready to bind.
public struct EncodedItem: Hashable, Sendable {
    /// The item table's columns, in ``ItemCodec/columnNames`` order after the primary key.
    public var values: [SQLValue]
    /// For each to-many key, in ``ItemCodec/childKeys`` order, one row per element, in
    /// ``ItemCodec/childColumnNames(_:)`` order after the foreign key and position.
    public var children: [[[SQLValue]]]
}

/// Items (dictionaries of the mapping's keys) to rows and back, and the tables that hold them.
///
/// Reading an item back gives the item stored, except that a missing to-many key reads as an
/// empty array and integers stored in a `real` column read as doubles (equal to the language).
public struct ItemCodec: Sendable {
    /// The mapping.
    public let mapping: TableMapping
    /// The scalar keys, in column order.
    public let scalarKeys: [String]
    /// The JSON keys, in column order after the scalar ones.
    public let jsonKeys: [String]
    /// The to-many keys.
    public let childKeys: [String]

    /// A codec for `mapping`.
    public init(mapping: TableMapping) {
        self.mapping = mapping
        scalarKeys = mapping.columns.keys.sorted()
        jsonKeys = mapping.jsonColumns.keys.sorted()
        childKeys = mapping.children.keys.sorted()
    }

    /// The item table's columns after the primary key.
    public var columnNames: [String] {
        scalarKeys.compactMap { mapping.columns[$0]?.column } + jsonKeys.compactMap { mapping.jsonColumns[$0] }
    }

    /// The element keys of a to-many key, in column order.
    public func childElementKeys(_ key: String) -> [String] {
        mapping.children[key]?.columns.keys.sorted() ?? []
    }

    /// The child table's value columns, after the foreign key and position.
    public func childColumnNames(_ key: String) -> [String] {
        childElementKeys(key).compactMap { mapping.children[key]?.columns[$0]?.column }
    }

    /// `CREATE TABLE` (and foreign-key index) statements for the mapping.
    public func createStatements(_ dialect: SQLDialect) -> [String] {
        var columns = [
            quoted(mapping.primaryKey) + (dialect == .sqlite ? " INTEGER PRIMARY KEY" : " bigint PRIMARY KEY")
        ]
        for key in scalarKeys {
            guard let column = mapping.columns[key] else { continue }
            columns.append(quoted(column.column) + " " + Self.sqlType(column, dialect))
        }
        for key in jsonKeys {
            guard let column = mapping.jsonColumns[key] else { continue }
            columns.append(quoted(column) + (dialect == .sqlite ? " TEXT" : " jsonb"))
        }
        let strict = dialect == .sqlite ? " STRICT" : ""
        var statements = [
            "CREATE TABLE " + quoted(mapping.table) + " (" + columns.joined(separator: ", ") + ")" + strict
        ]
        for key in childKeys {
            guard let child = mapping.children[key] else { continue }
            var childColumns = [
                quoted(child.foreignKey) + (dialect == .sqlite ? " INTEGER NOT NULL" : " bigint NOT NULL")
                    + " REFERENCES "
                    + quoted(mapping.table) + " ON DELETE CASCADE",
                quoted(child.positionColumn) + (dialect == .sqlite ? " INTEGER NOT NULL" : " bigint NOT NULL"),
            ]
            for elementKey in childElementKeys(key) {
                guard let column = child.columns[elementKey] else { continue }
                childColumns.append(quoted(column.column) + " " + Self.sqlType(column, dialect))
            }
            statements.append(
                "CREATE TABLE " + quoted(child.table) + " (" + childColumns.joined(separator: ", ") + ")" + strict)
            statements.append(
                "CREATE INDEX " + quoted(child.table + "_by_" + child.foreignKey) + " ON " + quoted(child.table) + " ("
                    + quoted(child.foreignKey) + ", " + quoted(child.positionColumn) + ")")
        }
        return statements
    }

    private static func sqlType(_ column: ColumnMapping, _ dialect: SQLDialect) -> String {
        let type: String
        switch (column.type, dialect) {
        case (.integer, .sqlite), (.boolean, .sqlite): type = "INTEGER"
        case (.real, .sqlite), (.date, .sqlite): type = "REAL"
        case (.text, .sqlite): type = "TEXT"
        case (.integer, .postgres), (.boolean, .postgres): type = "bigint"
        case (.real, .postgres), (.date, .postgres): type = "double precision"
        case (.text, .postgres): type = "text COLLATE \"C\""
        }
        return column.isNullable ? type : type + " NOT NULL"
    }

    /// The item's rows.
    ///
    /// - Throws: An ``ItemEncodingError`` for a key the mapping does not have, a value of the
    ///   wrong kind for its column, NaN, or (for PostgreSQL) text holding NUL.
    public func encode(_ item: [String: Value], for dialect: SQLDialect) throws(ItemEncodingError) -> EncodedItem {
        for key in item.keys
        where mapping.columns[key] == nil && mapping.jsonColumns[key] == nil && mapping.children[key] == nil {
            throw ItemEncodingError("the item has a key '\(key)' that the mapping of '\(mapping.table)' does not store")
        }
        var values: [SQLValue] = []
        for key in scalarKeys {
            guard let column = mapping.columns[key] else { continue }
            values.append(try Self.encode(item[key] ?? .nil, column, key: key, dialect))
        }
        for key in jsonKeys {
            switch item[key] ?? .nil {
            case .nil, .null:
                values.append(.null)
            case .dictionary(let entries):
                let text = JSON(.dictionary(entries)).serialized
                if dialect == .postgres && text.contains("\\u0000") {
                    throw ItemEncodingError("'\(key)' holds text with NUL, which PostgreSQL's jsonb cannot store")
                }
                values.append(.text(text))
            case let other:
                throw ItemEncodingError("'\(key)' must be a dictionary (it is stored as JSON), got \(other.kindName)")
            }
        }
        var children: [[[SQLValue]]] = []
        for key in childKeys {
            guard let child = mapping.children[key] else { continue }
            let elements: [Value]
            switch item[key] ?? .nil {
            case .nil, .null: elements = []
            case .array(let list): elements = list
            case let other:
                throw ItemEncodingError("'\(key)' must be an array (it is a child table), got \(other.kindName)")
            }
            var rows: [[SQLValue]] = []
            for (position, element) in elements.enumerated() {
                guard case .dictionary(let entries) = element else {
                    throw ItemEncodingError("each element of '\(key)' must be a dictionary, got \(element.kindName)")
                }
                for elementKey in entries.keys where child.columns[elementKey] == nil {
                    throw ItemEncodingError("an element of '\(key)' has a key '\(elementKey)' with no column")
                }
                var row: [SQLValue] = [.integer(Int64(position))]
                for elementKey in childElementKeys(key) {
                    guard let column = child.columns[elementKey] else { continue }
                    row.append(
                        try Self.encode(entries[elementKey] ?? .nil, column, key: key + "." + elementKey, dialect))
                }
                rows.append(row)
            }
            children.append(rows)
        }
        return EncodedItem(values: values, children: children)
    }

    private static func encode(
        _ value: Value, _ column: ColumnMapping, key: String, _ dialect: SQLDialect
    ) throws(ItemEncodingError) -> SQLValue {
        func mismatch() -> ItemEncodingError {
            ItemEncodingError("'\(key)' is stored as \(column.type.rawValue), got \(value.kindName)")
        }
        switch (column.type, value) {
        case (_, .nil), (_, .null):
            guard column.isNullable else { throw ItemEncodingError("'\(key)' is declared not null but is missing") }
            return .null
        case (.integer, .int(let number)): return .integer(number)
        case (.integer, .uint(let number)):
            guard let number = Int64(exactly: number) else { throw mismatch() }
            return .integer(number)
        case (.boolean, .bool(let flag)): return .integer(flag ? 1 : 0)
        case (.real, .double(let number)), (.date, .date(let number)):
            guard !number.isNaN else {
                throw ItemEncodingError(
                    "'\(key)' is NaN, which the database cannot store and order as the language does")
            }
            return .real(number)
        case (.real, .int(let number)):
            guard let double = Double(exactly: number) else { throw mismatch() }
            return .real(double)
        case (.text, .string(let text)):
            if dialect == .postgres && text.utf8.contains(0) {
                throw ItemEncodingError("'\(key)' holds text with NUL, which PostgreSQL's text cannot store")
            }
            return .text(text)
        default:
            throw mismatch()
        }
    }

    /// The item read back from its row (after the primary key) and its child rows (after the
    /// foreign key and position, in order).
    public func decode(_ row: [SQLValue], children: [String: [[SQLValue]]]) -> [String: Value] {
        var item: [String: Value] = [:]
        var index = 0
        for key in scalarKeys {
            guard let column = mapping.columns[key], index < row.count else { continue }
            let value = Self.decode(row[index], column.type)
            if !value.isNil { item[key] = value }
            index += 1
        }
        for key in jsonKeys {
            guard index < row.count else { continue }
            if case .text(let text) = row[index], let json = try? JSON.parse(text),
                let value = try? Value(json: json)
            {
                item[key] = value
            }
            index += 1
        }
        for key in childKeys {
            guard let child = mapping.children[key] else { continue }
            let elementKeys = childElementKeys(key)
            item[key] = .array(
                (children[key] ?? []).map { cells in
                    var element: [String: Value] = [:]
                    for (offset, elementKey) in elementKeys.enumerated() where offset < cells.count {
                        guard let column = child.columns[elementKey] else { continue }
                        let value = Self.decode(cells[offset], column.type)
                        if !value.isNil { element[elementKey] = value }
                    }
                    return .dictionary(element)
                })
        }
        return item
    }

    private static func decode(_ value: SQLValue, _ type: SQLColumnType) -> Value {
        switch (type, value) {
        case (_, .null): return .nil
        case (.integer, .integer(let number)): return .int(number)
        case (.boolean, .integer(let number)): return .bool(number != 0)
        case (.real, .real(let number)): return .double(number)
        case (.real, .integer(let number)): return .double(Double(number))
        case (.date, .real(let number)): return .date(secondsSinceReferenceDate: number)
        case (.date, .integer(let number)): return .date(secondsSinceReferenceDate: Double(number))
        case (.text, .text(let text)): return .string(text)
        default: return .nil
        }
    }
}
