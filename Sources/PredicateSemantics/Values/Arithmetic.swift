import Foundation
import PredicateValue

/// The arithmetic of SPEC §4.7: Apple's `_NSPredicateUtilities` rules.
///
/// The operation takes the "weakest" kind of its operands: floating if either is floating, else
/// unsigned if either is unsigned, else signed. Integer arithmetic wraps on overflow (as C does on
/// Apple's platforms), integer division truncates, and integer division by zero yields 0.
/// Booleans are not numbers here: `TRUE + 1` is an error, as on Apple's platforms.
public enum Arithmetic {
    /// The kind an arithmetic operation is carried out in.
    enum Kind {
        case signed(Int64, Int64)
        case unsigned(UInt64, UInt64)
        case floating(Double, Double)
    }

    /// An arithmetic operand: a number that is not a boolean.
    static func operand(_ value: Value, of operation: String) throws(EvaluationError) -> Number {
        switch value {
        case .int, .uint, .double, .decimal:
            if let number = Number(value) { return number }
        default:
            break
        }
        throw EvaluationError(.typeMismatch, .needsNumbers(operation: operation, EvaluationError.ValuePair(value)))
    }

    static func kind(_ lhs: Number, _ rhs: Number) -> Kind {
        switch (lhs, rhs) {
        case (.floating, _), (_, .floating):
            return .floating(lhs.doubleValue, rhs.doubleValue)
        case (.unsigned(let a), .unsigned(let b)):
            return .unsigned(a, b)
        case (.unsigned(let a), .signed(let b)):
            return .unsigned(a, UInt64(bitPattern: b))
        case (.signed(let a), .unsigned(let b)):
            return .unsigned(UInt64(bitPattern: a), b)
        case (.signed(let a), .signed(let b)):
            return .signed(a, b)
        }
    }

    /// `a + b` (`add:to:`): numbers, or a date and a number of seconds.
    public static func add(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        switch (lhs, rhs) {
        case (.date(let date), _) where rhs.isArithmeticNumber:
            return .date(secondsSinceReferenceDate: date + (Number(rhs)?.doubleValue ?? 0))
        case (_, .date(let date)) where lhs.isArithmeticNumber:
            return .date(secondsSinceReferenceDate: date + (Number(lhs)?.doubleValue ?? 0))
        default:
            switch kind(try operand(lhs, of: "'+'"), try operand(rhs, of: "'+'")) {
            case .signed(let a, let b): return .int(a &+ b)
            case .unsigned(let a, let b): return .uint(a &+ b)
            case .floating(let a, let b): return .double(a + b)
            }
        }
    }

    /// `a - b` (`from:subtract:`): numbers, a date minus seconds, or the seconds between dates.
    public static func subtract(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        switch (lhs, rhs) {
        case (.date(let a), .date(let b)):
            return .double(a - b)
        case (.date(let date), _) where rhs.isArithmeticNumber:
            return .date(secondsSinceReferenceDate: date - (Number(rhs)?.doubleValue ?? 0))
        default:
            switch kind(try operand(lhs, of: "'-'"), try operand(rhs, of: "'-'")) {
            case .signed(let a, let b): return .int(a &- b)
            case .unsigned(let a, let b): return .uint(a &- b)
            case .floating(let a, let b): return .double(a - b)
            }
        }
    }

    /// `a * b` (`multiply:by:`).
    public static func multiply(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        switch kind(try operand(lhs, of: "'*'"), try operand(rhs, of: "'*'")) {
        case .signed(let a, let b): return .int(a &* b)
        case .unsigned(let a, let b): return .uint(a &* b)
        case .floating(let a, let b): return .double(a * b)
        }
    }

    /// `a / b` (`divide:by:`): integer division truncates, and dividing an integer by zero gives 0.
    public static func divide(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        switch kind(try operand(lhs, of: "'/'"), try operand(rhs, of: "'/'")) {
        case .signed(let a, let b): return .int(b == 0 ? 0 : a.dividedReportingOverflow(by: b).partialValue)
        case .unsigned(let a, let b): return .uint(b == 0 ? 0 : a / b)
        case .floating(let a, let b): return .double(a / b)
        }
    }

    /// `modulus:by:(a, b)`: the C remainder (sign of the dividend), 0 for a zero divisor; `fmod`
    /// for floating operands.
    public static func modulus(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        switch kind(try operand(lhs, of: "modulus:by:"), try operand(rhs, of: "modulus:by:")) {
        case .signed(let a, let b): return .int(b == 0 ? 0 : a.remainderReportingOverflow(dividingBy: b).partialValue)
        case .unsigned(let a, let b): return .uint(b == 0 ? 0 : a % b)
        case .floating(let a, let b): return .double(fmod(a, b))
        }
    }

    /// `a ** b` (`raise:toPower:`): always a double.
    public static func power(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        let base = try operand(lhs, of: "'**'").doubleValue
        let exponent = try operand(rhs, of: "'**'").doubleValue
        return .double(pow(base, exponent))
    }

    // MARK: - Bitwise

    /// An operand of a bitwise function: any number, booleans included, read as a 64-bit integer.
    static func bits(_ value: Value, of operation: String) throws(EvaluationError) -> Int64 {
        guard let number = Number(value) else {
            throw EvaluationError(
                .typeMismatch, "\(operation) needs integers, got \(ValueComparison.describe(value))")
        }
        switch number {
        case .signed(let integer): return integer
        case .unsigned(let integer): return Int64(bitPattern: integer)
        case .floating(let double):
            guard double.isFinite else { return 0 }
            return double >= 0x1p63 ? .max : double < -0x1p63 ? .min : Int64(double)
        }
    }

    /// `a & b`, `a | b`, `a ^ b`, `a << b`, `a >> b` and their selector forms.
    public static func bitwise(_ selector: String, _ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        let a = try bits(lhs, of: selector)
        let b = try bits(rhs, of: selector)
        switch selector {
        case "bitwiseAnd:with:": return .int(a & b)
        case "bitwiseOr:with:": return .int(a | b)
        case "bitwiseXor:with:": return .int(a ^ b)
        case "leftshift:by:": return .int(a << b)
        default: return .int(a >> b)
        }
    }
}

extension Value {
    /// A number that arithmetic accepts (booleans are not).
    var isArithmeticNumber: Bool {
        switch self {
        case .int, .uint, .double, .decimal: return true
        default: return false
        }
    }
}
