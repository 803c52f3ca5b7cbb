import PredicateValue

/// Why a mapping file cannot be read.
public struct MappingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, with where (`$.columns.size.type`).
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension TableMapping {
    /// Reads a mapping written as JSON (`predicate sql --mapping FILE`):
    ///
    /// ```json
    /// {"table": "items", "primaryKey": "id",
    ///  "columns": {"documentSize": {"column": "size", "type": "integer", "nullable": true}},
    ///  "json": {"userInfo": "user_info"},
    ///  "children": {"tags": {"table": "tags", "foreignKey": "item_id", "position": "position",
    ///                        "columns": {"label": {"column": "label", "type": "text"}}}}}
    /// ```
    ///
    /// Types are `integer`, `real`, `text`, `boolean`, `date`; only `table` is required.
    public init(json: JSON) throws(MappingError) {
        guard case .object = json else { throw MappingError("$: a mapping must be a JSON object") }
        let table = try Self.string(json, "table", at: "$")
        let primaryKey =
            try json["primaryKey"].map { (value: JSON) throws(MappingError) in try Self.text(value, "$.primaryKey") }
            ?? "id"
        let columns = try Self.columns(json["columns"], at: "$.columns")
        var jsonColumns: [String: String] = [:]
        for (key, value) in try Self.members(json["json"], at: "$.json") {
            jsonColumns[key] = try Self.text(value, "$.json.\(key)")
        }
        var children: [String: ChildTableMapping] = [:]
        for (key, value) in try Self.members(json["children"], at: "$.children") {
            let path = "$.children.\(key)"
            children[key] = ChildTableMapping(
                table: try Self.string(value, "table", at: path),
                foreignKey: try value["foreignKey"].map { (name: JSON) throws(MappingError) in
                    try Self.text(name, path + ".foreignKey")
                } ?? "item_id",
                positionColumn: try value["position"].map { (name: JSON) throws(MappingError) in
                    try Self.text(name, path + ".position")
                } ?? "position",
                columns: try Self.columns(value["columns"], at: path + ".columns"))
        }
        self.init(table: table, primaryKey: primaryKey, columns: columns, jsonColumns: jsonColumns, children: children)
    }

    private static func columns(_ json: JSON?, at path: String) throws(MappingError) -> [String: ColumnMapping] {
        var columns: [String: ColumnMapping] = [:]
        for (key, value) in try members(json, at: path) {
            let here = path + "." + key
            let typeName = try string(value, "type", at: here)
            guard let type = SQLColumnType(rawValue: typeName) else {
                let known = SQLColumnType.allCases.map(\.rawValue).joined(separator: ", ")
                throw MappingError("\(here).type: unknown type '\(typeName)' (one of \(known))")
            }
            var nullable = true
            if let flag = value["nullable"] {
                guard case .bool(let given) = flag else {
                    throw MappingError("\(here).nullable: must be true or false")
                }
                nullable = given
            }
            let column =
                try value["column"].map { (name: JSON) throws(MappingError) in try text(name, here + ".column") } ?? key
            columns[key] = ColumnMapping(column: column, type: type, isNullable: nullable)
        }
        return columns
    }

    private static func members(_ json: JSON?, at path: String) throws(MappingError) -> [(key: String, value: JSON)] {
        guard let json else { return [] }
        guard case .object(let members) = json else { throw MappingError("\(path): must be a JSON object") }
        return members
    }

    private static func string(_ json: JSON, _ key: String, at path: String) throws(MappingError) -> String {
        guard let value = json[key] else { throw MappingError("\(path).\(key): missing") }
        return try text(value, path + "." + key)
    }

    private static func text(_ json: JSON, _ path: String) throws(MappingError) -> String {
        guard case .string(let text) = json, !text.isEmpty, !text.utf8.contains(0) else {
            throw MappingError("\(path): must be a non-empty string")
        }
        return text
    }
}
