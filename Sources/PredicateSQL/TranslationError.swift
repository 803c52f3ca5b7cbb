import PredicateSyntax

/// Why a rule cannot be translated at all against a mapping: a key path that names no column.
/// (Constructs the database cannot express are not errors: they become a residual.)
public struct TranslationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for a rule author.
    public let message: String
    /// Where in the rule.
    public let range: SourceRange

    /// Creates an error at `range`.
    public init(_ message: String, at range: SourceRange) {
        self.message = message
        self.range = range
    }

    /// The message, prefixed with the source range.
    public var description: String { "\(range): \(message)" }
}
