/// SQL under construction: text and the parameters it refers to, in order of appearance. The
/// placeholders are only numbered when the whole clause is rendered, so fragments compose
/// freely and a parameter can never be confused with text.
struct SQLFragment: Sendable {
    enum Piece: Sendable {
        case text(String)
        case parameter(SQLValue)
    }

    private(set) var pieces: [Piece]

    init(_ text: String) { pieces = [.text(text)] }

    private init(pieces: [Piece]) { self.pieces = pieces }

    static let alwaysTrue = SQLFragment("TRUE")
    static let alwaysFalse = SQLFragment("FALSE")

    static func parameter(_ value: SQLValue) -> SQLFragment { SQLFragment(pieces: [.parameter(value)]) }

    /// Whether the fragment is the literal `TRUE` (so that `AND` and `OR` can drop or absorb it).
    var isAlwaysTrue: Bool {
        if pieces.count == 1, case .text("TRUE") = pieces[0] { return true }
        return false
    }

    var isAlwaysFalse: Bool {
        if pieces.count == 1, case .text("FALSE") = pieces[0] { return true }
        return false
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(pieces: lhs.pieces + rhs.pieces)
    }

    static func + (lhs: SQLFragment, rhs: String) -> SQLFragment { lhs + SQLFragment(rhs) }

    static func + (lhs: String, rhs: SQLFragment) -> SQLFragment { SQLFragment(lhs) + rhs }

    /// `parts` joined by `separator`.
    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment(pieces: [])
        for (index, part) in parts.enumerated() {
            if index > 0 { result.pieces.append(.text(separator)) }
            result.pieces += part.pieces
        }
        return result
    }

    /// Every part must hold; `TRUE` parts drop out and a `FALSE` part decides.
    static func all(_ parts: [SQLFragment]) -> SQLFragment {
        if parts.contains(where: \.isAlwaysFalse) { return .alwaysFalse }
        let kept = parts.filter { !$0.isAlwaysTrue }
        if kept.isEmpty { return .alwaysTrue }
        return balanced(kept[...], separator: " AND ")
    }

    /// Some part must hold; `FALSE` parts drop out and a `TRUE` part decides.
    static func any(_ parts: [SQLFragment]) -> SQLFragment {
        if parts.contains(where: \.isAlwaysTrue) { return .alwaysTrue }
        let kept = parts.filter { !$0.isAlwaysFalse }
        if kept.isEmpty { return .alwaysFalse }
        return balanced(kept[...], separator: " OR ")
    }

    /// `parts` joined, in nested groups of at most 16, so that a rule with thousands of operands
    /// stays within the database's expression depth (SQLite allows 1,000): a flat chain of `n`
    /// operands parses `n` deep, the groups about 16 per level of log₁₆(n).
    private static func balanced(_ parts: ArraySlice<SQLFragment>, separator: String) -> SQLFragment {
        if parts.count == 1, let only = parts.first { return only }
        guard parts.count > 16 else { return "(" + joined(Array(parts), separator: separator) + ")" }
        let size = (parts.count + 15) / 16
        var groups: [SQLFragment] = []
        var start = parts.startIndex
        while start < parts.endIndex {
            let end = min(start + size, parts.endIndex)
            groups.append(balanced(parts[start..<end], separator: separator))
            start = end
        }
        return "(" + joined(groups, separator: separator) + ")"
    }

    /// The negation; only correct for a fragment that is never `NULL`, which every condition the
    /// translator builds guarantees.
    static func not(_ part: SQLFragment) -> SQLFragment {
        if part.isAlwaysTrue { return .alwaysFalse }
        if part.isAlwaysFalse { return .alwaysTrue }
        return "(NOT " + part + ")"
    }

    /// The text with numbered placeholders and the parameters in their order.
    func rendered(_ dialect: SQLDialect) -> (sql: String, parameters: [SQLValue]) {
        var sql = ""
        var parameters: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .text(let text):
                sql += text
            case .parameter(let value):
                parameters.append(value)
                switch dialect {
                case .sqlite:
                    // Anonymous placeholders, numbered by position: SQLite resolves `?NNN` with a
                    // linear search, quadratic over a clause with thousands of parameters.
                    sql += "?"
                case .postgres:
                    // The cast depends on the value's kind only, never its content: PostgreSQL
                    // needs a type for each parameter, and the text must not vary with the data.
                    sql += "$\(parameters.count)::" + SQLFragment.postgresType(of: value)
                }
            }
        }
        return (sql, parameters)
    }

    private static func postgresType(of value: SQLValue) -> String {
        switch value {
        case .null, .text: return "text"
        case .integer: return "bigint"
        case .real: return "double precision"
        }
    }
}

/// An identifier quoted for SQL (`"name"`, inner quotes doubled): mapping names are the
/// caller's, and quoting them keeps any spelling from being read as SQL.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
