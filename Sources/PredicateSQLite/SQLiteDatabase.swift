import CSQLite
import PredicateSQL
import PredicateSemantics

/// A failure reported by SQLite, with its message.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's result code.
    public let code: Int32
    /// SQLite's message (for a failing function of this package, the evaluation error).
    public let message: String

    /// Creates an error.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The message with its code.
    public var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection with this package's functions registered (see
/// ``SQLiteDatabase/functionNames``), so that clauses translated for ``SQLDialect/sqlite`` run
/// with the language's semantics. Use it from one thread at a time.
public final class SQLiteDatabase {
    let handle: OpaquePointer

    /// Opens (or creates) the database at `path`; `":memory:"` for a private in-memory one.
    ///
    /// - Parameter environment: What the functions evaluate with (type table, limits): the
    ///   environment of the interpreter that re-checks residuals, so both answer alike.
    public init(
        path: String = ":memory:", environment: EvaluationEnvironment = EvaluationEnvironment()
    )
        throws(SQLiteError)
    {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard let opened else { throw SQLiteError(code: code, message: "cannot open \(path)") }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            sqlite3_close_v2(opened)
            throw SQLiteError(code: code, message: message)
        }
        handle = opened
        do {
            try FunctionContext.register(on: opened, environment: environment)
            try execute("PRAGMA foreign_keys = ON")
        } catch {
            sqlite3_close_v2(opened)
            throw error
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// The SQL functions this package registers on every connection.
    public static var functionNames: [String] { FunctionContext.names }

    /// Runs a statement that returns no rows.
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws(SQLiteError) {
        _ = try query(sql, parameters)
    }

    /// Runs a statement and returns its rows.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try forEachRow(sql, parameters) { row in rows.append(row) }
        return rows
    }

    /// Runs a statement, calling `body` with each row as it is read.
    public func forEachRow(
        _ sql: String, _ parameters: [SQLValue], _ body: ([SQLValue]) -> Void
    ) throws(SQLiteError) {
        // A NUL would end the text SQLite reads early (only a mapping's names could hold one).
        guard !sql.utf8.contains(0) else { throw SQLiteError(code: SQLITE_MISUSE, message: "the statement holds NUL") }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw error(code) }
        defer { sqlite3_finalize(statement) }
        for (index, parameter) in parameters.enumerated() {
            let position = Int32(index + 1)
            let bound: Int32
            switch parameter {
            case .null: bound = sqlite3_bind_null(statement, position)
            case .integer(let number): bound = sqlite3_bind_int64(statement, position, number)
            case .real(let number): bound = sqlite3_bind_double(statement, position, number)
            case .text(let text):
                // With its byte length, so text holding NUL is bound whole.
                var bytes = Array(text.utf8)
                let count = bytes.count
                bound = bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress.map { base in
                        base.withMemoryRebound(to: CChar.self, capacity: count) { chars in
                            sqlite3_bind_text(statement, position, chars, Int32(count), csqlite_transient())
                        }
                    } ?? sqlite3_bind_text(statement, position, "", 0, csqlite_transient())
                }
            }
            guard bound == SQLITE_OK else { throw error(bound) }
        }
        let columns = sqlite3_column_count(statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw error(step) }
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for column in 0..<columns { row.append(Self.value(statement, column)) }
            body(row)
        }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_NULL: return .null
        default:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        }
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}
