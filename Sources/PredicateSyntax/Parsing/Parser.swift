import PredicateValue

/// The entry points of the front end: format string in, syntax tree (or a positioned error) out.
///
/// ```swift
/// let parsed = try PredicateParser.parsePredicate("documentSize > %@", arguments: [.int(1_000_000)])
/// print(parsed.predicate.format)   // documentSize > 1000000
/// ```
public enum PredicateParser {
    /// Parses a predicate, as `NSPredicate(format:argumentArray:)` does.
    ///
    /// - Parameters:
    ///   - source: The format string.
    ///   - arguments: Values for the `%@`, `%K`, `%d`… specifiers, consumed left to right.
    ///   - options: Strictness and limits.
    /// - Returns: The syntax tree and any warnings.
    /// - Throws: A ``Diagnostic`` naming what was expected and where.
    public static func parsePredicate(
        _ source: String, arguments: [Value] = [], options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) -> ParsedPredicate {
        var parser = try Parser(source, arguments: arguments, options: options)
        let predicate = try parser.parseWholePredicate()
        return ParsedPredicate(predicate: predicate, warnings: parser.warnings)
    }

    /// Parses a standalone expression, as `NSExpression(format:argumentArray:)` does.
    ///
    /// - Parameters:
    ///   - source: The format string.
    ///   - arguments: Values for the format specifiers, consumed left to right.
    ///   - options: Strictness and limits.
    /// - Returns: The syntax tree and any warnings.
    /// - Throws: A ``Diagnostic`` naming what was expected and where.
    public static func parseExpression(
        _ source: String, arguments: [Value] = [], options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) -> ParsedExpression {
        var parser = try Parser(source, arguments: arguments, options: options)
        let expression = try parser.parseWholeExpression()
        return ParsedExpression(expression: expression, warnings: parser.warnings)
    }
}

/// A recursive-descent parser with one function per rule of `grammar.ebnf`; each function's doc
/// comment names the rules it implements. Binary expression operators are parsed by precedence
/// climbing over one table (``Parser/binaryOperator(_:)``).
struct Parser {
    let source: SourceText
    let options: ParseOptions
    private let tokens: [Token]
    private var position = 0
    /// The `(` tokens of groups and SUBQUERYs being parsed, innermost last.
    var openers: [Opener] = []
    private let arguments: [Value]
    private var argumentsUsed = 0
    private var nesting = 0
    private(set) var warnings: [Diagnostic] = []

    init(_ text: String, arguments: [Value], options: ParseOptions) throws(Diagnostic) {
        source = SourceText(text)
        self.options = options
        self.arguments = arguments
        guard source.bytes.count <= options.maximumLength else {
            throw Diagnostic(
                .inputTooLong(bytes: source.bytes.count, limit: options.maximumLength), range: SourceRange(0, 0),
                in: SourceText(""))
        }
        var lexer = Lexer(source)
        tokens = lexer.tokenize()
    }

    // MARK: - Whole inputs

    /// Implements grammar rule `PredicateFormat`.
    mutating func parseWholePredicate() throws(Diagnostic) -> PredicateNode {
        let predicate = try parsePredicate()
        try expectEnd(after: .predicate)
        return predicate
    }

    /// Implements grammar rule `ExpressionFormat`.
    mutating func parseWholeExpression() throws(Diagnostic) -> ExpressionNode {
        let expression = try parseExpression()
        try expectEnd(after: .expression)
        return expression
    }

    enum Construct { case predicate, expression }

    private mutating func expectEnd(after construct: Construct) throws(Diagnostic) {
        let token = current
        switch token.kind {
        case .end:
            return
        case .invalid(let kind):
            throw error(kind, at: token.range)
        default:
            if construct == .predicate, comparisonOperator(token.kind) != nil {
                throw chainedComparison(at: token)
            }
            throw error(.trailingInput(token.kind.display), at: token.range)
        }
    }

    // MARK: - Tokens

    var current: Token { tokens[min(position, tokens.count - 1)] }

    func peek(_ offset: Int = 1) -> Token { tokens[min(position + offset, tokens.count - 1)] }

