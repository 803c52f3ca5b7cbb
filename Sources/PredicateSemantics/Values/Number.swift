import Foundation
import PredicateValue

/// A number taken out of a ``Value``, with the kind that decides arithmetic (SPEC §4.7.1).
///
/// Comparisons between kinds are exact: `Int64.max` and the double nearest to it differ, and
/// a large unsigned value is greater than every negative signed one.
enum Number: Sendable {
    case signed(Int64)
    case unsigned(UInt64)
    case floating(Double)

    /// The number in `value`, if it is one. Booleans count as 0 and 1; decimals as doubles.
    init?(_ value: Value) {
        switch value {
        case .bool(let flag): self = .signed(flag ? 1 : 0)
        case .int(let number): self = .signed(number)
        case .uint(let number): self = .unsigned(number)
        case .double(let number): self = .floating(number)
        case .decimal(let number): self = .floating(NSDecimalNumber(decimal: number).doubleValue)
        default: return nil
        }
    }

    var doubleValue: Double {
        switch self {
        case .signed(let number): return Double(number)
        case .unsigned(let number): return Double(number)
        case .floating(let number): return number
        }
    }

    /// Three-way numeric comparison; NaN equals NaN and sorts below every other number
    /// (SPEC §9 item 29).
    static func compare(_ lhs: Number, _ rhs: Number) -> Ordering {
        switch (lhs, rhs) {
        case (.signed(let a), .signed(let b)): return Ordering(a, b)
        case (.unsigned(let a), .unsigned(let b)): return Ordering(a, b)
        case (.signed(let a), .unsigned(let b)): return a < 0 ? .ascending : Ordering(UInt64(a), b)
        case (.unsigned(let a), .signed(let b)): return b < 0 ? .descending : Ordering(a, UInt64(b))
        case (.floating(let a), .floating(let b)):
            if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? .same : .ascending) : .descending }
            return Ordering(a, b)
        case (.floating(let a), _): return compareExactly(a, rhs)
        case (_, .floating(let b)): return compareExactly(b, lhs).reversed
        }
    }

    /// Compares the integer `integer` with the double `double`, without rounding either:
    /// the ordering of `double` relative to `integer`.
    private static func compareExactly(_ double: Double, _ integer: Number) -> Ordering {
        if double.isNaN { return .ascending }
        if double == .infinity { return .descending }
        if double == -.infinity { return .ascending }
        let whole = double.rounded(.towardZero)
        let fraction = double - whole
        let wholeOrder: Ordering
        switch integer {
        case .signed(let number):
            if whole >= 0x1p63 { return .descending }
            if whole < -0x1p63 { return .ascending }
            wholeOrder = Ordering(Int64(whole), number)
        case .unsigned(let number):
            if whole < 0 { return .ascending }
            if whole >= 0x1p64 { return .descending }
            wholeOrder = Ordering(UInt64(whole), number)
        case .floating(let number):
            return Ordering(double, number)
        }
        if wholeOrder != .same { return wholeOrder }
        return fraction > 0 ? .descending : fraction < 0 ? .ascending : .same
    }
}

/// The result of a three-way comparison (Foundation's `ComparisonResult`, without Objective-C).
public enum Ordering: Int, Hashable, Sendable {
    /// The left operand is smaller.
    case ascending = -1
    /// The operands are equal.
    case same = 0
    /// The left operand is larger.
    case descending = 1

    /// Compares two comparable values.
    public init<T: Comparable>(_ lhs: T, _ rhs: T) {
        self = lhs < rhs ? .ascending : lhs > rhs ? .descending : .same
    }

    /// The ordering seen from the other operand.
    public var reversed: Ordering { Ordering(rawValue: -rawValue) ?? .same }
}
