import PredicateSyntax
import PredicateValue
import Testing

/// One parser case: a rule, its arguments, and what must come of it.
struct ParseCase: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable {
        /// Parses, and prints as this canonical format.
        case prints(String)
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
            if asExpression {
                printed = try PredicateParser.parseExpression(source, arguments: arguments).expression.format
            } else {
                printed = try PredicateParser.parsePredicate(source, arguments: arguments).predicate.format
            }
            switch outcome {
            case .prints(let expected):
                #expect(printed == expected, sourceLocation: sourceLocation)
            case .fails(let position, let fragment):
                Issue.record(
                    "expected an error at \(position) containing \"\(fragment)\", parsed as \(printed)",
                    sourceLocation: sourceLocation)
            }
        } catch {
            switch outcome {
            case .prints(let expected):
                Issue.record("expected \(expected), got \(error.rendered())", sourceLocation: sourceLocation)
            case .fails(let position, let fragment):
                #expect(error.location.description == position, "\(error.rendered())", sourceLocation: sourceLocation)
                #expect(error.message.contains(fragment), "\(error.rendered())", sourceLocation: sourceLocation)
                #expect(error.severity == .error, sourceLocation: sourceLocation)
            }
        }
    }
}
