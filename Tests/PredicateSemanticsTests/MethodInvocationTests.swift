import PredicateValue
import Testing

@testable import PredicateSemantics

/// The `FUNCTION` selectors added for rules found in the wild (issue 17), one line per selector
/// and receiver: what Apple's method of that name answers, or the error it gets here.
@Suite struct MethodInvocationTests {
    enum Outcome: Sendable {
        case value(Value)
        case error(EvaluationError.Kind)
    }

    struct Call: CustomTestStringConvertible, Sendable {
        let receiver: Value
        let selector: String
        let arguments: [Value]
        let outcome: Outcome
        var testDescription: String { "\(receiver.kindName) \(selector)" }
    }

    private static func call(_ receiver: Value, _ selector: String, _ arguments: Value..., gives value: Value) -> Call {
        Call(receiver: receiver, selector: selector, arguments: arguments, outcome: .value(value))
    }
    private static func call(
        _ receiver: Value, _ selector: String, _ arguments: Value..., fails kind: EvaluationError.Kind
    ) -> Call {
        Call(receiver: receiver, selector: selector, arguments: arguments, outcome: .error(kind))
    }

    static let day = Value.date(secondsSinceReferenceDate: 86_400)

    static let calls: [Call] = [
        call(
            .string("toto"), "stringByReplacingOccurrencesOfString:withString:", .string("o"), .string("a"),
            gives: .string("tata")),
        call(
            .string("abc"), "stringByReplacingOccurrencesOfString:withString:", .string(""), .string("x"),
            gives: .string("abc")),
        call(.string("a/path"), "substringFromIndex:", .int(2), gives: .string("path")),
        call(.string("a/path"), "substringToIndex:", .uint(1), gives: .string("a")),
        call(.string("abc"), "substringToIndex:", .double(1.5), fails: .typeMismatch),
        call(.string("abc"), "substringFromIndex:", .int(9), fails: .indexOutOfRange),
        call(
            .string("a b"), "componentsSeparatedByString:", .string(" "), gives: .array([.string("a"), .string("b")])),
        call(.string("abc"), "isEqualToString:", .string("abd"), gives: .bool(false)),
        call(.string("abc"), "isEqualToString:", .int(1), fails: .typeMismatch),
        call(.string("/a/b"), "stringByDeletingLastPathComponent", gives: .string("/a")),
        call(.string("a"), "stringByAppendingPathComponent:", .string("b"), gives: .string("a/b")),
        call(.string("a"), "stringByAppendingPathExtension:", .string("txt"), gives: .string("a.txt")),
        call(.string("a"), "compare:", .string("b"), gives: .int(-1)),
        call(.string("a"), "compare:", .nil, fails: .invalidArgument),
        call(.int(3), "compare:", .double(3), gives: .int(0)),
        call(.int(3), "isEqualToNumber:", .uint(3), gives: .bool(true)),
        call(.int(3), "description", gives: .string("3")),
        call(day, "timeIntervalSinceDate:", .date(secondsSinceReferenceDate: 0), gives: .double(86_400)),
        call(day, "dateByAddingTimeInterval:", .int(-86_400), gives: .date(secondsSinceReferenceDate: 0)),
        call(day, "dateByAddingTimeInterval:", .bool(true), fails: .typeMismatch),
        call(day, "isEqualToDate:", day, gives: .bool(true)),
        call(day, "earlierDate:", .date(secondsSinceReferenceDate: 0), gives: .date(secondsSinceReferenceDate: 0)),
        call(day, "laterDate:", .date(secondsSinceReferenceDate: 0), gives: day),
        call(day, "compare:", .int(1), fails: .typeMismatch),
        call(.array([.int(1), .int(2)]), "objectAtIndex:", .int(0), gives: .int(1)),
        call(.array([.int(1)]), "objectAtIndex:", .int(1), fails: .indexOutOfRange),
        call(.array([.int(1), .null]), "indexOfObject:", .nil, gives: .int(MethodInvocation.notFound)),
        call(.array([.int(1), .null]), "indexOfObject:", .int(1), gives: .int(0)),
        call(.array([.string("a"), .int(1)]), "componentsJoinedByString:", .string("-"), gives: .string("a-1")),
        call(.array([]), "arrayByAddingObject:", .string("a"), gives: .array([.string("a")])),
        call(.array([]), "arrayByAddingObjectsFromArray:", .string("a"), fails: .typeMismatch),
        call(.dictionary(["b": .int(1), "a": .int(2)]), "allKeys", gives: .array([.string("a"), .string("b")])),
        call(.dictionary(["b": .int(1), "a": .int(2)]), "allValues", gives: .array([.int(2), .int(1)])),
        call(
            .string("abc"), "stringByReplacingCharactersInRange:withString:", .int(0), .string("x"), fails: .unsupported
        ),
        call(.int(1), "substringFromIndex:", .int(0), fails: .unsupported),
        call(.string("abc"), "substringFromIndex:", fails: .invalidArgument),
    ]

    @Test(arguments: calls) func invokes(_ call: Call) {
        do {
            let value = try MethodInvocation.invoke(call.selector, on: call.receiver, arguments: call.arguments)
            guard case .value(let expected) = call.outcome else {
                Issue.record("expected an error, got \(value)")
                return
            }
            #expect(value == expected)
        } catch {
            guard case .error(let kind) = call.outcome else {
                Issue.record("expected a value, got \(error)")
                return
            }
            #expect(error.kind == kind, "\(error)")
        }
    }

    /// A replacement that would build a huge string is refused before it is built.
    @Test func replacementHasALimit() {
        let long = Value.string(String(repeating: "a", count: 5_000))
        let replacement = Value.string(String(repeating: "b", count: 5_000))
        #expect(throws: EvaluationError.self) {
            try MethodInvocation.invoke(
                "stringByReplacingOccurrencesOfString:withString:", on: long, arguments: [.string("a"), replacement])
        }
    }

    /// Every selector the registry lists is answered for some receiver.
    @Test func everyListedSelectorIsTested() {
        let tested = Set(Self.calls.map(\.selector))
        let added = [
            "stringByReplacingOccurrencesOfString:withString:", "componentsSeparatedByString:", "substringFromIndex:",
            "substringToIndex:", "isEqualToString:", "stringByDeletingLastPathComponent",
            "stringByAppendingPathComponent:", "stringByAppendingPathExtension:", "compare:", "isEqualToNumber:",
            "description", "timeIntervalSinceDate:", "dateByAddingTimeInterval:", "isEqualToDate:", "earlierDate:",
            "laterDate:", "objectAtIndex:", "indexOfObject:", "componentsJoinedByString:", "arrayByAddingObject:",
            "arrayByAddingObjectsFromArray:", "allKeys", "allValues",
        ]
        for selector in added {
            #expect(tested.contains(selector), "\(selector)")
            #expect(MethodInvocation.supportedSelectors.contains(selector), "\(selector)")
        }
    }
}
