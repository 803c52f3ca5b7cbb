/// Settings and limits for parsing a rule.
public struct ParseOptions: Hashable, Sendable {
    /// Reject what is otherwise only a warning about ambiguity: an unparenthesised mix of `AND`
    /// and `OR` (SPEC §3.3).
    public var strict: Bool
    /// The longest rule accepted, in UTF-8 bytes.
    public var maximumLength: Int
    /// The deepest nesting accepted: parentheses, braces, operator chains and tree height alike.
    /// Evaluators and printers recurse over the tree, so this also bounds their stack use.
    ///
    /// The parser recurses too, and in a debug build one level of expression nesting costs up to
    /// about 48 KB of stack (`TERNARY(` in condition position, measured on Linux x86_64; about
    /// 11 KB in a release build). The default of 128 fits an 8 MiB thread (a main thread, and
    /// the threads tests run on) with room to spare; on a 512 KiB thread a debug build is safe
    /// only up to about 8 levels of such nesting, a release build up to about 40.
    public var maximumDepth: Int

    /// The defaults: lenient, 1 MiB, 128 levels.
    public init(strict: Bool = false, maximumLength: Int = 1 << 20, maximumDepth: Int = 128) {
        self.strict = strict
        self.maximumLength = maximumLength
        self.maximumDepth = maximumDepth
    }
}

/// A parsed predicate and the warnings found while parsing it.
public struct ParsedPredicate: Hashable, Sendable {
    /// The syntax tree.
    public let predicate: PredicateNode
    /// Legal but doubtful constructs, in source order (the first 32).
    public let warnings: [Diagnostic]
}

/// A parsed standalone expression and the warnings found while parsing it.
public struct ParsedExpression: Hashable, Sendable {
    /// The syntax tree.
    public let expression: ExpressionNode
    /// Legal but doubtful constructs, in source order (the first 32).
    public let warnings: [Diagnostic]
}
