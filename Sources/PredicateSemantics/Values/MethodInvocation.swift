import Foundation
import PredicateValue

/// `FUNCTION(receiver, 'selector', args…)` (SPEC §4.9.4). Apple sends a real Objective-C
/// message; here a registry of `(receiver kind, selector)` pairs stands in for it, and any other
/// selector is an error rather than a guess.
public enum MethodInvocation {
    /// The selectors `FUNCTION` understands, for documentation and checkers.
    public static let supportedSelectors: [String] = [
        // NSString
        "lastPathComponent", "pathExtension", "stringByDeletingPathExtension", "stringByDeletingLastPathComponent",
        "uppercaseString", "lowercaseString", "capitalizedString", "length", "hasPrefix:", "hasSuffix:",
        "containsString:", "isEqualToString:", "stringByAppendingString:",
        "stringByReplacingOccurrencesOfString:withString:", "componentsSeparatedByString:", "substringFromIndex:",
        "substringToIndex:", "stringByAppendingPathComponent:", "stringByAppendingPathExtension:",
        // NSString and NSNumber
        "intValue", "integerValue", "longLongValue", "doubleValue", "floatValue", "boolValue", "stringValue",
        "description", "compare:", "isEqualToNumber:",
        // NSDate
        "timeIntervalSinceReferenceDate", "timeIntervalSince1970", "timeIntervalSinceNow", "timeIntervalSinceDate:",
        "dateByAddingTimeInterval:", "isEqualToDate:", "earlierDate:", "laterDate:",
        // NSArray, NSSet, NSDictionary
        "count", "firstObject", "lastObject", "containsObject:", "objectAtIndex:", "indexOfObject:",
        "componentsJoinedByString:", "arrayByAddingObject:", "arrayByAddingObjectsFromArray:", "objectForKey:",
        "allKeys", "allValues", "valueForKey:", "valueForKeyPath:",
    ]

    /// `NSNotFound`, what `indexOfObject:` answers for a missing element.
    static let notFound = Int64.max

    /// The longest string, in UTF-16 code units, that a `FUNCTION` call may build: a rule that
    /// replaces every character of a long string with a long string gets an error, not all the
    /// memory.
    static let maximumResultLength = 1 << 24

    /// Invokes `selector` on `receiver` (never `nil`: the evaluator returns `nil` for a `nil`
    /// receiver without evaluating the arguments).
    public static func invoke(
        _ selector: String, on receiver: Value, arguments: [Value]
    ) throws(EvaluationError) -> Value {
        let colons = selector.filter { $0 == ":" }.count
        guard colons == arguments.count else {
            throw EvaluationError(
                .invalidArgument,
                "the selector '\(selector)' takes \(colons) argument(s), FUNCTION gave \(arguments.count)")
        }
        if let result = try invokeAddition(selector, on: receiver, arguments: arguments) { return result }
        switch (receiver, selector) {
        case (.string(let text), "hasPrefix:"): return .bool(text.hasPrefix(try string(arguments[0], selector)))
        case (.string(let text), "hasSuffix:"): return .bool(text.hasSuffix(try string(arguments[0], selector)))
        case (.string(let text), "containsString:"):
            let needle = try string(arguments[0], selector)
            return .bool(!needle.isEmpty && text.contains(needle))
        case (.string(let text), "stringByAppendingString:"):
            return .string(text + (try string(arguments[0], selector)))
        case (.date(let seconds), "timeIntervalSinceNow"):
            return .double(seconds - Date().timeIntervalSinceReferenceDate)
        case (.array(let elements), "count"), (.set(let elements), "count"): return .int(Int64(elements.count))
        case (.dictionary(let entries), "count"): return .int(Int64(entries.count))
        case (.array(let elements), "firstObject"): return elements.first ?? .nil
        case (.array(let elements), "lastObject"): return elements.last ?? .nil
        case (.array(let elements), "containsObject:"), (.set(let elements), "containsObject:"):
            return .bool(elements.contains { ValueComparison.isEqual($0, arguments[0]) })
        case (.dictionary(let entries), "objectForKey:"):
            guard case .string(let key) = arguments[0] else { return .nil }
            return entries[key] ?? .nil
        case (_, "valueForKey:"):
            return try KeyValueAccess.value(forKey: Substring(try string(arguments[0], selector)), of: receiver)
        case (_, "valueForKeyPath:"):
            return try KeyValueAccess.value(forKeyPath: Substring(try string(arguments[0], selector)), of: receiver)
        case (.string, _), (.bool, _), (.int, _), (.uint, _), (.double, _), (.decimal, _), (.date, _):
            let key = selector == "stringValue" && receiver.stringValue != nil ? "description" : selector
            if colons == 0, MethodInvocation.supportedSelectors.contains(selector),
                let result = try? KeyValueAccess.value(forKey: Substring(key), of: receiver)
            {
                return result
            }
        default:
            break
        }
        throw EvaluationError(
            .unsupported, "FUNCTION cannot send '\(selector)' to \(ValueComparison.describe(receiver)) here")
    }

