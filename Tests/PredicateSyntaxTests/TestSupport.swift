import PredicateSyntax
import PredicateValue
import Testing

/// One parser case: a rule, its arguments, and what must come of it.
struct ParseCase: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable {
        /// Parses, and prints as this canonical format in the round-trip-safe style (which shows
        /// what the parser built: `3.0` stays a double) and as `apple` (when given, else the
        /// same text) in Apple's.
        case prints(String, apple: String? = nil)
        /// Fails at `line:column` with a message containing `fragment`.
        case fails(at: String, containing: String)
    }

    let source: String
    let arguments: [Value]
    let outcome: Outcome
    let asExpression: Bool

    init(_ source: String, _ outcome: Outcome, expression: Bool = false) {
        self.init(source, [], outcome, expression: expression)
    }

    init(_ source: String, _ arguments: [Value], _ outcome: Outcome, expression: Bool = false) {
        self.source = source
        self.arguments = arguments
        self.outcome = outcome
        self.asExpression = expression
    }

    var testDescription: String { source.debugDescription }

    /// Parses the case and checks its outcome.
    func check(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        do {
            let printed: String
            let apple: String
            if asExpression {
                let expression = try PredicateParser.parseExpression(source, arguments: arguments).expression
                (printed, apple) = (expression.format(.roundTripSafe), expression.format)
            } else {
                let predicate = try PredicateParser.parsePredicate(source, arguments: arguments).predicate
                (printed, apple) = (predicate.format(.roundTripSafe), predicate.format)
            }
            switch outcome {
            case .prints(let expected, let appleText):
                #expect(printed == expected, sourceLocation: sourceLocation)
                #expect(apple == appleText ?? expected, "Apple's style", sourceLocation: sourceLocation)
            case .fails(let position, let fragment):
                Issue.record(
                    "expected an error at \(position) containing \"\(fragment)\", parsed as \(printed)",
                    sourceLocation: sourceLocation)
            }
        } catch {
            switch outcome {
            case .prints(let expected, _):
                Issue.record("expected \(expected), got \(error.rendered())", sourceLocation: sourceLocation)
            case .fails(let position, let fragment):
                #expect(error.location.description == position, "\(error.rendered())", sourceLocation: sourceLocation)
                #expect(error.message.contains(fragment), "\(error.rendered())", sourceLocation: sourceLocation)
                #expect(error.severity == .error, sourceLocation: sourceLocation)
            }
        }
    }
}
