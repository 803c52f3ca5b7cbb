import PredicateSyntax
import PredicateValue

extension TranslationWalk {
    /// `dictionary.key op constant` on a JSON column. A value's kind varies from row to row, so
    /// only `==` and `!=` (which never raise) push down, guarded by the JSON type: `'1' == 1` is
    /// false in the language, as is a JSON array's text against a string.
    mutating func json(
        _ column: SQLFragment, _ key: String, _ op: ComparisonOperator, _ options: ComparisonOptions,
        _ constant: Value
    ) -> Outcome {
        let neverRaises = op == .equal || op == .notEqual
        // SQLite's path syntax needs the key quoted; keep to keys that need no escaping there.
        guard !key.isEmpty, key.utf8.allSatisfy(Self.isPlainKeyByte) else { return .opaque(mayRaise: !neverRaises) }
        let value = constant.isNull ? Value.nil : constant
        if value.isNil {
            switch op {
            case .equal, .lessOrEqual, .greaterOrEqual: return .exact(jsonType(column, key) + " = 'null'")
            case .notEqual: return .exact(.not(jsonType(column, key) + " = 'null'"))
            case .tokenMatches: return .opaque(mayRaise: true)
            default: return .exact(.alwaysFalse)
            }
        }
        switch op {
        case .equal: return jsonEquality(column, key, options, value)
        case .notEqual: return jsonEquality(column, key, options, value).negated
        default: return .opaque(mayRaise: true)
        }
    }

    private static func isPlainKeyByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// The JSON type of the value at `key`, `'null'` when the key or the whole dictionary is
    /// missing (both read as nil).
    private func jsonType(_ column: SQLFragment, _ key: String) -> SQLFragment {
        switch dialect {
        case .sqlite:
            return "COALESCE(json_type(" + column + ", " + .parameter(.text("$.\"" + key + "\"")) + "), 'null')"
        case .postgres:
            return "COALESCE(jsonb_typeof(" + column + " -> " + .parameter(.text(key)) + "), 'null')"
        }
    }

    private mutating func jsonEquality(
        _ column: SQLFragment, _ key: String, _ options: ComparisonOptions, _ value: Value
    ) -> Outcome {
        switch (dialect, value) {
        case (.sqlite, .string(let string)):
            let extracted = "json_extract(" + column + ", " + .parameter(.text("$.\"" + key + "\"")) + ")"
            let test: SQLFragment =
                options.isEmpty
                ? extracted + " = " + .parameter(.text(string))
                : call("pvm_equal", [extracted, .parameter(.text(string)), SQLFragment("\(options.rawValue)")])
            return .exact("(" + jsonType(column, key) + " = 'text' AND " + test + ")")
        case (.sqlite, .bool), (.sqlite, .int), (.sqlite, .uint), (.sqlite, .double):
            // JSON numbers read back as integers or doubles, JSON Booleans as Booleans: all
            // numbers to the language, and SQLite compares integers with doubles exactly.
            let parameter: SQLValue
            switch value {
            case .bool(let flag): parameter = .integer(flag ? 1 : 0)
            case .int(let number): parameter = .integer(number)
            case .uint(let number):
                guard let number = Int64(exactly: number) else { return .opaque(mayRaise: false) }
                parameter = .integer(number)
            case .double(let number):
                guard !number.isNaN else { return .opaque(mayRaise: false) }
                parameter = .real(number)
            default: return .opaque(mayRaise: false)
            }
            let extracted = "json_extract(" + column + ", " + .parameter(.text("$.\"" + key + "\"")) + ")"
            return .exact(
                "(" + jsonType(column, key) + " IN ('integer', 'real', 'true', 'false') AND " + extracted + " = "
                    + .parameter(parameter) + ")")
        case (.postgres, .string(let string)):
            guard !Self.folds(options), let parameter = text(string) else { return .opaque(mayRaise: false) }
            let extracted = "(" + column + " ->> " + .parameter(.text(key)) + ")"
            return .exact("(" + jsonType(column, key) + " = 'string' AND " + extracted + " = " + parameter + ")")
        default:
            return .opaque(mayRaise: false)
        }
    }
}
