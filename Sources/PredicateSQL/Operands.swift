import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A scalar the database holds: a column, or a count the database computes.
struct ColumnOperand {
    var ref: SQLFragment
    var type: SQLColumnType
    var isNullable: Bool
}

/// What an operand of a comparison is, as far as the database is concerned.
enum Operand {
    case column(ColumnOperand)
    /// `dictionary.key` read from a JSON column.
    case json(column: SQLFragment, key: String)
    /// A to-many key itself (its elements are dictionaries).
    case collection(ChildTableMapping)
    /// `toMany.key`: the array of one column of the child rows (`null` where a row has none).
    case elements(ChildTableMapping, ColumnMapping)
    case constant(Value)
    /// Something the database cannot compute.
    case untranslatable
}

extension TranslationWalk {
    mutating func resolve(_ expression: ExpressionNode, _ scope: Scope) -> Operand {
        switch expression.kind {
        case .constant(let value):
            return .constant(value)
        case .aggregate(let elements):
            var values: [Value] = []
            for element in elements {
                // An aggregate literal holds `null` where an element is nil (SPEC §4.2.4).
                guard case .constant(let value) = element.kind else { return .untranslatable }
                values.append(value.isNil ? .null : value)
            }
            return .constant(.array(values))
        case .keyPath(let base, let components):
            var keys: [String] = []
            for component in components {
                guard let key = component.key else { return .untranslatable }
                keys.append(key)
            }
            switch base.kind {
            case .evaluatedObject:
                return itemPath(keys)
            case .variable(let name):
                guard let bound = scope.variables[name], keys.count == 1, let column = bound.child.columns[keys[0]]
                else { return .untranslatable }
                return .column(
                    ColumnOperand(
                        ref: SQLFragment(quoted(bound.alias) + "." + quoted(column.column)), type: column.type,
                        isNullable: column.isNullable))
            case .subquery(let collection, let variable, let predicate) where keys == ["@count"]:
                return subqueryCount(collection, variable, predicate, scope)
            default:
                return .untranslatable
            }
        case .index(let base, .size):
            if case .collection(let child) = resolve(base, scope) {
                return .column(count(child, where: .alwaysTrue, alias: nextAlias()))
            }
            return evaluatedNow(expression)
        default:
            return evaluatedNow(expression)
        }
    }

    /// An expression that reads neither the item nor a variable, and does not depend on when it
    /// runs, has one value for every row: computed here (`CAST(0, 'NSDate')`, `1024 * 1024`) and
    /// bound as a constant. One that fails would fail on every row, so it stays in the residual.
    private func evaluatedNow(_ expression: ExpressionNode) -> Operand {
        Self.closedValue(expression, environment: environment).map(Operand.constant) ?? .untranslatable
    }

    /// The one value of an expression that reads neither the item nor a variable, or `nil` when
    /// it does read them, depends on when it runs, or fails.
    static func closedValue(_ expression: ExpressionNode, environment: EvaluationEnvironment) -> Value? {
        guard isClosed(.expression(expression)) else { return nil }
        return try? Interpreter(environment: environment).evaluate(expression, on: .nil)
    }

    private static func isClosed(_ node: SyntaxNode) -> Bool {
        switch node {
        case .expression(let expression):
            switch expression.kind {
            case .evaluatedObject, .variable, .assignment, .anyKey, .subquery, .invoke: return false
            case .function(let name, _) where name == "now" || name == "random" || name == "randomn:": return false
            default: return expression.kind.children.allSatisfy(isClosed)
            }
        case .predicate(let predicate):
            return predicate.kind.children.allSatisfy(isClosed)
        }
    }

    private mutating func itemPath(_ keys: [String]) -> Operand {
        guard let first = keys.first else { return .untranslatable }
        // A to-one path flattened into the row (`parent.name` → `parent_name`).
        if keys.count > 1, let column = mapping.columns[keys.joined(separator: ".")] {
            return .column(
                ColumnOperand(
                    ref: SQLFragment(itemTable + "." + quoted(column.column)), type: column.type,
                    isNullable: column.isNullable))
        }
        if let column = mapping.columns[first] {
            guard keys.count == 1 else { return .untranslatable }
            return .column(
                ColumnOperand(
                    ref: SQLFragment(itemTable + "." + quoted(column.column)), type: column.type,
                    isNullable: column.isNullable))
        }
        if let column = mapping.jsonColumns[first] {
            guard keys.count == 2 else { return .untranslatable }
            return .json(column: SQLFragment(itemTable + "." + quoted(column)), key: keys[1])
        }
        if let child = mapping.children[first] {
            if keys.count == 1 { return .collection(child) }
            guard keys.count == 2 else { return .untranslatable }
            if keys[1] == "@count" { return .column(count(child, where: .alwaysTrue, alias: nextAlias())) }
            guard let column = child.columns[keys[1]] else { return .untranslatable }
            return .elements(child, column)
        }
        return .untranslatable
    }

    /// `SUBQUERY(toMany, $v, p).@count` as a correlated count, when `p` is exact.
    private mutating func subqueryCount(
        _ collection: ExpressionNode, _ variable: String, _ predicate: PredicateNode, _ scope: Scope
    ) -> Operand {
        guard case .collection(let child) = resolve(collection, scope) else { return .untranslatable }
        let alias = nextAlias()
        var inner = scope
        inner.variables[variable] = (alias, child)
        let condition = translate(predicate, inner)
        guard condition.residual == nil else { return .untranslatable }
        return .column(count(child, where: condition.sql, alias: alias))
    }

    /// The number of child rows of the item that satisfy `condition`: an integer, never `NULL`.
    func count(_ child: ChildTableMapping, where condition: SQLFragment, alias: String) -> ColumnOperand {
        let sql = "(SELECT COUNT(*) FROM " + childRows(child, alias: alias, where: condition) + ")"
        return ColumnOperand(ref: sql, type: .integer, isNullable: false)
    }

    /// `child AS alias WHERE alias.fk = item.pk AND condition`.
    func childRows(_ child: ChildTableMapping, alias: String, where condition: SQLFragment) -> SQLFragment {
        let link = SQLFragment(
            quoted(child.table) + " AS " + quoted(alias) + " WHERE " + quoted(alias) + "." + quoted(child.foreignKey)
                + " = " + itemTable + "." + quoted(mapping.primaryKey))
        return condition.isAlwaysTrue ? link : link + " AND " + condition
    }
}
