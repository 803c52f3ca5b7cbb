import PredicatePostgres

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL server the tests use: `PREDICATE_POSTGRES` holds its libpq connection string
/// (`scripts/with-postgres` starts a throwaway one and sets it; `.ci/run` does so). Without it the
/// PostgreSQL tests are skipped, and say so.
enum PostgresServer {
    static let variable = "PREDICATE_POSTGRES"

    static var connectionString: String? { environment(variable) }

    /// An environment variable's value, `nil` when unset or empty.
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    static var isConfigured: Bool { connectionString != nil }

    /// A connection whose tables live in a schema of their own, dropped by ``drop(_:)``, so that
    /// tests running at once do not meet.
    static func connect(schema: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(connectionString ?? "")
        try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try connection.execute("CREATE SCHEMA \(schema)")
        try connection.execute("SET search_path TO \(schema)")
        return connection
    }

    static func drop(_ schema: String, on connection: PostgresConnection) {
        try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }
}
