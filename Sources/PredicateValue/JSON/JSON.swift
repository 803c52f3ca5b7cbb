/// A JSON document as RFC 8259 describes it, kept close to its source text.
///
/// Two things set this apart from a plain "decoded" tree, and both matter to the tools that read
/// test cases and items from JSON:
///
/// * Objects keep their members in source order, duplicates included, so output that echoes
///   input (an `id`, say) stays recognisable.
/// * Numbers keep their original text (``Number``), so `1`, `1.0` and `18446744073709551615`
///   stay distinct until a consumer decides what they mean (see ``Value/init(json:)``).
///
/// Read with `JSON.parse(_:maximumDepth:)`, write with ``serialized``, and convert
/// to and from the predicate language's ``Value`` with ``Value/init(json:)`` and
/// `JSON.init(_:)`.
///
/// Equality is structural: numbers compare by text, objects by their member lists in order.
public enum JSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written.
    case number(Number)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object: its members in source order. Keys may repeat; lookups take the last one.
    case object([(key: String, value: JSON)])

    /// Structural equality; numbers compare by their text.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of the member named `key` when this is an object, or `nil`.
    ///
    /// With duplicate keys the last one wins, as in JavaScript and most JSON libraries, so a
    /// lookup and ``Value/init(json:)`` agree on which member counts.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The name of the value's JSON type (`"object"`, `"array"`, …), for messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSON {
    /// A JSON number, held as its text so no precision or spelling is lost.
    ///
    /// The text always matches the RFC 8259 `number` grammar: the reader only produces valid
    /// numbers, and the public initialisers check or generate the text.
    public struct Number: Sendable, Hashable, CustomStringConvertible {
        /// The number as written, for example `-12`, `0.5` or `1E+400`.
        public let text: String

        /// Wraps text already known to match the grammar (the reader checked it).
        init(unchecked text: String) {
            self.text = text
        }

        /// Creates a number from `text`, or returns `nil` if it is not a valid JSON number.
        public init?(text: String) {
            guard JSON.Number.isValid(Array(text.utf8)) else { return nil }
            self.text = text
        }

        /// The exact decimal text of a signed integer.
        public init(_ value: Int64) {
            text = String(value)
        }

        /// The exact decimal text of an unsigned integer.
        public init(_ value: UInt64) {
            text = String(value)
        }

        /// The shortest text that reads back as the same `Double`, or `nil` for NaN and the
        /// infinities, which JSON cannot write.
        public init?(_ value: Double) {
            guard value.isFinite else { return nil }
            // Swift's description is the shortest round-tripping form and always has a '.' or
            // an exponent, so the number reads back as a double rather than as an integer.
            text = value.description
        }

        /// Whether the text has no fraction and no exponent (it may still be too large for any
        /// fixed-width integer type).
        public var isInteger: Bool {
            !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        }

        /// The value as a signed 64-bit integer, if the text is an integer in range.
        public var int64Value: Int64? { isInteger ? Int64(text) : nil }

        /// The value as an unsigned 64-bit integer, if the text is a non-negative integer in range.
        public var uint64Value: UInt64? { isInteger ? UInt64(text) : nil }

        /// The nearest `Double`; magnitudes beyond its range give ±infinity.
        public var doubleValue: Double {
            // The text is valid JSON, which `Double(_:)` always accepts; zero is a safe fallback
            // that is never reached.
            Double(text) ?? 0
        }

        /// The text.
        public var description: String { text }

        /// Whether `bytes` match `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` exactly.
        static func isValid(_ bytes: [UInt8]) -> Bool {
            var index = 0
            func digits() -> Int {
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                return index - start
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return false
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { return false }
            }
            return index == bytes.count
        }
    }
}
