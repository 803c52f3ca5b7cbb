import Foundation
import PredicateSyntax
import PredicateValue

/// Apple's key-value coding, as far as the language depends on it (SPEC §4.2).
public enum KeyValueAccess {
    /// The first `.` of `key`, found in its UTF-8 bytes at once when they are contiguous.
    @inline(__always)
    static func firstDot(in key: String) -> String.Index? {
        let dot = UInt8(ascii: ".")
        if let offset = key.utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: dot) }) {
            return offset.map { key.utf8.index(key.utf8.startIndex, offsetBy: $0) }
        }
        return key.utf8.firstIndex(of: dot)
    }

    // MARK: - valueForKeyPath

    /// `valueForKeyPath:` on `receiver` with the dotted `path` (SPEC §4.2.2).
    ///
    /// Dictionaries first try the whole remaining path as one key, so `userInfo.com.example.bit`
    /// finds the entry `com.example.bit`; arrays and sets map the path over their elements; a
    /// `nil` anywhere yields `nil`.
    public static func value(forKeyPath path: Substring, of receiver: Value) throws(EvaluationError) -> Value {
        // Byte scans: `.` and `@` are ASCII, and Character-based search walks grapheme clusters.
        let dot = path.utf8.firstIndex(of: UInt8(ascii: "."))
        let isOperator = path.utf8.first == UInt8(ascii: "@")
        switch receiver {
        case .nil:
            return .nil
        case .array, .set:
            if isOperator {
                guard let dot else { return try value(forKey: path, of: receiver) }
                let op = path[path.index(after: path.startIndex)..<dot]
                return try collectionOperator(op, rest: path[path.index(after: dot)...], of: receiver)
            }
        case .dictionary(let entries):
            if isOperator {
                if dot != nil {
                    throw EvaluationError(
                        .unknownKey, "a dictionary does not support the collection operator in '\(path)'")
                }
                return try value(forKey: path, of: receiver)
            }
            if dot != nil, let whole = entries[String(path)], !whole.isNil { return whole }
        default:
            break
        }
        guard let dot else { return try value(forKey: path, of: receiver) }
        let head = try value(forKey: path[..<dot], of: receiver)
        return try value(forKeyPath: path[path.index(after: dot)...], of: head)
    }

    // MARK: - Key path expressions

    /// `base.components` as a key-path expression reads it (SPEC §4.2.2–§4.2.3), for every engine.
    ///
    /// While the receiver is an object, keys are read one at a time (a bound field by its slot);
    /// from the first dictionary, collection or dotted key on, the rest is read as one dotted path,
    /// which is where the dictionary "whole remaining path first" rule lives. For an object
    /// receiver the two are the same: `valueForKeyPath:` splits at the first dot.
    ///
    /// - Parameter variable: The value of a `$variable` component (which must hold a string).
    public static func value(
        along components: [KeyComponent], from base: Value,
        variable: (String) throws(EvaluationError) -> Value
    ) throws(EvaluationError) -> Value {
        var receiver = base
        var index = components.startIndex
        stepping: while index < components.endIndex, case .object(let object) = receiver {
            switch components[index] {
            case .field(let field) where object.schema === field.schema.schema:
                receiver = object.value(atSlot: field.slot)
            case .field(let field):
                receiver = try value(forKey: field.key, of: receiver)
            case .key(let key) where !key.utf8.contains(UInt8(ascii: ".")):
                receiver = try value(forKey: key, of: receiver)
            default:
                break stepping
            }
            index += 1
        }
        if receiver.isNil || index == components.endIndex { return receiver }
        if index == components.index(before: components.endIndex), let key = components[index].key {
            if case .dictionary(let entries) = receiver, key.utf8.first != UInt8(ascii: "@") {
                // One key left on a dictionary (`userInfo.rank`, `userInfo."com.example.flag"`):
                // `valueForKey:` for a dotless key; for a dotted one the whole key first, and only
                // then the parts in turn (below), where a missing (or nil) first part ends with nil.
                if let found = DictionaryKeyLookup(key).value(in: entries) { return found }
            } else if firstDot(in: key) == nil {
                // One dotless key left: `valueForKeyPath:` is `valueForKey:` (no whole-path
                // lookup, no operator remainder), so skip building a path.
                return try value(forKey: key, of: receiver)
            }
        }
        var path = ""
        for component in components[index...] {
            if !path.isEmpty { path += "." }
            switch component {
            case .key(let key):
                path += key
            case .field(let field):
                path += field.key
            case .variable(let name):
                guard case .string(let key) = try variable(name) else {
                    throw EvaluationError(
                        .typeMismatch, "the variable $\(name) is used as a key, so it must hold a string")
                }
                path += key
            }
        }
        return try value(forKeyPath: Substring(path), of: receiver)
    }

    // MARK: - valueForKey

    /// `valueForKey:` with a whole key: a dictionary is looked up without copying the key.
    public static func value(forKey key: String, of receiver: Value) throws(EvaluationError) -> Value {
        switch receiver {
        case .dictionary(let entries) where key.utf8.first != UInt8(ascii: "@"):
            return entries[key] ?? .nil
        case .object(let object) where key != "self":
            if let result = object.value(forKey: key) { return result }
        default:
            break
        }
        return try value(forKey: key[...], of: receiver)
    }

    /// `valueForKey:` on `receiver` (SPEC §4.2.1).
    public static func value(forKey key: Substring, of receiver: Value) throws(EvaluationError) -> Value {
        let isOperator = key.utf8.first == UInt8(ascii: "@")
        switch receiver {
        case .nil:
            return .nil
        case .dictionary(let entries):
            if isOperator { return try dictionaryProperty(key.dropFirst(), of: entries) }
            return entries[String(key)] ?? .nil
        case .array(let elements):
            if isOperator { return try collectionProperty(key.dropFirst(), of: elements) }
            return .array(
                try elements.map { element throws(EvaluationError) in
                    try value(forKey: key, of: element).asCollectionElement
                })
        case .set(let elements):
            if isOperator { return try collectionProperty(key.dropFirst(), of: elements) }
            var mapped: [Value] = []
            for element in elements {
                let result = try value(forKey: key, of: element).asCollectionElement
                if !mapped.contains(where: { ValueComparison.isEqual($0, result) }) { mapped.append(result) }
            }
            return .set(mapped)
        case .null:
            throw EvaluationError(
                .unknownKey,
                "cannot read '\(key)' of null (a missing value inside a collection); use SUBQUERY to skip missing values"
            )
        case .object(let object):
            if key == "self" { return receiver }
            guard let result = object.value(forKey: String(key)) else {
                throw EvaluationError(.unknownKey, UnknownKeyMessages.shared.message(key, of: object.schema))
            }
            return result
        default:
            if key == "self" { return receiver }
            if let result = try virtualKey(key, of: receiver) { return result }
            throw EvaluationError(.unknownKey, "\(ValueComparison.describe(receiver)) has no key '\(key)'")
        }
    }

    /// "`FileProviderItem` has no key 'uploadded'; did you mean 'uploaded'?"
    static func unknownKeyMessage(_ key: Substring, typeName: String, known: [String]) -> String {
        let lowered = key.lowercased()
        // Each key's distance once (the first of the nearest, as `min` would pick).
        let nearest = known.lazy.map { (key: $0, distance: editDistance(lowered, $0.lowercased())) }
            .min { $0.distance < $1.distance }
        if let nearest, nearest.distance <= max(1, key.count / 3) {
            return "\(typeName) has no key '\(key)'; did you mean '\(nearest.key)'?"
        }
        return "\(typeName) has no key '\(key)'"
    }

    /// `@count`, `@allKeys`, `@allValues` on a dictionary.
    private static func dictionaryProperty(
        _ name: Substring, of entries: [String: Value]
    ) throws(EvaluationError) -> Value {
        switch name {
        case "count": return .int(Int64(entries.count))
        case "allKeys": return .array(entries.keys.sorted().map { .string($0) })
        case "allValues": return .array(entries.keys.sorted().map { (entries[$0] ?? .nil).asCollectionElement })
        default: throw EvaluationError(.unknownKey, "a dictionary has no key '@\(name)'")
        }
    }

    /// `@count`, `@firstObject`, `@lastObject` on an array or a set.
    private static func collectionProperty(_ name: Substring, of elements: [Value]) throws(EvaluationError) -> Value {
        switch name {
        case "count": return .int(Int64(elements.count))
        case "firstObject": return elements.first ?? .nil
        case "lastObject": return elements.last ?? .nil
        default:
            throw EvaluationError(
                .unknownKey, "the collection operator '@\(name)' needs a key path after it, as in @\(name).price")
        }
    }

    // MARK: - Collection operators

    /// `receiver.@op.rest` (SPEC §4.2.5).
    private static func collectionOperator(
        _ op: Substring, rest: Substring, of receiver: Value
    ) throws(EvaluationError) -> Value {
        let elements: [Value]
        switch receiver {
        case .array(let values), .set(let values): elements = values
        default: return .nil
        }
        if op == "count" { return .int(Int64(elements.count)) }
        var results: [Value] = []
        for element in elements {
            let result = try value(forKeyPath: rest, of: element)
            if !result.isNil { results.append(result) }
        }
        switch op {
        case "sum", "avg":
            var total = Decimal(0)
            for result in results {
                guard let number = Number(result) else {
                    throw EvaluationError(
                        .typeMismatch, "@\(op) needs numbers; '\(rest)' gave \(ValueComparison.describe(result))")
                }
                total += decimal(number)
            }
            if op == "sum" { return .decimal(total) }
            return elements.isEmpty ? .nil : .decimal(total / Decimal(elements.count))
        case "min", "max":
            var best: Value?
            for result in results {
                guard let current = best else {
                    best = result
                    continue
                }
                let order = try ValueComparison.compare(result, current)
                if (op == "min" && order == .ascending) || (op == "max" && order == .descending) { best = result }
            }
            return best ?? .nil
        case "unionOfObjects":
            return .array(results)
        case "distinctUnionOfObjects":
            return .array(distinct(results))
        case "unionOfArrays", "distinctUnionOfArrays", "unionOfSets", "distinctUnionOfSets":
            var joined: [Value] = []
            for result in results {
                switch result {
                case .array(let inner), .set(let inner): joined += inner
                default:
                    throw EvaluationError(
                        .typeMismatch, "@\(op) needs collections; '\(rest)' gave \(ValueComparison.describe(result))")
                }
            }
            return .array(op == "unionOfArrays" ? joined : distinct(joined))
        default:
            throw EvaluationError(.unknownKey, "unsupported collection operator '@\(op)'")
        }
    }

    private static func decimal(_ number: Number) -> Decimal {
        switch number {
        case .signed(let integer): return Decimal(integer)
        case .unsigned(let integer): return Decimal(integer)
        case .floating(let double): return Decimal(double)
        }
    }

    /// Elements without duplicates (by `isEqual`), in first-occurrence order.
    static func distinct(_ values: [Value]) -> [Value] {
        var result: [Value] = []
        for value in values where !result.contains(where: { ValueComparison.isEqual($0, value) }) {
            result.append(value)
        }
        return result
    }

    // MARK: - Virtual keys of value types

    /// The zero-argument methods that KVC reaches on strings, numbers, dates and data (SPEC §4.2.6).
    private static func virtualKey(_ key: Substring, of receiver: Value) throws(EvaluationError) -> Value? {
        switch receiver {
        case .string(let text):
            switch key {
            case "length": return .uint(UInt64(text.utf16.count))
            case "uppercaseString": return .string(text.uppercased())
            case "lowercaseString": return .string(text.lowercased())
            case "capitalizedString": return .string(text.capitalized)
            case "pathExtension": return .string((text as NSString).pathExtension)
            case "lastPathComponent": return .string((text as NSString).lastPathComponent)
            case "stringByDeletingPathExtension": return .string((text as NSString).deletingPathExtension)
            case "intValue": return .int(Int64((text as NSString).intValue))
            case "integerValue", "longLongValue": return .int((text as NSString).longLongValue)
            case "doubleValue": return .double((text as NSString).doubleValue)
            case "floatValue": return .double(Double((text as NSString).floatValue))
            case "boolValue": return .bool((text as NSString).boolValue)
            case "description": return receiver
            default: return nil
            }
        case .bool, .int, .uint, .double, .decimal:
            guard let number = Number(receiver) else { return nil }
            switch key {
            case "intValue":
                return .int(Int64(Int32(truncatingIfNeeded: try Arithmetic.bits(receiver, of: String(key)))))
            case "integerValue", "longLongValue": return .int(try Arithmetic.bits(receiver, of: String(key)))
            case "doubleValue", "floatValue": return .double(number.doubleValue)
            case "boolValue": return .bool(number.doubleValue != 0)
            case "stringValue", "description": return .string(Cast.text(of: receiver))
            default: return nil
            }
        case .date(let seconds):
            switch key {
            case "timeIntervalSinceReferenceDate": return .double(seconds)
            case "timeIntervalSince1970": return .double(seconds + Date.timeIntervalBetween1970AndReferenceDate)
            case "description": return .string(Cast.text(of: receiver))
            default: return nil
            }
        case .data(let bytes):
            return key == "length" ? .uint(UInt64(bytes.count)) : nil
        default:
            return nil
        }
    }
}

extension Value {
    /// A value as a collection stores it: `nil` becomes `null` (SPEC §4.2.4, §4.9.5).
    public var asCollectionElement: Value { self.isNil ? .null : self }
}
