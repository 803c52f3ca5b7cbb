import Foundation
import PredicateValue

/// `CAST(value, type)` (SPEC §4.9.3) and the textual description of values it relies on.
public enum Cast {
    /// Converts `value` to the class named by `type`: `NSString`, `NSNumber`, `NSDecimalNumber` or
    /// `NSDate`. A `nil` type returns the value unchanged.
    public static func cast(_ value: Value, to type: Value) throws(EvaluationError) -> Value {
        guard case .string(let className) = type else {
            if type.isNil || type.isNull { return value }
            throw EvaluationError(
                .invalidArgument, "CAST needs a class name such as 'NSNumber', got \(ValueComparison.describe(type))")
        }
        let isNil = value.isNil || value.isNull
        switch className {
        case "NSString":
            return isNil ? .nil : .string(text(of: value))
        case "NSNumber":
            switch value {
            case .bool, .int, .uint, .double, .decimal: return value
            case .date(let seconds): return .double(seconds)
            case .string(let text):
                if let number = number(parsing: text) { return number }
                throw EvaluationError(.invalidArgument, "CAST cannot read a number from the string \"\(text)\"")
            default:
                throw EvaluationError(
                    .invalidArgument, "CAST does not know how to make a number of \(ValueComparison.describe(value))")
            }
        case "NSDecimalNumber":
            let description = isNil ? "" : text(of: value)
            guard isNumeral(description),
                let decimal = Decimal(string: description, locale: Locale(identifier: "en_US_POSIX"))
            else {
                throw EvaluationError(
                    .invalidArgument, "CAST cannot make a decimal number of \(ValueComparison.describe(value))")
            }
            return .decimal(decimal)
        case "NSDate":
            switch value {
            case .int, .uint, .double, .decimal:
                return .date(secondsSinceReferenceDate: Number(value)?.doubleValue ?? 0)
            case .date:
                return value
            case .string(let text):
                if let date = isoDate(text) {
                    return .date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
                }
                throw EvaluationError(.invalidArgument, "CAST reads dates in ISO 8601 form only, not \"\(text)\"")
            default:
                throw EvaluationError(
                    .invalidArgument, "CAST does not know how to make a date of \(ValueComparison.describe(value))")
            }
        case "Class":
            throw EvaluationError(.unsupported, "CAST to 'Class' is forbidden")
        default:
            throw EvaluationError(.unsupported, "CAST cannot cast to the class '\(className)'")
        }
    }

    /// The text `CAST(x, 'NSString')` produces: strings unchanged, integers in decimal, doubles in
    /// shortest round-trip form (`1.5`, `3`), booleans `1`/`0`, dates `yyyy-MM-dd HH:mm:ss +0000`.
    public static func text(of value: Value) -> String {
        switch value {
        case .nil, .null: return "<null>"
        case .bool(let flag): return flag ? "1" : "0"
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number):
            if number.isFinite, number == number.rounded(), Swift.abs(number) < 1e15 { return String(Int64(number)) }
            return number.description
        case .decimal(let number): return number.description
        case .string(let text): return text
        case .date(let seconds):
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
            return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
        case .data(let bytes): return "{length = \(bytes.count)}"
        case .array(let elements), .set(let elements):
            return "(" + elements.map(text(of:)).joined(separator: ", ") + ")"
        case .dictionary(let entries):
            return "{"
                + entries.keys.sorted().map { "\($0) = \(text(of: entries[$0] ?? .nil));" }.joined(separator: " ") + "}"
        case .object(let object): return "<\(object.schema.typeName)>"
        }
    }

    /// A number from text, as Apple's cast reads it: with a `.`, a C double; otherwise a C integer
    /// with automatic base (`0x1F` is hex, a leading `0` means octal: `"010"` is 8); failing that, a
    /// decimal number.
    static func number(parsing text: String) -> Value? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.utf8.contains(UInt8(ascii: ".")) {
            return Double(trimmed).map(Value.double)
        }
        var digits = Substring(trimmed)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.lowercased().hasPrefix("0x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1, digits.hasPrefix("0") {
            radix = 8
            digits = digits.dropFirst()
        }
        if let magnitude = UInt64(digits, radix: radix) {
            if !negative { return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude) }
            if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .int(.min) }
        }
        guard isNumeral(trimmed), let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else {
            return nil
        }
        return .decimal(decimal)
    }

    /// Whether `text` is a plain decimal numeral: sign, digits, optional fraction and exponent.
    private static func isNumeral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let sign = scalars.first, sign == "-" || sign == "+" { scalars = scalars.dropFirst() }
        func digits() -> Int {
            let count = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        var count = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "-" || sign == "+" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    private static func isoDate(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withFullDate]
        return full.date(from: text)
    }
}
