import Foundation

/// A runtime value of the predicate language (SPEC §1).
///
/// The language is dynamically typed; every constant in a syntax tree, every argument substituted
/// for a format specifier and every value an evaluator produces is a `Value`.
///
/// `Value` equality (`==`) is *structural*: `.int(1)` and `.double(1)` are different values, and
/// two NaNs are equal. That is what syntax-tree comparison and round-trip tests need. The
/// language's own equality (`1 == 1.0` is true) is a separate operation defined by the semantics.
public enum Value: Sendable {
    /// The absence of a value (`nil`, `NULL`, a missing dictionary key).
    case `nil`
    /// The `NSNull` placeholder: appears inside collections; distinct from ``nil`` (SPEC §4.2.4).
    case null
    /// A Boolean (`TRUE`, `YES`, `FALSE`, `NO`); compares equal to the integers 1 and 0.
    case bool(Bool)
    /// A signed 64-bit integer.
    case int(Int64)
    /// An unsigned 64-bit integer (literals above `Int64.max`, `length(…)` results).
    case uint(UInt64)
    /// A 64-bit IEEE floating-point number.
    case double(Double)
    /// A decimal number: the result of `@sum` and `@avg` (Apple's `NSDecimalNumber`).
    case decimal(Decimal)
    /// A string; lengths and ranges the language exposes are in UTF-16 code units.
    case string(String)
    /// A point in time, as seconds since 2001-01-01T00:00:00Z (the reference date).
    case date(secondsSinceReferenceDate: Double)
    /// Raw bytes.
    case data([UInt8])
    /// An ordered collection; elements are never ``nil`` (a missing element is ``null``).
    case array([Value])
    /// An unordered collection of distinct elements, kept in first-insertion order so that
    /// enumeration is deterministic.
    case set([Value])
    /// A dictionary with string keys, such as `userInfo` or an activation context.
    case dictionary([String: Value])
    /// A host object reached through key-value coding: a File Provider item, a type identifier
    /// object, or any type of the host's that conforms to ``KeyValueCoding``.
    ///
    /// Held in a box: an existential inline would make every value five words, copied and
    /// destroyed through the runtime's witnesses whatever case it holds.
    indirect case object(any KeyValueCoding)
}

extension Value: Equatable {
    /// Structural equality: same case and same payload; NaN equals NaN.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.nil, .nil), (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): return a.utf16.elementsEqual(b.utf16)
        case (.date(let a), .date(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.data(let a), .data(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.set(let a), .set(let b)): return a.count == b.count && a.allSatisfy(b.contains)
        case (.dictionary(let a), .dictionary(let b)): return a == b
        case (.object(let a), .object(let b)): return a.isEqual(to: b)
        default: return false
        }
    }
}

extension Value: Hashable {
    /// Hashes consistently with structural equality.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .nil: hasher.combine(0)
        case .null: hasher.combine(1)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .uint(let value): hasher.combine(value)
        // `0.0 == -0.0`, so both must hash alike (a dictionary holding both would trap).
        case .double(let value): hasher.combine(value.isNaN ? Double.nan.bitPattern : (value + 0.0).bitPattern)
        case .decimal(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value.utf16.count)
        case .date(let value): hasher.combine(value.isNaN ? Double.nan.bitPattern : (value + 0.0).bitPattern)
        case .data(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .set(let value): hasher.combine(value.count)
        case .dictionary(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value.schema.typeName)
        }
    }
}

extension Value {
    /// The name of the value's kind as a rule author would say it (`"string"`, `"integer"`, …).
    public var kindName: String {
        switch self {
        case .nil: return "nil"
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .uint: return "unsigned integer"
        case .double: return "number"
        case .decimal: return "decimal number"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .set: return "set"
        case .dictionary: return "dictionary"
        case .object(let object): return object.schema.typeName
        }
    }

    /// Whether the value is ``nil``; cheaper than `== .nil`, which compares whole values.
    @inlinable public var isNil: Bool {
        if case .nil = self { return true }
        return false
    }

    /// Whether the value is ``null``.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string payload, or `nil` when the value is not a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
