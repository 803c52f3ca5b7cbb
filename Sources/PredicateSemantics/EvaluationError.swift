import PredicateSyntax
import PredicateValue

/// Why evaluating a rule failed (SPEC §4.10.2): a typed value, never a trap.
///
/// The message is written for a rule author. ``range`` points at the sub-expression that failed,
/// when the evaluator knows it; operations that know nothing of the source leave it `nil` and the
/// evaluator fills it in.
public struct EvaluationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of evaluation error; engines must agree on the kind for every input.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A key that an object (or `NSNull`) does not have: `$item.uploadded`.
        case unknownKey
        /// An operand of the wrong kind: ordering a string against a number, arithmetic on a bool.
        case typeMismatch
        /// A collection was required (quantifier, SUBQUERY, `IN`, index, aggregate function).
        case notACollection
        /// A regular expression that does not compile, or a LIKE pattern ending in a backslash.
        case invalidPattern
        /// A `$variable` with no binding.
        case unboundVariable
        /// An index outside the collection.
        case indexOutOfRange
        /// An aggregate function over an empty collection where it has no value (`min({})`).
        case emptyCollection
        /// A malformed argument: `BETWEEN` without two bounds, a bad `CAST` type or text.
        case invalidArgument
        /// A construct this implementation does not evaluate (`ANYKEY`, `TOKENMATCHES`, an
        /// unregistered `FUNCTION` selector).
        case unsupported
        /// Evaluation went past a configured limit (steps, collection size).
        case limitExceeded
    }

    /// What went wrong, for tools and tests.
    public let kind: Kind
    /// What went wrong, for a rule author; formatted when read.
    public var message: String { text.rendered }
    /// The source text of the failing sub-expression, if known.
    public var range: SourceRange?
    private let text: Text

    /// A message's parts, joined only when the message is read: an error that a rule set or a
    /// filter swallows on every item then costs no formatting on the hot path (issue 18).
    enum Text: Sendable {
        case literal(String)
        /// `compare:` on values that cannot be ordered against each other.
        case cannotOrder(ValuePair)
        /// `compare:` on a string that cannot be ordered against a constant, boxed once for all the
        /// errors of the comparison (``ErrorOperand``): an error made without allocating.
        case cannotOrderString(String, against: ValuePair)
        /// An arithmetic operation given a value that is not a number.
        case needsNumbers(operation: String, ValuePair)

        var rendered: String {
            switch self {
            case .literal(let message):
                return message
            case .cannotOrder(let pair):
                return
                    "cannot order \(ValueComparison.describe(pair.first)) against \(ValueComparison.describe(pair.second))"
            case .cannotOrderString(let text, let constant):
                return
                    "cannot order \(ValueComparison.describe(.string(text))) against \(ValueComparison.describe(constant.first))"
            case .needsNumbers(let operation, let pair):
                if case .bool = pair.first {
                    return "\(operation) needs numbers, not booleans (YES/NO are not arithmetic values)"
                }
                return "\(operation) needs numbers, got \(ValueComparison.describe(pair.first))"
            }
        }
    }

    /// The values a message names, boxed once: held inline, two ``Value``s made the error over a
    /// hundred bytes, copied through the enum's witnesses each time it was thrown, located or
    /// recorded (most of what an item whose rule fails cost the VM).
    final class ValuePair: Sendable {
        let first: Value
        let second: Value

        init(_ first: Value, _ second: Value = .nil) {
            self.first = first
            self.second = second
        }
    }

    /// Creates an error; the evaluator adds the range.
    public init(_ kind: Kind, _ message: String, range: SourceRange? = nil) {
        self.init(kind, .literal(message), range: range)
    }

    /// Creates an error whose message is formatted when read.
    init(_ kind: Kind, _ text: Text, range: SourceRange? = nil) {
        self.kind = kind
        self.text = text
        self.range = range
    }

    /// What ordering `lhs` against `rhs` throws when the two cannot be ordered (a string and a
    /// number): ``ValueComparison/compare(_:_:)``'s error, for an engine that knows in advance
    /// that a comparison will fail.
    package static func cannotOrder(_ lhs: Value, _ rhs: Value) -> EvaluationError {
        EvaluationError(.typeMismatch, .cannotOrder(ValuePair(lhs, rhs)))
    }

    /// ``cannotOrder(_:_:)`` of `.string(text)` against the operand: the same error, made by
    /// retaining the operand's box instead of allocating one.
    package static func cannotOrder(string text: String, against operand: ErrorOperand) -> EvaluationError {
        EvaluationError(.typeMismatch, .cannotOrderString(text, against: operand.box))
    }

    /// A value errors name, boxed once (a comparison's constant), so that each error naming it
    /// retains the box.
    package struct ErrorOperand: Sendable {
        let box: ValuePair

        package init(_ value: Value) { box = ValuePair(value) }
    }

    /// Errors are equal when their kind, message and range are, however the message is held.
    public static func == (lhs: EvaluationError, rhs: EvaluationError) -> Bool {
        lhs.kind == rhs.kind && lhs.range == rhs.range && lhs.message == rhs.message
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(range)
        hasher.combine(message)
    }

    /// The error with `range` filled in, unless it already has one (the innermost range wins).
    public func at(_ range: SourceRange) -> EvaluationError {
        var copy = self
        if copy.range == nil { copy.range = range }
        return copy
    }

    /// `message`, prefixed with the source range when known.
    public var description: String {
        guard let range else { return message }
        return "\(range): \(message)"
    }
}

extension EvaluationError {
    /// The error as a ``Diagnostic`` over the rule `source` it arose in: `line:column`, the
    /// source line and a caret under the failing sub-expression (the whole rule when the error
    /// has no range), rendered as syntax errors are (``Diagnostic/rendered(colored:)``).
    public func diagnostic(source: String) -> Diagnostic {
        Diagnostic(.evaluationFailed(message), range: range ?? SourceRange(0, source.utf8.count), source: source)
    }
}
