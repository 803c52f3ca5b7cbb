import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Translates a rule into a parameterised `WHERE` clause over a ``TableMapping`` (see
/// ``SQLTranslation`` for what the clause guarantees).
///
/// The translation follows the language, not SQL: every condition it writes is two-valued (never
/// `NULL`), so `NOT` means what it means in the language; nil operands follow the interpreter's
/// rules (`x == nil` is `IS NULL`, `nil < 1` is false, `nil <= nil` is true). A comparison the
/// database cannot decide exactly, or that could raise an error on some row, is left to the
/// residual; so is everything after it in an `AND`, because the interpreter stops at the first
/// error and the database must not drop a row on which the rule would raise.
///
/// ```swift
/// let mapping = TableMapping(table: "items", columns: ["fileSize": ColumnMapping(column: "fileSize", type: .integer)])
/// let rule = try PredicateParser.parsePredicate("fileSize > 100").predicate
/// let clause = try SQLTranslator.translate(rule, mapping: mapping, dialect: .sqlite)
/// // clause.sql == #"("items"."fileSize" IS NOT NULL AND "items"."fileSize" > ?)"#, clause.parameters == [.integer(100)]
/// ```
public enum SQLTranslator {
    /// Translates `predicate`, bound or not (a bound key reads as its key).
    ///
    /// - Parameter environment: The type table and limits the residual will be evaluated with:
    ///   patterns are checked against them, so a pattern that would fail makes its comparison
    ///   part of the residual rather than a clause.
    /// - Throws: A ``TranslationError`` for a key path that starts with a key the mapping does
    ///   not have.
    public static func translate(
        _ predicate: PredicateNode, mapping: TableMapping, dialect: SQLDialect,
        environment: EvaluationEnvironment = EvaluationEnvironment()
    ) throws(TranslationError) -> SQLTranslation {
        try KeyCheck(mapping: mapping).check(.predicate(predicate))
        var walk = TranslationWalk(mapping: mapping, dialect: dialect, environment: environment)
        let result = walk.translate(predicate, Scope())
        let (sql, parameters) = result.sql.rendered(dialect)
        return SQLTranslation(
            dialect: dialect, sql: sql, parameters: parameters, residual: result.residual,
            functions: walk.functions.sorted(), comparisons: walk.comparisons)
    }
}

/// A sub-rule as the database sees it. Where ``sql`` is false the sub-rule is false and cannot
/// raise (the invariant every combination relies on); where it is true, the sub-rule's answer
/// is the ``residual``'s, or true when there is none.
struct Translated {
    var sql: SQLFragment
    var residual: PredicateNode?
    /// Whether evaluating the residual may raise an error on a row the clause keeps.
    var mayRaise: Bool

    static func exact(_ sql: SQLFragment) -> Translated { Translated(sql: sql, residual: nil, mayRaise: false) }

    static func opaque(_ node: PredicateNode, mayRaise: Bool) -> Translated {
        Translated(sql: .alwaysTrue, residual: node, mayRaise: mayRaise)
    }
}

/// How one comparison comes out, before it is tied to its node.
enum Outcome {
    case exact(SQLFragment)
    /// The database cannot decide it; `mayRaise` says whether the interpreter could raise on it.
    case opaque(mayRaise: Bool)

    var negated: Outcome {
        if case .exact(let sql) = self { return .exact(.not(sql)) }
        return self
    }
}

/// The variables a `SUBQUERY` binds, each to a row of a child table under an alias.
struct Scope {
    var variables: [String: (alias: String, child: ChildTableMapping)] = [:]
}

struct TranslationWalk {
    let mapping: TableMapping
    let dialect: SQLDialect
    let environment: EvaluationEnvironment
    var functions: Set<String> = []
    var comparisons: [ComparisonClassification] = []
    private var aliases = 0

    init(mapping: TableMapping, dialect: SQLDialect, environment: EvaluationEnvironment) {
        self.mapping = mapping
        self.dialect = dialect
        self.environment = environment
    }

    var itemTable: String { quoted(mapping.table) }

    /// The most comparisons one clause pushes down. SQLite plans a `WHERE` in time quadratic in
    /// its terms (seconds for 20,000); past this many, the interpreter's linear re-check of the
    /// rest is the faster way to the same answer. (An `OR` of equalities on one key counts once.)
    static let maximumPushedComparisons = 1_000
    private var pushedComparisons = 0

    mutating func nextAlias() -> String {
        aliases += 1
        return "c\(aliases)"
    }

    mutating func translate(_ node: PredicateNode, _ scope: Scope) -> Translated {
        switch node.kind {
        case .constant(let truth):
            return .exact(truth ? .alwaysTrue : .alwaysFalse)
        case .not(let operand):
            let inner = translate(operand, scope)
            // The negation of a superset is a subset: the whole negated subtree is re-checked.
            guard inner.residual == nil else { return .opaque(node, mayRaise: inner.mayRaise) }
            return .exact(.not(inner.sql))
        case .and(let operands):
            return conjunction(node, operands, scope)
        case .or(let operands):
            let parts = Self.groupingEqualities(operands).map { translate($0, scope) }
            let mayRaise = parts.contains(where: \.mayRaise)
            let sql = SQLFragment.any(parts.map(\.sql))
            guard parts.contains(where: { $0.residual != nil }) else { return .exact(sql) }
            return Translated(sql: sql, residual: node, mayRaise: mayRaise)
        case .comparison(let comparison):
            let inner = comparisons.count
            let outcome =
                pushedComparisons < Self.maximumPushedComparisons
                ? self.comparison(comparison, scope) : .opaque(mayRaise: true)
            if case .exact = outcome { pushedComparisons += 1 }
            let result: Translated
            switch outcome {
            case .exact(let sql): result = .exact(sql)
            case .opaque(let mayRaise): result = .opaque(node, mayRaise: mayRaise)
            }
            if result.residual != nil {
                // The comparisons of a SUBQUERY inside it are re-checked with it.
                comparisons[inner...] =
                    comparisons[inner...].map { ComparisonClassification(range: $0.range, isExact: false) }[...]
            }
            comparisons.append(ComparisonClassification(range: node.range, isExact: result.residual == nil))
            return result
        }
    }

    /// Operands are pushed down up to the first one that may raise: a row that an operand after
    /// it would drop may still be one the interpreter raises on.
    private mutating func conjunction(_ node: PredicateNode, _ operands: [PredicateNode], _ scope: Scope) -> Translated
    {
        var pushed: [SQLFragment] = []
        var residuals: [PredicateNode] = []
        for (index, operand) in operands.enumerated() {
            let part = translate(operand, scope)
            pushed.append(part.sql)
            guard let residual = part.residual else { continue }
            residuals.append(residual)
            if part.mayRaise {
                residuals += operands[(index + 1)...]
                return Translated(sql: .all(pushed), residual: conjoined(residuals, node), mayRaise: true)
            }
        }
        guard !residuals.isEmpty else { return .exact(.all(pushed)) }
        return Translated(sql: .all(pushed), residual: conjoined(residuals, node), mayRaise: false)
    }

    /// `x == 1 OR x == 2 OR …` as `x IN {1, 2, …}`, for the clause only: the two mean the same
    /// (`==` without options is `isEqual`, as membership is, and neither raises), and databases
    /// plan a long `IN` list in linear time where SQLite takes quadratic time over a long `OR`
    /// (seconds for 20,000 operands). The residual, if any, keeps the operands as written.
    static func groupingEqualities(_ operands: [PredicateNode]) -> [PredicateNode] {
        var groups: [(key: ExpressionNode, values: [Value], range: SourceRange)] = []
        var others: [PredicateNode] = []
        for operand in operands {
            guard case .comparison(let comparison) = operand.kind, comparison.quantifier == .direct,
                comparison.op == .equal, comparison.options.isEmpty, case .keyPath(let base, _) = comparison.lhs.kind,
                case .evaluatedObject = base.kind, case .constant(let value) = comparison.rhs.kind, !value.isNil,
                !value.isNull
            else {
                others.append(operand)
                continue
            }
            if let index = groups.firstIndex(where: { $0.key == comparison.lhs }) {
                groups[index].values.append(value)
            } else {
                groups.append((comparison.lhs, [value], operand.range))
            }
        }
        var result = others
        for group in groups {
            let op: ComparisonOperator = group.values.count == 1 ? .equal : .in
            let rhs = group.values.count == 1 ? group.values[0] : .array(group.values)
            result.append(
                PredicateNode(
                    .comparison(Comparison(group.key, op, ExpressionNode(.constant(rhs)))), range: group.range))
        }
        return result
    }

    private func conjoined(_ parts: [PredicateNode], _ node: PredicateNode) -> PredicateNode {
        parts.count == 1 ? parts[0] : PredicateNode(.and(parts), range: node.range)
    }
}

/// Rejects a key path that starts with a key the mapping does not store, wherever it is in the
/// rule, so that a misspelt key is reported at its place rather than silently read as nil.
struct KeyCheck {
    let mapping: TableMapping

    func check(_ node: SyntaxNode) throws(TranslationError) {
        if case .expression(let expression) = node, case .keyPath(let base, let components) = expression.kind,
            case .evaluatedObject = base.kind, let first = components.first?.key,
            mapping.columns[first] == nil, mapping.jsonColumns[first] == nil, mapping.children[first] == nil,
            mapping.columns[components.compactMap(\.key).joined(separator: ".")] == nil
        {
            throw TranslationError(
                "the key '\(first)' has no column, JSON column or child table in the mapping of '\(mapping.table)'",
                at: expression.range)
        }
        let children: [SyntaxNode]
        switch node {
        case .expression(let expression): children = expression.kind.children
        case .predicate(let predicate): children = predicate.kind.children
        }
        for child in children { try check(child) }
    }
}