    /// The selectors added for rules found in the wild (issue 17), with the semantics of
    /// Apple's methods of the same names; `nil` when `selector` is not one of them for this
    /// receiver.
    private static func invokeAddition(
        _ selector: String, on receiver: Value, arguments: [Value]
    ) throws(EvaluationError) -> Value? {
        switch (receiver, selector) {
        case (.string(let text), "stringByReplacingOccurrencesOfString:withString:"):
            let target = try string(arguments[0], selector)
            let replacement = try string(arguments[1], selector)
            // NSString finds no occurrence of the empty string.
            guard !target.isEmpty else { return receiver }
            let most = text.utf16.count + text.utf16.count / target.utf16.count * replacement.utf16.count
            guard most <= maximumResultLength || !text.contains(target) else { throw tooLong(selector) }
            return .string((text as NSString).replacingOccurrences(of: target, with: replacement))
        case (.string(let text), "componentsSeparatedByString:"):
            let separator = try string(arguments[0], selector)
            guard !separator.isEmpty else { return .array([receiver]) }
            return .array((text as NSString).components(separatedBy: separator).map(Value.string))
        case (.string(let text), "substringFromIndex:"), (.string(let text), "substringToIndex:"):
            let units = Array(text.utf16)
            let index = try position(arguments[0], selector, in: units.count + 1)
            let part = selector == "substringFromIndex:" ? units[index...] : units[..<index]
            return .string(String(decoding: part, as: UTF16.self))
        case (.string(let text), "isEqualToString:"):
            return .bool(text.utf16.elementsEqual(try string(arguments[0], selector).utf16))
        case (.string(let text), "stringByDeletingLastPathComponent"):
            return .string((text as NSString).deletingLastPathComponent)
        case (.string(let text), "stringByAppendingPathComponent:"):
            let component = try string(arguments[0], selector)
            guard text.utf16.count + component.utf16.count < maximumResultLength else { throw tooLong(selector) }
            return .string((text as NSString).appendingPathComponent(component))
        case (.string(let text), "stringByAppendingPathExtension:"):
            let pathExtension = try string(arguments[0], selector)
            guard text.utf16.count + pathExtension.utf16.count < maximumResultLength else { throw tooLong(selector) }
            return (text as NSString).appendingPathExtension(pathExtension).map(Value.string) ?? .nil
        case (.string, "compare:"), (.bool, "compare:"), (.int, "compare:"), (.uint, "compare:"),
            (.double, "compare:"), (.decimal, "compare:"), (.date, "compare:"):
            // NSComparisonResult: -1 ascending, 0 same, 1 descending; other classes raise.
            guard !arguments[0].isNil else {
                throw EvaluationError(.invalidArgument, "'compare:' needs an argument, got nil")
            }
            switch try ValueComparison.compare(receiver, arguments[0]) {
            case .ascending: return .int(-1)
            case .same: return .int(0)
            case .descending: return .int(1)
            }
        case (.bool, "isEqualToNumber:"), (.int, "isEqualToNumber:"), (.uint, "isEqualToNumber:"),
            (.double, "isEqualToNumber:"), (.decimal, "isEqualToNumber:"):
            guard Number(arguments[0]) != nil else { throw wrongArgument(selector, "a number", arguments[0]) }
            return .bool(ValueComparison.isEqual(receiver, arguments[0]))
        case (.date(let seconds), "timeIntervalSinceDate:"):
            return .double(seconds - (try date(arguments[0], selector)))
        case (.date(let seconds), "dateByAddingTimeInterval:"):
            var isFlag = false
            if case .bool = arguments[0] { isFlag = true }
            guard !isFlag, let number = Number(arguments[0]) else {
                throw wrongArgument(selector, "a number of seconds", arguments[0])
            }
            return .date(secondsSinceReferenceDate: seconds + number.doubleValue)
        case (.date(let seconds), "isEqualToDate:"):
            return .bool(seconds == (try date(arguments[0], selector)))
        case (.date(let seconds), "earlierDate:"), (.date(let seconds), "laterDate:"):
            let other = try date(arguments[0], selector)
            let earlier = other < seconds
            return (selector == "earlierDate:") == earlier ? arguments[0] : receiver
        case (.array(let elements), "objectAtIndex:"):
            return elements[try position(arguments[0], selector, in: elements.count)]
        case (.array(let elements), "indexOfObject:"):
            let index = elements.firstIndex { ValueComparison.isEqual($0, arguments[0]) }
            return .int(index.map { Int64($0) } ?? notFound)
        case (.array(let elements), "componentsJoinedByString:"):
            let separator = try string(arguments[0], selector)
            let texts = elements.map(Cast.text(of:))
            let length = texts.reduce(0) { $0 + $1.utf16.count } + separator.utf16.count * max(0, texts.count - 1)
            guard length <= maximumResultLength else { throw tooLong(selector) }
            return .string(texts.joined(separator: separator))
        case (.array(let elements), "arrayByAddingObject:"):
            guard !arguments[0].isNil else {
                throw EvaluationError(.invalidArgument, "'arrayByAddingObject:' cannot add nil to an array")
            }
            return .array(elements + [arguments[0]])
        case (.array(let elements), "arrayByAddingObjectsFromArray:"):
            switch arguments[0] {
            case .array(let more), .set(let more): return .array(elements + more)
            default: throw wrongArgument(selector, "an array", arguments[0])
            }
        case (.dictionary(let entries), "allKeys"):
            return .array(entries.keys.sorted().map(Value.string))
        case (.dictionary(let entries), "allValues"):
            return .array(entries.keys.sorted().map { entries[$0] ?? .null })
        default:
            return nil
        }
    }

