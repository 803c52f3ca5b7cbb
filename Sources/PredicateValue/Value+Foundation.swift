import Foundation

// Foundation-shaped input: literals, Swift values, `[String: Any]` (with Booleans kept apart
// from integers), JSON `Data` and `Codable` values (with dates kept as dates).

extension Value: ExpressibleByBooleanLiteral {
    /// `true` is ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    /// `42` is ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    /// `1.5` is ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByStringLiteral {
    /// `"a"` is ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByArrayLiteral {
    /// `[1, "a"]` is ``array(_:)``.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}

extension Value: ExpressibleByDictionaryLiteral {
    /// `["size": 10]` is ``dictionary(_:)``; with a repeated key the last wins.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// A Swift value the predicate language can take as an argument (`%@`, `%d`, `%K` …), a
/// substitution variable or a field: numbers, strings, Booleans, dates, data, and arrays, sets,
/// dictionaries and optionals of them.
public protocol ValueConvertible {
    /// The value as the language sees it.
    var predicateValue: Value { get }
}

extension Value: ValueConvertible {
    /// The value itself.
    public var predicateValue: Value { self }
}

extension Bool: ValueConvertible {
    /// ``Value/bool(_:)``.
    public var predicateValue: Value { .bool(self) }
}

extension String: ValueConvertible {
    /// ``Value/string(_:)``.
    public var predicateValue: Value { .string(self) }
}

extension Substring: ValueConvertible {
    /// ``Value/string(_:)``.
    public var predicateValue: Value { .string(String(self)) }
}

extension Double: ValueConvertible {
    /// ``Value/double(_:)``.
    public var predicateValue: Value { .double(self) }
}

extension Float: ValueConvertible {
    /// ``Value/double(_:)``.
    public var predicateValue: Value { .double(Double(self)) }
}

extension Decimal: ValueConvertible {
    /// ``Value/decimal(_:)``.
    public var predicateValue: Value { .decimal(self) }
}

extension Date: ValueConvertible {
    /// ``Value/date(secondsSinceReferenceDate:)``.
    public var predicateValue: Value { .date(secondsSinceReferenceDate: timeIntervalSinceReferenceDate) }
}

extension Data: ValueConvertible {
    /// ``Value/data(_:)``.
    public var predicateValue: Value { .data(Array(self)) }
}

extension Int: ValueConvertible {
    /// ``Value/int(_:)``.
    public var predicateValue: Value { .int(Int64(self)) }
}

extension Int8: ValueConvertible {
    /// ``Value/int(_:)``.
    public var predicateValue: Value { .int(Int64(self)) }
}

extension Int16: ValueConvertible {
    /// ``Value/int(_:)``.
    public var predicateValue: Value { .int(Int64(self)) }
}

extension Int32: ValueConvertible {
    /// ``Value/int(_:)``.
    public var predicateValue: Value { .int(Int64(self)) }
}

extension Int64: ValueConvertible {
    /// ``Value/int(_:)``.
    public var predicateValue: Value { .int(self) }
}

extension UInt: ValueConvertible {
    /// ``Value/uint(_:)``.
    public var predicateValue: Value { .uint(UInt64(self)) }
}

extension UInt8: ValueConvertible {
    /// ``Value/uint(_:)``.
    public var predicateValue: Value { .uint(UInt64(self)) }
}

extension UInt16: ValueConvertible {
    /// ``Value/uint(_:)``.
    public var predicateValue: Value { .uint(UInt64(self)) }
}

extension UInt32: ValueConvertible {
    /// ``Value/uint(_:)``.
    public var predicateValue: Value { .uint(UInt64(self)) }
}

extension UInt64: ValueConvertible {
    /// ``Value/uint(_:)``.
    public var predicateValue: Value { .uint(self) }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    /// The wrapped value's, or ``Value/nil``.
    public var predicateValue: Value { self?.predicateValue ?? .nil }
}

extension Array: ValueConvertible where Element: ValueConvertible {
    /// ``Value/array(_:)``; a `nil` element is ``Value/null``, as in any collection (SPEC §4.2.4).
    public var predicateValue: Value { .array(map { Value.element($0.predicateValue) }) }
}

extension Set: ValueConvertible where Element: ValueConvertible {
    /// ``Value/set(_:)``.
    public var predicateValue: Value { .set(map { Value.element($0.predicateValue) }) }
}

extension Dictionary: ValueConvertible where Key == String, Value: ValueConvertible {
    /// ``Value/dictionary(_:)``.
    public var predicateValue: PredicateValue.Value { .dictionary(mapValues(\.predicateValue)) }
}

/// Why a Foundation value could not be converted (``Value/init(any:)``): the path to it and what
/// it was.
public struct ValueConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the value is, as a key path from the top (`tags[2]`, `owner.name`); empty at the top.
    public let path: String
    /// The Swift type found there.
    public let typeName: String

