import CLibPQ
import PredicateSQL

/// A failure reported by PostgreSQL or libpq.
public struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server's or libpq's message.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { "PostgreSQL: " + message }
}

/// One connection to a PostgreSQL server through libpq. Statements take their parameters
/// separately (`PQexecParams`), so a constant of a rule never becomes part of a statement's text.
/// Use it from one thread at a time.
public final class PostgresConnection {
    private let handle: OpaquePointer

    /// Connects with a libpq connection string (`host=/tmp/socket-dir dbname=postgres`).
    public init(_ connectionString: String) throws(PostgresError) {
        guard let connection = PQconnectdb(connectionString) else { throw PostgresError("out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(message.trimmingTrailingNewlines)
        }
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// Runs a statement that returns no rows.
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws(PostgresError) {
        _ = try query(sql, parameters)
    }

    /// Runs a statement and returns its rows: `bigint`/`integer`/`smallint` as integers, `double
    /// precision` as doubles, everything else as text.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(PostgresError) -> [[SQLValue]] {
        // A NUL would end the text libpq sends early (only a mapping's names could hold one);
        // parameters cannot hold one either, in PostgreSQL's text.
        guard !sql.utf8.contains(0) else { throw PostgresError("the statement holds NUL") }
        let texts: [String?] = parameters.map(Self.text)
        if texts.contains(where: { $0?.utf8.contains(0) ?? false }) {
            throw PostgresError("a parameter holds NUL, which PostgreSQL's text cannot")
        }
        let result = Self.withCStrings(texts) { pointers in
            PQexecParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        guard let result else { throw PostgresError(String(cString: PQerrorMessage(handle))) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            break
        default:
            throw PostgresError(String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines)
        }
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        var table: [[SQLValue]] = []
        table.reserveCapacity(Int(rows))
        for row in 0..<rows {
            var values: [SQLValue] = []
            for column in 0..<columns {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                    continue
                }
                let count = Int(PQgetlength(result, row, column))
                let text = PQgetvalue(result, row, column).map { pointer in
                    pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    }
                }
                values.append(Self.value(text ?? "", type: PQftype(result, column)))
            }
            table.append(values)
        }
        return table
    }

    /// A parameter in libpq's text format; doubles in their shortest exact spelling.
    private static func text(_ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
            return String(number)
        case .text(let text): return text
        }
    }

    private static func value(_ text: String, type: UInt32) -> SQLValue {
        switch type {
        case 20, 21, 23: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)
        default: return .text(text)
        }
    }

    /// Calls `body` with C copies of `strings` (`nil` stays a null pointer, libpq's `NULL`),
    /// which live until it returns.
    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { string in
            guard let string else { return nil }
            let bytes = Array(string.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            copy.initialize(from: bytes, count: bytes.count)
            return copy
        }
        defer { for copy in copies { copy?.deallocate() } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
