/// Settings and limits for parsing a rule.
public struct ParseOptions: Hashable, Sendable {
    /// Reject what is otherwise only a warning about ambiguity: an unparenthesised mix of `AND`
    /// and `OR` (SPEC §3.3).
    public var strict: Bool
    /// The longest rule accepted, in UTF-8 bytes.
    public var maximumLength: Int
    /// The deepest nesting accepted: parentheses, braces, operator chains and tree height alike.
    /// Evaluators and printers recurse over the tree, so this also bounds their stack use.
    public var maximumDepth: Int

    /// The defaults: lenient, 1 MiB, 256 levels.
    public init(strict: Bool = false, maximumLength: Int = 1 << 20, maximumDepth: Int = 256) {
        self.strict = strict
        self.maximumLength = maximumLength
        self.maximumDepth = maximumDepth
    }
}

/// A parsed predicate and the warnings found while parsing it.
public struct ParsedPredicate: Hashable, Sendable {
    /// The syntax tree.
    public let predicate: Predicate
    /// Legal but doubtful constructs, in source order.
    public let warnings: [Diagnostic]
}

/// A parsed standalone expression and the warnings found while parsing it.
public struct ParsedExpression: Hashable, Sendable {
    /// The syntax tree.
    public let expression: Expression
    /// Legal but doubtful constructs, in source order.
    public let warnings: [Diagnostic]
}
