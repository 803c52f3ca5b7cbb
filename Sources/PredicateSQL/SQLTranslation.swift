import PredicateSyntax

/// A rule translated for a database: a `WHERE` clause whose parameters are bound separately,
/// and what the database could not decide.
///
/// The clause keeps every row the rule is true of, and every row on which evaluating the rule
/// raises an error; a row it drops is one the rule is false of. When ``residual`` is `nil` the
/// clause is **exact**: the rows it keeps are precisely those the rule is true of, and no row can
/// raise. Otherwise it is a **superset**, and each row it keeps must be re-checked by evaluating
/// ``residual`` on the item (an interpreter or the VM); the rule's answer on that row is the
/// residual's, errors included.
public struct SQLTranslation: Sendable {
    /// The dialect the clause is written in.
    public let dialect: SQLDialect
    /// The `WHERE` clause, with placeholders (`?` for SQLite, numbered by position, `$1::type` for PostgreSQL).
    public let sql: String
    /// The values of the placeholders, in order.
    public let parameters: [SQLValue]
    /// What each kept row must still satisfy, or `nil` when the clause is exact.
    public let residual: PredicateNode?
    /// The names of this package's SQLite functions the clause calls (see `PredicateSQLite`).
    public let functions: [String]
    /// Each comparison of the rule, with whether the database decides it exactly.
    public let comparisons: [ComparisonClassification]

    /// Whether the clause alone gives the rule's answer on every row.
    public var isExact: Bool { residual == nil }
}

/// Whether one comparison of a rule pushes down exactly (for `--explain`-style reports).
public struct ComparisonClassification: Hashable, Sendable {
    /// The comparison's place in the rule's source.
    public let range: SourceRange
    /// Whether the database decides it exactly.
    public let isExact: Bool

    /// Classifies the comparison at `range`.
    public init(range: SourceRange, isExact: Bool) {
        self.range = range
        self.isExact = isExact
    }
}