    /// A position argument (`NSUInteger`): a whole number in `0..<limit`.
    private static func position(_ value: Value, _ selector: String, in limit: Int) throws(EvaluationError) -> Int {
        let index: Int64
        switch value {
        case .int(let number): index = number
        case .uint(let number): index = number > UInt64(Int64.max) ? .max : Int64(number)
        case .double(let number) where number == number.rounded() && Swift.abs(number) < 9e18: index = Int64(number)
        default: throw wrongArgument(selector, "a whole number", value)
        }
        guard index >= 0, index < Int64(limit) else {
            throw EvaluationError(
                .indexOutOfRange, "'\(selector)': index \(index) is beyond bounds (0...\(max(0, limit - 1)))")
        }
        return Int(index)
    }

    private static func date(_ value: Value, _ selector: String) throws(EvaluationError) -> Double {
        guard case .date(let seconds) = value else { throw wrongArgument(selector, "a date", value) }
        return seconds
    }

    private static func wrongArgument(_ selector: String, _ wanted: String, _ value: Value) -> EvaluationError {
        EvaluationError(.typeMismatch, "'\(selector)' needs \(wanted) argument, got \(ValueComparison.describe(value))")
    }

    private static func tooLong(_ selector: String) -> EvaluationError {
        EvaluationError(
            .limitExceeded, "'\(selector)' would build a string longer than \(maximumResultLength) UTF-16 code units")
    }

    private static func string(_ value: Value, _ selector: String) throws(EvaluationError) -> String {
        guard case .string(let text) = value else {
            throw EvaluationError(
                .typeMismatch, "'\(selector)' needs a string argument, got \(ValueComparison.describe(value))")
        }
        return text
    }
}