    /// `path: cannot convert a value of type T`.
    public var description: String {
        (path.isEmpty ? "" : "\(path): ") + "cannot convert a value of type \(typeName) to a predicate value"
    }
}

extension Value {
    /// Inside a collection `nil` is the `NSNull` placeholder (SPEC §4.2.4).
    static func element(_ value: Value) -> Value { value.isNil ? .null : value }

    /// The class of a Boolean `NSNumber` (`__NSCFBoolean`, on Darwin and in swift-corelibs):
    /// `JSONSerialization` answers `true` with it and `1` with a plain `NSNumber`, and only the
    /// class tells them apart (`as? Bool` takes either).
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// Converts what Foundation hands out as `Any` (`JSONSerialization`, property lists,
    /// `UserDefaults`, `[String: Any]` literals): `NSNumber`s by their kind, with Booleans kept
    /// apart from the integers 0 and 1; `NSNull` as ``null``; strings, dates, data, arrays,
    /// sets and string-keyed dictionaries of them; any ``ValueConvertible`` or ``KeyValueCoding``
    /// value; `Optional.none` as ``nil``.
    ///
    /// - Throws: ``ValueConversionError`` naming the first value of another type, and where.
    public init(any value: Any) throws(ValueConversionError) {
        self = try Value.converting(value, path: "")
    }

    /// Converts a string-keyed dictionary as ``init(any:)`` does.
    public init(_ dictionary: [String: Any]) throws(ValueConversionError) {
        self = try Value.converting(dictionary, path: "")
    }

    private static func converting(_ value: Any, path: String) throws(ValueConversionError) -> Value {
        // `NSNumber` first, while it is still an object: once cast to a Swift number, a
        // Boolean can no longer be told from 1. Swift's own numbers (`type(of:)` not a class)
        // fall through to ValueConvertible.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber { return converting(number) }
        if let convertible = value as? any ValueConvertible { return convertible.predicateValue }
        if let object = value as? any KeyValueCoding { return .object(object) }
        if value is NSNull { return .null }
        if let string = value as? String { return .string(string) }
        if let date = value as? Date { return date.predicateValue }
        if let data = value as? Data { return data.predicateValue }
        if let dictionary = value as? [String: Any] {
            var result: [String: Value] = [:]
            result.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                result[key] = try converting(element, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return .dictionary(result)
        }
        if let array = value as? [Any] {
            var result: [Value] = []
            result.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                result.append(Value.element(try converting(element, path: "\(path)[\(index)]")))
            }
            return .array(result)
        }
        // An `Any` holding `Optional<T>` (a `[String: Any?]` entry, a Mirror child).
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .nil }
            return try converting(wrapped, path: path)
        }
        throw ValueConversionError(path: path, typeName: String(describing: type(of: value)))
    }

    private static func converting(_ number: NSNumber) -> Value {
        if ObjectIdentifier(type(of: number)) == booleanNumberClass { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        case "C", "S", "I", "L", "Q": return .uint(number.uint64Value)
        default: return .int(number.int64Value)
        }
    }

    /// Parses JSON `Data` (UTF-8) into a value, with the conventions of ``init(json:)``
    /// (`{"$date": n}` is a date).
    ///
    /// - Throws: ``JSONParseError`` for text that is not JSON, with its line and column, or
    ///   ``JSONConversionError`` for a malformed tagged object.
    public init(jsonData data: Data) throws {
        self = try Value(json: JSON.parse(Array(data)))
    }

    /// Converts an `Encodable` value through JSON, keeping its dates as dates (`Date` fields are
    /// encoded as `{"$date": seconds}`) and its `Data` as data; numbers, strings, Booleans,
    /// arrays and nested values as ``init(json:)`` reads them.
    ///
    /// - Throws: The encoder's error, when the value cannot be encoded.
    public init(encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.container(keyedBy: TagKey.self)
            try container.encode(date.timeIntervalSinceReferenceDate, forKey: .date)
        }
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.container(keyedBy: TagKey.self)
            try container.encode(data.base64EncodedString(), forKey: .data)
        }
        self = try Value(jsonData: encoder.encode(value))
    }

    /// The tags of ``init(json:)``'s tagged objects.
    private enum TagKey: String, CodingKey {
        case date = "$date"
        case data = "$data"
    }
}
