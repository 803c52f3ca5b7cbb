import PredicateSyntax
import PredicateValue

/// A number (or date) constant made into a parameter the column compares with exactly as the
/// language compares numbers: exactly, across integers, doubles and Booleans (SPEC §4.4).
///
/// Neither database is trusted with a mixed comparison that could round: PostgreSQL compares a
/// `bigint` with a `double precision` by converting the integer, so the constant is converted
/// to the column's kind here, where that is exact, or the answer is decided here.
enum NumericParameter {
    case value(SQLValue)
    /// No value the column can hold equals the constant.
    case never

    /// The parameter for `column == constant`; `nil` when it cannot be made exact.
    static func equality(_ constant: Value, column: SQLColumnType, dialect: SQLDialect) -> NumericParameter? {
        switch (column, constant) {
        case (.date, .date(let seconds)):
            return seconds.isNaN ? nil : .value(.real(seconds))
        case (.date, _), (_, .date):
            return nil
        case (.integer, _), (.boolean, _):
            switch constant {
            case .bool(let flag): return .value(.integer(flag ? 1 : 0))
            case .int(let number): return .value(.integer(number))
            case .uint(let number): return Int64(exactly: number).map { .value(.integer($0)) } ?? .never
            case .double(let number):
                if number.isNaN { return nil }
                return Int64(exactly: number).map { .value(.integer($0)) } ?? .never
            default: return nil
            }
        case (.real, _):
            switch constant {
            case .double(let number): return number.isNaN ? nil : .value(.real(number))
            case .bool(let flag): return .value(.real(flag ? 1 : 0))
            case .int(let number): return exactDouble(number, dialect)
            case .uint(let number):
                if let double = Double(exactly: number) { return .value(.real(double)) }
                return Int64(exactly: number).flatMap { exactDouble($0, dialect) }
            default: return nil
            }
        case (.text, _):
            return nil
        }
    }

    /// An integer compared with a double column: as a double when that is exact, else (SQLite
    /// compares integers with doubles exactly) as the integer.
    private static func exactDouble(_ number: Int64, _ dialect: SQLDialect) -> NumericParameter? {
        if let double = Double(exactly: number) { return .value(.real(double)) }
        return dialect == .sqlite ? .value(.integer(number)) : nil
    }

    /// How `column op constant` compares, for the four orderings.
    enum Ordering {
        case compare(ComparisonOperator, SQLValue)
        /// True (or false) for every value the column can hold.
        case always(Bool)
    }

    /// `column op constant` for `<`, `<=`, `>`, `>=`; `nil` when it cannot be made exact.
    static func ordering(
        _ op: ComparisonOperator, _ constant: Value, column: SQLColumnType, dialect: SQLDialect
    ) -> Ordering? {
        let integral = column == .integer || column == .boolean
        if integral, case .double(let number) = constant, !number.isNaN, Int64(exactly: number) == nil {
            // An integer is below a double at or past 2^63 and above one below -2^63; otherwise
            // `x < 2.5` is `x <= 2` and `x > 2.5` is `x >= 3`.
            let below = op == .less || op == .lessOrEqual
            if number >= 9_223_372_036_854_775_808.0 { return .always(below) }
            if number < -9_223_372_036_854_775_808.0 { return .always(!below) }
            return below
                ? .compare(.lessOrEqual, .integer(Int64(number.rounded(.down))))
                : .compare(.greaterOrEqual, .integer(Int64(number.rounded(.up))))
        }
        if integral, case .uint(let number) = constant, Int64(exactly: number) == nil {
            return .always(op == .less || op == .lessOrEqual)
        }
        guard case .value(let parameter) = equality(constant, column: column, dialect: dialect) else { return nil }
        return .compare(op, parameter)
    }
}
