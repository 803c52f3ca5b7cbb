import Foundation
import PredicateValue

/// `FUNCTION(receiver, 'selector', args…)` (SPEC §4.9.4). Apple sends a real Objective-C
/// message; here a registry of `(receiver kind, selector)` pairs stands in for it, and any other
/// selector is an error rather than a guess.
public enum MethodInvocation {
    /// The selectors `FUNCTION` understands, for documentation and checkers.
    public static let supportedSelectors: [String] = [
        "lastPathComponent", "pathExtension", "stringByDeletingPathExtension", "uppercaseString",
        "lowercaseString", "length", "hasPrefix:", "hasSuffix:", "containsString:", "stringByAppendingString:",
        "intValue", "integerValue", "doubleValue", "boolValue", "stringValue", "timeIntervalSinceReferenceDate",
        "timeIntervalSince1970", "timeIntervalSinceNow", "count", "firstObject", "lastObject", "containsObject:",
        "objectForKey:", "valueForKey:", "valueForKeyPath:",
    ]

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

    private static func string(_ value: Value, _ selector: String) throws(EvaluationError) -> String {
        guard case .string(let text) = value else {
            throw EvaluationError(
                .typeMismatch, "'\(selector)' needs a string argument, got \(ValueComparison.describe(value))")
        }
        return text
    }
}
