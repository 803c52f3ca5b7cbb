import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// One line of a conformance file (see `Cases/README.md`): a rule, an object, and what every
/// engine must answer.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case result(Bool)
        case error(EvaluationError.Kind)
        case parseError
        case value(Value, floating: Bool?)
    }

    let location: String
    let rule: String
    let isExpression: Bool
    let object: Value
    let expected: Expected
    let variables: [String: Value]
    let arguments: [Value]

    var testDescription: String { "\(location): \(rule)" }
}

/// What an engine produced for a case.
enum ConformanceOutcome: CustomStringConvertible {
    case result(Bool)
    case value(Value)
    case error(EvaluationError)
    case parseError(Diagnostic)

    var description: String {
        switch self {
        case .result(let flag): return "\(flag)"
        case .value(let value): return "= \(value)"
        case .error(let error): return "error \(error.kind): \(error.message)"
        case .parseError(let diagnostic): return "parse error: \(diagnostic)"
        }
    }
}

extension ConformanceCase {
    /// Checks an engine's outcome against the expectation, recording an issue on mismatch.
    func check(_ outcome: ConformanceOutcome, engine: String) {
        let comment = Comment(rawValue: "\(engine) on \(location): \(rule) ⟶ \(outcome)")
        switch (expected, outcome) {
        case (.result(let expected), .result(let actual)):
            #expect(expected == actual, comment)
        case (.error(let expected), .error(let actual)):
            #expect(expected == actual.kind, comment)
            #expect(actual.range != nil, "errors carry a source range: \(comment)")
        case (.parseError, .parseError):
            break
        case (.value(let expected, let floating), .value(let actual)):
            #expect(ConformanceCase.matches(actual, expected, floating: floating), "expected \(expected); \(comment)")
        default:
            Issue.record("expected \(expected); \(comment)")
        }
    }

    /// Numbers by value and by integer-or-floating kind; everything else by the language's
    /// equality plus the same kind.
    static func matches(_ actual: Value, _ expected: Value, floating: Bool?) -> Bool {
        if let floating {
            switch actual {
            case .int, .uint: if floating { return false }
            case .double: if !floating { return false }
            case .decimal: break
            default: return false
            }
            return ValueComparison.isEqual(actual, expected)
        }
        switch (actual, expected) {
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1, floating: nil) }
        case (.uint, .uint), (.int, .int), (.double, .double), (.string, .string), (.date, .date), (.nil, .nil),
            (.bool, .bool), (.data, .data), (.dictionary, .dictionary), (.set, .set), (.null, .null),
            (.object, .object), (.decimal, .decimal):
            return ValueComparison.isEqual(actual, expected)
        case (.int, .uint), (.uint, .int):
            return false
        default:
            return ValueComparison.isEqual(actual, expected)
        }
    }
}

extension ConformanceOutcome {
    /// Runs an engine, mapping what it throws to an outcome: a syntax error, an evaluation error,
    /// or (for anything else) an `unsupported` error naming it, which no case expects.
    static func of(_ body: () throws -> ConformanceOutcome) -> ConformanceOutcome {
        do {
            return try body()
        } catch let error as Diagnostic {
            return .parseError(error)
        } catch let error as EvaluationError {
            return .error(error)
        } catch {
            return .error(EvaluationError(.unsupported, "unexpected error \(error)"))
        }
    }
}
