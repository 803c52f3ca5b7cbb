import PredicateSyntax

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
    /// What went wrong, for a rule author.
    public let message: String
    /// The source text of the failing sub-expression, if known.
    public var range: SourceRange?

    /// Creates an error; the evaluator adds the range.
    public init(_ kind: Kind, _ message: String, range: SourceRange? = nil) {
        self.kind = kind
        self.message = message
        self.range = range
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
