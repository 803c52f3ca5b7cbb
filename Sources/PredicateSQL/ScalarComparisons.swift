import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The kinds of value the language compares with one another.
enum ValueKind {
    case number, text, date, other

    init(_ type: SQLColumnType) {
        switch type {
        case .integer, .real, .boolean: self = .number
        case .text: self = .text
        case .date: self = .date
        }
    }

    init(_ value: Value) {
        switch value {
        case .bool, .int, .uint, .double, .decimal: self = .number
        case .string: self = .text
        case .date: self = .date
        default: self = .other
        }
    }
}

extension TranslationWalk {
    /// `column op[options] constant`, with the interpreter's nil rules (SPEC §4.3.3).
    mutating func scalar(
        _ column: ColumnOperand, _ op: ComparisonOperator, _ options: ComparisonOptions, _ constant: Value
    ) -> Outcome {
        let value = constant.isNull ? Value.nil : constant
        if value.isNil {
            switch op {
            case .equal, .lessOrEqual, .greaterOrEqual: return .exact(isNull(column))
            case .notEqual: return .exact(.not(isNull(column)))
            case .tokenMatches: return .opaque(mayRaise: true)
            default: return .exact(.alwaysFalse)
            }
        }
        switch op {
        case .equal: return equality(column, options, value)
        case .notEqual: return equality(column, options, value).negated
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return ordering(column, op, options, value)
        case .between: return between(column, value)
        case .in: return membership(column, in: value, options)
        case .contains, .beginsWith, .endsWith, .like, .matches, .utiConformsTo, .utiEquals:
            return stringOperator(column, op, options, value)
        case .tokenMatches: return .opaque(mayRaise: true)
        }
    }

    func isNull(_ column: ColumnOperand) -> SQLFragment {
        column.isNullable ? "(" + column.ref + " IS NULL)" : .alwaysFalse
    }

    /// `condition` where the column has a value, false where it is nil.
    func guarded(_ column: ColumnOperand, _ condition: SQLFragment) -> SQLFragment {
        guard column.isNullable else { return condition }
        if condition.isAlwaysFalse { return .alwaysFalse }
        if condition.isAlwaysTrue { return "(" + column.ref + " IS NOT NULL)" }
        return "(" + column.ref + " IS NOT NULL AND " + condition + ")"
    }

    /// A text parameter, or `nil` where the database cannot hold the text (PostgreSQL's `text`
    /// has no NUL), so no stored value can equal it and the comparison is left to the residual.
    func text(_ string: String) -> SQLFragment? {
        if dialect == .postgres && string.utf8.contains(0) { return nil }
        return .parameter(.text(string))
    }

