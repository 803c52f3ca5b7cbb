import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension TableMapping {
    /// The mapping a rule implies when none is given: every key path a column of the same name
    /// with dots as `_` (`parent.name` → `parent_name`), typed from the constants it is compared
    /// with, or with the value of an expression that reads neither the item nor a variable (text
    /// when nothing says otherwise), and `userInfo.key` a key of the JSON column
    /// `userInfo`.
    public static func inferred(for rule: PredicateNode, table: String = "items") -> TableMapping {
        var mapping = TableMapping(table: table)
        var inference = Inference()
        inference.visit(.predicate(rule))
        for (path, type) in inference.paths {
            guard let first = path.first else { continue }
            if first == "userInfo" && path.count > 1 {
                mapping.jsonColumns[first] = first
            } else {
                mapping.columns[path.joined(separator: ".")] = ColumnMapping(
                    column: path.joined(separator: "_"), type: type ?? .text)
            }
        }
        return mapping
    }

    private struct Inference {
        /// Each key path in first-seen order, with the type its first typed use gives it.
        var paths: [([String], SQLColumnType?)] = []

        mutating func visit(_ node: SyntaxNode) {
            switch node {
            case .predicate(let predicate):
                if case .comparison(let comparison) = predicate.kind {
                    note(comparison.lhs, comparedWith: comparison.rhs)
                    note(comparison.rhs, comparedWith: comparison.lhs)
                }
                for child in predicate.kind.children { visit(child) }
            case .expression(let expression):
                if case .keyPath(let base, let components) = expression.kind, case .evaluatedObject = base.kind {
                    let (keys, _) = Self.storedKeys(components)
                    if !keys.isEmpty { add(keys, nil) }
                }
                for child in expression.kind.children { visit(child) }
            }
        }

        mutating func note(_ operand: ExpressionNode, comparedWith other: ExpressionNode) {
            guard case .keyPath(let base, let components) = operand.kind, case .evaluatedObject = base.kind else {
                return
            }
            let (keys, whole) = Self.storedKeys(components)
            guard whole else { return }
            var constant: Value?
            switch other.kind {
            case .constant(let value): constant = value
            case .aggregate(let elements):
                if case .constant(let value) = elements.first?.kind { constant = value }
            default:
                // `1024 * 1024`, `CAST(0, 'NSDate')`: the value the translator will bind.
                constant = TranslationWalk.closedValue(other, environment: EvaluationEnvironment())
            }
            if case .array(let elements) = constant { constant = elements.first }
            add(keys, constant.flatMap(Self.type))
        }

        /// The keys of a path that name stored values: up to the first that is not a plain key
        /// (an index, or an operator such as `@count`, which is computed from the value, not
        /// stored beside it); `whole` when that is the entire path.
        static func storedKeys(_ components: [KeyComponent]) -> (keys: [String], whole: Bool) {
            var keys: [String] = []
            for component in components {
                guard let key = component.key, !key.hasPrefix("@") else { return (keys, false) }
                keys.append(key)
            }
            return (keys, true)
        }

        mutating func add(_ keys: [String], _ type: SQLColumnType?) {
            if let index = paths.firstIndex(where: { $0.0 == keys }) {
                if paths[index].1 == nil { paths[index].1 = type }
            } else {
                paths.append((keys, type))
            }
        }

        static func type(_ value: Value) -> SQLColumnType? {
            switch value {
            case .bool: return .boolean
            case .int, .uint: return .integer
            case .double, .decimal: return .real
            case .string: return .text
            case .date: return .date
            default: return nil
            }
        }
    }
}
