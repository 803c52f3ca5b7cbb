/// A value bound to a statement's parameter: constants of a rule are always passed this way,
/// never written into the statement's text.
public enum SQLValue: Hashable, Sendable {
    /// `NULL`.
    case null
    /// An integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// Text.
    case text(String)
}

extension SQLValue: CustomStringConvertible {
    /// The value as a reader would write it: `NULL`, `42`, `1.5`, `'text'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}
