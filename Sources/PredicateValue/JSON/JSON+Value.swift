/// Why a JSON document cannot become a ``Value``: a malformed tagged object such as
/// `{"$date": "yesterday"}`.
public struct JSONConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the problem is, as a JSONPath-like string: `$` for the root, then `.key` or `[index]`
    /// steps, for example `$.items[2].modified`.
    public let path: String
    /// What is wrong.
    public let message: String

    /// Creates an error for the value at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

/// JSON has no syntax for dates, bytes or non-finite numbers, so they travel as objects with
/// exactly one member whose key names the kind. An object with that one key and a payload of the
/// wrong type is an error rather than a dictionary, so that typos do not pass silently.
enum JSONTag {
    /// `{"$date": seconds}`: seconds since 2001-01-01T00:00:00Z (a number or a `$double` object).
    static let date = "$date"
    /// `{"$data": "base64"}`: bytes, as standard Base64 with padding.
    static let data = "$data"
    /// `{"$double": "NaN" | "Infinity" | "-Infinity" | number}`: a double JSON cannot write.
    static let double = "$double"
}

extension Value {
    /// Converts a JSON document to a value of the predicate language.
    ///
    /// The mapping:
    ///
    /// | JSON | Value |
    /// |---|---|
    /// | `null` at the top level or as an object member | ``Value/nil`` (an absent value, like a nil property) |
    /// | `null` as an array element | ``Value/null`` (arrays never hold `nil`, SPEC §1) |
    /// | `true`, `false` | ``Value/bool(_:)`` |
    /// | an integer (no fraction, no exponent) that fits `Int64` | ``Value/int(_:)`` |
    /// | a larger non-negative integer that fits `UInt64` | ``Value/uint(_:)`` |
    /// | any other number | ``Value/double(_:)`` (out-of-range magnitudes become ±infinity) |
    /// | a string | ``Value/string(_:)`` |
    /// | an array | ``Value/array(_:)`` |
    /// | `{"$date": n}` | ``Value/date(secondsSinceReferenceDate:)``, `n` seconds after 2001-01-01T00:00:00Z |
    /// | `{"$data": "base64"}` | ``Value/data(_:)`` |
    /// | `{"$double": "NaN"}`, `"Infinity"`, `"-Infinity"`, or a number | ``Value/double(_:)`` |
    /// | any other object | ``Value/dictionary(_:)``; with duplicate keys the last wins |
    ///
    /// An object member whose value is `null` is kept as a `nil` entry: looking it up gives `nil`
    /// just as a missing key would, and the dictionary's count still includes it.
    ///
    /// - Parameter json: The document.
    /// - Throws: A ``JSONConversionError`` for a tagged object (`$date`, `$data`, `$double`) with
    ///   a payload of the wrong form.
    public init(json: JSON) throws(JSONConversionError) {
        do throws(PathedError) {
            self = try Value.converting(json, isArrayElement: false)
        } catch {
            throw JSONConversionError(path: "$" + error.steps.reversed().joined(), message: error.message)
        }
    }

    /// A conversion error on its way up: the path is collected innermost step first, only when
    /// something fails, so successful conversions build no path strings.
    private struct PathedError: Error {
        var steps: [String]
        let message: String
    }

