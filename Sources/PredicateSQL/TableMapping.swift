/// The SQL dialects a rule translates to.
public enum SQLDialect: String, Hashable, Sendable, CaseIterable {
    /// SQLite 3, with this package's functions registered (see `PredicateSQLite`).
    case sqlite
    /// PostgreSQL 15 or later.
    case postgres
}

/// How a key's values are stored in a column. The storage is chosen so that the database
/// compares values as the language does wherever a clause is marked exact.
public enum SQLColumnType: String, Hashable, Sendable, CaseIterable {
    /// A signed 64-bit integer (`INTEGER`, `bigint`).
    case integer
    /// A finite double (`REAL`, `double precision`); NaN cannot be stored, because SQLite turns
    /// it into `NULL` and PostgreSQL orders it above every number, the language below.
    case real
    /// A string (`TEXT`, `text COLLATE "C"`).
    case text
    /// A Boolean, stored as the integer 0 or 1 so that it compares with numbers as the language
    /// says (`TRUE == 1`).
    case boolean
    /// A date, stored as its seconds since the reference date (2001-01-01T00:00:00Z).
    case date
}

/// One key stored in a column.
public struct ColumnMapping: Hashable, Sendable {
    /// The column's name.
    public var column: String
    /// What the column holds.
    public var type: SQLColumnType
    /// Whether the column may hold `NULL` (the key may be missing). Quantified comparisons over a
    /// child table push down more when its columns are declared not null, because a missing
    /// element value is `null` there, which the ordering operators reject.
    public var isNullable: Bool

    /// Maps a key to `column` of `type`.
    public init(column: String, type: SQLColumnType, isNullable: Bool = true) {
        self.column = column
        self.type = type
        self.isNullable = isNullable
    }
}

/// A to-many key stored as rows of a child table that point back at their item.
public struct ChildTableMapping: Hashable, Sendable {
    /// The child table.
    public var table: String
    /// The column holding the item's primary key.
    public var foreignKey: String
    /// The column holding each element's position, so the elements read back in order.
    public var positionColumn: String
    /// The elements' keys and their columns.
    public var columns: [String: ColumnMapping]

    /// Maps a to-many key to `table`.
    public init(
        table: String, foreignKey: String = "item_id", positionColumn: String = "position",
        columns: [String: ColumnMapping]
    ) {
        self.table = table
        self.foreignKey = foreignKey
        self.positionColumn = positionColumn
        self.columns = columns
    }
}

/// Where an item's keys live: the item table's columns, JSON columns for dictionaries such as
/// `userInfo`, and child tables for to-many keys.
///
/// An item is a dictionary from these keys to values; a key path of a rule must start with one
/// of them.
public struct TableMapping: Hashable, Sendable {
    /// The item table.
    public var table: String
    /// The item table's integer primary key.
    public var primaryKey: String
    /// Scalar keys. A key may be a dotted path (`parent.name`) whose value the row holds
    /// flattened; such a mapping translates rules, but the item stores hold only plain keys.
    public var columns: [String: ColumnMapping]
    /// Dictionary keys stored as JSON text (SQLite) or `jsonb` (PostgreSQL): key → column.
    public var jsonColumns: [String: String]
    /// To-many keys stored in child tables.
    public var children: [String: ChildTableMapping]

    /// A mapping of the items in `table`.
    public init(
        table: String, primaryKey: String = "id", columns: [String: ColumnMapping] = [:],
        jsonColumns: [String: String] = [:], children: [String: ChildTableMapping] = [:]
    ) {
        self.table = table
        self.primaryKey = primaryKey
        self.columns = columns
        self.jsonColumns = jsonColumns
        self.children = children
    }

    /// A mapping of scalar keys only, each stored in a nullable column of the same name.
    public init(table: String, primaryKey: String = "id", columnTypes: [String: SQLColumnType]) {
        self.init(
            table: table, primaryKey: primaryKey,
            columns: columnTypes.mapValues { ColumnMapping(column: "", type: $0) })
        for key in columns.keys { columns[key]?.column = key }
    }
}
