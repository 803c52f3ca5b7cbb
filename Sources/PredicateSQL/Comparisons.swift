import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension TranslationWalk {
    mutating func comparison(_ comparison: Comparison, _ scope: Scope) -> Outcome {
        if comparison.op == .tokenMatches { return .opaque(mayRaise: true) }
        var lhs = resolve(comparison.lhs, scope)
        var rhs = resolve(comparison.rhs, scope)
        var op = comparison.op
        if case .constant(let left) = lhs, case .constant(let right) = rhs {
            return constantComparison(comparison, left, right)
        }
        switch comparison.quantifier {
        case .any, .all:
            guard case .elements(let child, let column) = lhs, case .constant(let value) = rhs else {
                return .opaque(mayRaise: true)
            }
            return quantified(comparison.quantifier, child, column, op, comparison.options, value)
        case .direct:
            break
        }
        if case .constant = lhs, let flipped = op.flipped {
            swap(&lhs, &rhs)
            op = flipped
        }
        guard case .constant(let value) = rhs else { return .opaque(mayRaise: true) }
        switch lhs {
        case .column(let column):
            return scalar(column, op, comparison.options, value)
        case .json(let column, let key):
            return json(column, key, op, comparison.options, value)
        case .elements(let child, let column) where op == .contains:
            // Array membership ignores the options and compares with `isEqual` (SPEC §4.3.3).
            if value.isNil || value.isNull { return .exact(.alwaysFalse) }
            return quantified(.any, child, column, .equal, [], value)
        default:
            return .opaque(mayRaise: true)
        }
    }

    /// Two constants: decided now, as the interpreter would decide them on every row.
    private func constantComparison(_ comparison: Comparison, _ lhs: Value, _ rhs: Value) -> Outcome {
        do {
            let truth = try ComparisonOperators.evaluate(
                comparison.op, lhs, rhs, quantifier: comparison.quantifier, options: comparison.options,
                environment: environment)
            return .exact(truth ? .alwaysTrue : .alwaysFalse)
        } catch {
            return .opaque(mayRaise: true)
        }
    }

    /// `ANY` / `ALL` over a child table's column as `EXISTS` / `NOT EXISTS`. A missing value is a
    /// `null` element there, not nil: it equals nothing and cannot be ordered, so a nullable
    /// column only pushes down the comparisons that never raise on `null`.
    private mutating func quantified(
        _ quantifier: Quantifier, _ child: ChildTableMapping, _ column: ColumnMapping, _ op: ComparisonOperator,
        _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        let alias = nextAlias()
        let element = ColumnOperand(
            ref: SQLFragment(quoted(alias) + "." + quoted(column.column)), type: column.type,
            isNullable: column.isNullable)
        let condition: Outcome
        if column.isNullable {
            condition = nullableElement(element, op, options, value)
        } else {
            condition = scalar(element, op, options, value)
        }
        guard case .exact(let sql) = condition else { return .opaque(mayRaise: true) }
        // No element can satisfy a false condition, and every element satisfies a true one.
        if quantifier == .any && sql.isAlwaysFalse { return .exact(.alwaysFalse) }
        if quantifier == .all && sql.isAlwaysTrue { return .exact(.alwaysTrue) }
        switch quantifier {
        case .all:
            return .exact("(NOT EXISTS (SELECT 1 FROM " + childRows(child, alias: alias, where: .not(sql)) + "))")
        default:
            return .exact("EXISTS (SELECT 1 FROM " + childRows(child, alias: alias, where: sql) + ")")
        }
    }

    private mutating func nullableElement(
        _ element: ColumnOperand, _ op: ComparisonOperator, _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        if value.isNil || value.isNull {
            // `null == nil` is false and `null != nil` true: an element is never nil.
            return .exact(op == .notEqual ? .alwaysTrue : .alwaysFalse)
        }
        switch op {
        case .equal, .notEqual:
            return scalar(element, op, options, value)
        case .in:
            switch value {
            case .array(let members), .set(let members):
                // `null IN {nil, …}` is true: the literal's nil is a `null` member.
                if members.contains(where: \.isNull) { return .opaque(mayRaise: false) }
                return scalar(element, op, options, value)
            default:
                return .opaque(mayRaise: true)
            }
        default:
            return .opaque(mayRaise: true)
        }
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped, when there is one (`1 < x` is `x > 1`).
    var flipped: ComparisonOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .greater: return .less
        case .lessOrEqual: return .greaterOrEqual
        case .greaterOrEqual: return .lessOrEqual
        case .in: return .contains
        case .contains: return .in
        default: return nil
        }
    }
}