    private static func converting(_ json: JSON, isArrayElement: Bool) throws(PathedError) -> Value {
        switch json {
        case .null: return isArrayElement ? .null : .nil
        case .bool(let value): return .bool(value)
        case .number(let number): return value(of: number)
        case .string(let value): return .string(value)
        case .array(let elements):
            var values: [Value] = []
            values.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                do throws(PathedError) {
                    values.append(try converting(element, isArrayElement: true))
                } catch {
                    throw PathedError(steps: error.steps + ["[\(position)]"], message: error.message)
                }
            }
            return .array(values)
        case .object(let members):
            if members.count == 1, let tagged = try convertingTagged(members[0]) { return tagged }
            var dictionary: [String: Value] = [:]
            dictionary.reserveCapacity(members.count)
            for (key, member) in members {
                do throws(PathedError) {
                    dictionary[key] = try converting(member, isArrayElement: false)
                } catch {
                    throw PathedError(steps: error.steps + [step(key)], message: error.message)
                }
            }
            return .dictionary(dictionary)
        }
    }

    /// Integers stay integers where a 64-bit type holds them, so that arithmetic and printing
    /// behave as they would for the same literal in a rule.
    private static func value(of number: JSON.Number) -> Value {
        if number.isInteger {
            if let value = Int64(number.text) { return .int(value) }
            if let value = UInt64(number.text) { return .uint(value) }
        }
        return .double(number.doubleValue)
    }

    /// The value of a one-member object if its key is a tag, or `nil` for an ordinary object.
    private static func convertingTagged(_ member: (key: String, value: JSON)) throws(PathedError) -> Value? {
        switch member.key {
        case JSONTag.date:
            guard let seconds = taggedDouble(member.value) else {
                throw PathedError(
                    steps: [step(member.key)],
                    message: "expected a number of seconds since 2001-01-01T00:00:00Z, found \(member.value.typeName)")
            }
            return .date(secondsSinceReferenceDate: seconds)
        case JSONTag.data:
            guard case .string(let text) = member.value, let bytes = JSONBase64.decode(text) else {
                throw PathedError(
                    steps: [step(member.key)], message: "expected a Base64 string (standard alphabet, padded)")
            }
            return .data(bytes)
        case JSONTag.double:
            guard let value = taggedDouble(.object([member])) else {
                throw PathedError(
                    steps: [step(member.key)], message: "expected a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
            }
            return .double(value)
        default:
            return nil
        }
    }

    /// A number, or a `{"$double": …}` object, as a `Double`.
    private static func taggedDouble(_ json: JSON) -> Double? {
        switch json {
        case .number(let number):
            return number.doubleValue
        case .object(let members) where members.count == 1 && members[0].key == JSONTag.double:
            switch members[0].value {
            case .number(let number): return number.doubleValue
            case .string("NaN"): return .nan
            case .string("Infinity"): return .infinity
            case .string("-Infinity"): return -.infinity
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `.key` for plain keys, `["key"]` for any other.
    private static func step(_ key: String) -> String {
        let isPlain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || $0 == "_" || $0 == "$" || ("0"..."9").contains($0)
            }
        return isPlain ? ".\(key)" : "[\(JSON.string(key).serialized)]"
    }
}

extension JSON {
    /// Converts a value of the predicate language to JSON, the inverse of ``Value/init(json:)``.
    ///
    /// ``Value/nil`` and ``Value/null`` both become `null`; numbers are written exactly
    /// (doubles in their shortest round-tripping form, always with a `.` or an exponent so they
    /// read back as doubles); dates become `{"$date": seconds}`; data becomes
    /// `{"$data": "base64"}`; NaN and the infinities become `{"$double": "NaN"}` and so on;
    /// dictionaries become objects with their keys sorted, so output is deterministic.
    ///
    /// Reading the result back with ``Value/init(json:)`` gives an equal value, except that a
    /// ``Value/null`` outside an array comes back as ``Value/nil`` and a ``Value/nil`` inside an
    /// array comes back as ``Value/null``, and a dictionary whose only key is `$date`, `$data`
    /// or `$double` reads back as the tagged kind (or fails to). Decimals become numbers, sets
    /// arrays, and host objects objects of their fields.
    ///
    /// - Parameter value: The value to convert.
    public init(_ value: Value) {
        switch value {
        case .nil, .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Number(value))
        case .uint(let value): self = .number(Number(value))
        case .double(let value): self = JSON.double(value)
        case .string(let value): self = .string(value)
        case .date(let seconds): self = .object([(key: JSONTag.date, value: JSON.double(seconds))])
        case .data(let bytes): self = .object([(key: JSONTag.data, value: .string(JSONBase64.encode(bytes)))])
        case .decimal(let value):
            self = Number(text: value.description).map(JSON.number) ?? JSON.double(Double(value.description) ?? .nan)
        case .array(let elements), .set(let elements): self = .array(elements.map { JSON($0) })
        case .object(let object):
            self = .object(
                object.schema.fields.indices.map { slot in
                    (key: object.schema.fields[slot].name, value: JSON(object.value(atSlot: slot)))
                })
        case .dictionary(let dictionary):
            self = .object(dictionary.keys.sorted().map { key in (key: key, value: JSON(dictionary[key] ?? .nil)) })
        }
    }

    private static func double(_ value: Double) -> JSON {
        if let number = Number(value) { return .number(number) }
        let name = value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"
        return .object([(key: JSONTag.double, value: .string(name))])
    }
}

/// Standard Base64 (RFC 4648 §4) without line breaks.
enum JSONBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` unless it is canonical padded Base64.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var group: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if byte == UInt8(ascii: "=") {
                    // Padding may only fill the last one or two places of the final group.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    group <<= 6
                    continue
                }
                guard padding == 0, let digit = sextet(byte) else { return nil }
                group = group << 6 | UInt32(digit)
            }
            output.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { output.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { output.append(UInt8(group & 0xFF)) }
            // Non-zero bits under the padding would mean two texts decode to the same bytes.
            if padding == 1, group & 0xFF != 0 { return nil }
            if padding == 2, group & 0xFFFF != 0 { return nil }
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