    /// Whether `[cd]` fold the strings (SPEC §4.5.1): `n` wins, and other options do not fold.
    static func folds(_ options: ComparisonOptions) -> Bool {
        !options.contains(.normalized)
            && (options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive))
    }

    /// A call of one of this package's SQLite functions (registered by `PredicateSQLite`).
    mutating func call(_ function: String, _ arguments: [SQLFragment]) -> SQLFragment {
        functions.insert(function)
        return function + "(" + SQLFragment.joined(arguments, separator: ", ") + ")"
    }

    private mutating func equality(
        _ column: ColumnOperand, _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        switch (ValueKind(column.type), ValueKind(value)) {
        case (.number, .number), (.date, .date):
            switch NumericParameter.equality(value, column: column.type, dialect: dialect) {
            case .value(let parameter): return .exact(guarded(column, column.ref + " = " + .parameter(parameter)))
            case .never: return .exact(.alwaysFalse)
            case nil: return .opaque(mayRaise: false)
            }
        case (.text, .text):
            guard case .string(let string) = value, let parameter = text(string) else {
                return .opaque(mayRaise: false)
            }
            if options.isEmpty { return .exact(guarded(column, column.ref + " = " + parameter)) }
            switch dialect {
            case .sqlite:
                let test = call("pvm_equal", [column.ref, parameter, SQLFragment("\(options.rawValue)")])
                return .exact(guarded(column, test))
            case .postgres:
                guard !Self.folds(options) else { return .opaque(mayRaise: false) }
                return .exact(guarded(column, column.ref + " = " + parameter))
            }
        default:
            // Values of different kinds are never equal (SPEC §4.4.1).
            return .exact(.alwaysFalse)
        }
    }

    mutating func ordering(
        _ column: ColumnOperand, _ op: ComparisonOperator, _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        switch (ValueKind(column.type), ValueKind(value)) {
        case (.number, .number), (.date, .date):
            switch NumericParameter.ordering(op, value, column: column.type, dialect: dialect) {
            case .compare(let op, let parameter):
                return .exact(guarded(column, column.ref + " \(op.rawValue) " + .parameter(parameter)))
            case .always(let truth):
                return .exact(guarded(column, truth ? .alwaysTrue : .alwaysFalse))
            case nil:
                return .opaque(mayRaise: false)
            }
        case (.text, .text):
            // Strings order by UTF-16 code unit after decomposition; neither database's collation
            // does, so SQLite asks this package and PostgreSQL leaves it to the residual.
            guard dialect == .sqlite, case .string(let string) = value, let parameter = text(string) else {
                return .opaque(mayRaise: false)
            }
            let order = call("pvm_compare", [column.ref, parameter, SQLFragment("\(options.rawValue)")])
            return .exact(guarded(column, order + " \(op.rawValue) 0"))
        default:
            // Incomparable kinds raise on every row with a value.
            return .opaque(mayRaise: true)
        }
    }

    private mutating func between(_ column: ColumnOperand, _ range: Value) -> Outcome {
        guard case .array(let bounds) = range, bounds.count == 2, !bounds[0].isNull, !bounds[1].isNull else {
            return .opaque(mayRaise: true)
        }
        var low = bounds[0]
        var high = bounds[1]
        do {
            if try ValueComparison.compare(low, high) == .descending { swap(&low, &high) }
        } catch {
            return .opaque(mayRaise: true)
        }
        // BETWEEN ignores the options (SPEC §4.6.1).
        guard case .exact(let above) = ordering(column, .greaterOrEqual, [], low),
            case .exact(let below) = ordering(column, .lessOrEqual, [], high)
        else { return .opaque(mayRaise: true) }
        return .exact(.all([above, below]))
    }

    /// `column IN container`.
    private mutating func membership(
        _ column: ColumnOperand, in container: Value, _ options: ComparisonOptions
    ) -> Outcome {
        let members: [Value]
        switch container {
        case .array(let elements), .set(let elements): members = elements
        case .dictionary(let entries): members = Array(entries.values)
        case .string(let haystack):
            guard column.type == .text else { return .opaque(mayRaise: true) }
            return substring(column, haystack: haystack, options)
        default:
            return .opaque(mayRaise: true)
        }
        // Membership compares with `isEqual`, options ignored (SPEC §4.3.3).
        var parameters: [SQLFragment] = []
        for member in members where ValueKind(member) == ValueKind(column.type) && ValueKind(member) != .other {
            if case .string(let string) = member {
                guard let parameter = text(string) else { return .opaque(mayRaise: false) }
                parameters.append(parameter)
                continue
            }
            switch NumericParameter.equality(member, column: column.type, dialect: dialect) {
            case .value(let parameter): parameters.append(.parameter(parameter))
            case .never: continue
            case nil: return .opaque(mayRaise: false)
            }
        }
        if parameters.isEmpty { return .exact(.alwaysFalse) }
        return .exact(guarded(column, column.ref + " IN (" + SQLFragment.joined(parameters, separator: ", ") + ")"))
    }

    /// `column IN 'haystack'`: the column's text is the needle.
    private mutating func substring(
        _ column: ColumnOperand, haystack: String, _ options: ComparisonOptions
    ) -> Outcome {
        guard let parameter = text(haystack) else { return .opaque(mayRaise: false) }
        switch dialect {
        case .sqlite:
            return .exact(
                guarded(column, call("pvm_contains", [parameter, column.ref, SQLFragment("\(options.rawValue)")])))
        case .postgres:
            guard !Self.folds(options) else { return .opaque(mayRaise: false) }
            // An empty needle is never found.
            return .exact(
                guarded(column, "(" + column.ref + " <> '' AND strpos(" + parameter + ", " + column.ref + ") > 0)"))
        }
    }

    private mutating func stringOperator(
        _ column: ColumnOperand, _ op: ComparisonOperator, _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        guard column.type == .text, case .string(let string) = value else { return .opaque(mayRaise: true) }
        let optionBits = SQLFragment("\(options.rawValue)")
        switch op {
        case .like, .matches:
            // An empty pattern is false without matching; a pattern that fails to compile or is
            // too long raises on every row with a value, so it stays in the residual.
            if string.isEmpty { return .exact(.alwaysFalse) }
            do {
                guard string.utf8.count <= environment.limits.maximumPatternLength else {
                    return .opaque(mayRaise: true)
                }
                if op == .like {
                    _ = try environment.patterns.like(string, options: options)
                } else {
                    _ = try environment.patterns.regularExpression(string, options: options)
                }
            } catch {
                return .opaque(mayRaise: true)
            }
            guard dialect == .sqlite, let parameter = text(string) else { return .opaque(mayRaise: true) }
            return .exact(
                guarded(column, call(op == .like ? "pvm_like" : "pvm_matches", [column.ref, parameter, optionBits])))
        case .utiConformsTo, .utiEquals:
            guard let parameter = text(string) else { return .opaque(mayRaise: false) }
            switch dialect {
            case .sqlite:
                let name = op == .utiEquals ? "pvm_uti_equals" : "pvm_uti_conforms_to"
                return .exact(guarded(column, call(name, [column.ref, parameter])))
            case .postgres:
                return utiOnPostgres(column, op, string, parameter)
            }
        default:
            // CONTAINS, BEGINSWITH, ENDSWITH; an empty needle is never found.
            if string.isEmpty { return .exact(.alwaysFalse) }
            guard let parameter = text(string) else { return .opaque(mayRaise: false) }
            switch dialect {
            case .sqlite:
                let name = op == .contains ? "pvm_contains" : op == .beginsWith ? "pvm_begins_with" : "pvm_ends_with"
                return .exact(guarded(column, call(name, [column.ref, parameter, optionBits])))
            case .postgres:
                guard !Self.folds(options) else { return .opaque(mayRaise: false) }
                let test: SQLFragment
                switch op {
                case .contains: test = "strpos(" + column.ref + ", " + parameter + ") > 0"
                case .beginsWith: test = "starts_with(" + column.ref + ", " + parameter + ")"
                default: test = "right(" + column.ref + ", length(" + parameter + ")) = " + parameter
                }
                return .exact(guarded(column, test))
            }
        }
    }
}