    mutating func advance() -> Token {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    /// The range of the token before the current one (the end of what was just parsed).
    var previousRange: SourceRange { tokens[max(0, min(position, tokens.count) - 1)].range }

    func text(of token: Token) -> String { source.text(in: token.range) }

    /// Consumes the current token if it is `kind`.
    mutating func consume(_ kind: Token.Kind) -> Token? {
        current.kind == kind ? advance() : nil
    }

    /// Consumes a token of `kind` or reports what was expected instead.
    @discardableResult
    mutating func expect(_ kind: Token.Kind, _ what: String) throws(Diagnostic) -> Token {
        if current.kind == kind { return advance() }
        throw unexpected(what)
    }

    /// The error for the current token when `what` was expected (a lexical error takes precedence).
    /// An open `(` and the construct it belongs to (`SUBQUERY`, or empty for grouping).
    struct Opener {
        let token: Token
        let construct: String
    }

    /// The innermost open `(` that none of the `)` left in the input can close, if any: the
    /// likelier cause of a chained comparison or an early end than the place the parser stopped.
    func unclosedOpener() -> Opener? {
        guard !openers.isEmpty else { return nil }
        var closers = 0
        for token in tokens[min(position, tokens.count)...] where token.kind == .rightParen { closers += 1 }
        guard closers < openers.count else { return nil }
        return openers[openers.count - closers - 1]
    }

    /// Consumes the `)` that closes the innermost opener, or reports it missing: at the opener
    /// left unclosed when the input ends, where the parser stands otherwise.
    mutating func closeParenthesis(expected what: String) throws(Diagnostic) -> Token {
        if let close = consume(.rightParen) { return close }
        if current.kind == .end, let opener = unclosedOpener() {
            throw error(.unclosedParenthesis(opener.construct), at: opener.token.range)
        }
        throw unexpected(what)
    }

    /// A chained comparison, or the unclosed `(` that explains it.
    func chainedComparison(at token: Token) -> Diagnostic {
        if let opener = unclosedOpener() {
            return error(.unclosedParenthesis(opener.construct), at: opener.token.range)
        }
        return error(.chainedComparison(text(of: token)), at: token.range)
    }

    func unexpected(_ what: String) -> Diagnostic {
        let token = current
        if case .invalid(let kind) = token.kind { return error(kind, at: token.range) }
        if token.kind == .tilde { return error(.unsupportedTilde, at: token.range) }
        return error(.expected(what, found: token.kind.display), at: token.range)
    }

    func error(_ kind: DiagnosticKind, at range: SourceRange) -> Diagnostic {
        Diagnostic(kind, range: range, in: source)
    }

    /// At most this many warnings are kept. Each carries the text of its source line and costs a
    /// scan from the start of the rule, so without a bound a long one-line rule with a warning
    /// every few bytes (`s ==[x] 'a' AND …`) took quadratic time and memory.
    static let maximumWarnings = 32

    mutating func warn(_ kind: DiagnosticKind, at range: SourceRange) {
        guard warnings.count < Parser.maximumWarnings else { return }
        warnings.append(Diagnostic(kind, severity: .warning, range: range, in: source))
    }

    // MARK: - Limits

    /// Counts one level of syntactic nesting; paired with ``leave()``.
    mutating func enter() throws(Diagnostic) {
        nesting += 1
        if nesting > options.maximumDepth {
            throw error(.nestingTooDeep(limit: options.maximumDepth), at: previousRange)
        }
    }

    mutating func leave() { nesting -= 1 }

    /// Checks that a node just built keeps the tree within the depth limit.
    func checked(_ expression: ExpressionNode) throws(Diagnostic) -> ExpressionNode {
        guard expression.depth <= options.maximumDepth else {
            throw error(.nestingTooDeep(limit: options.maximumDepth), at: expression.range)
        }
        return expression
    }

    func checked(_ predicate: PredicateNode) throws(Diagnostic) -> PredicateNode {
        guard predicate.depth <= options.maximumDepth else {
            throw error(.nestingTooDeep(limit: options.maximumDepth), at: predicate.range)
        }
        return predicate
    }

    // MARK: - Format arguments

    /// The next substitution argument for the specifier at `range`.
    mutating func nextArgument(at range: SourceRange) throws(Diagnostic) -> Value {
        guard argumentsUsed < arguments.count else {
            throw error(.insufficientArguments(needed: argumentsUsed + 1, given: arguments.count), at: range)
        }
        argumentsUsed += 1
        return arguments[argumentsUsed - 1]
    }
}
