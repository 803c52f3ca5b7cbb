import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A compiled rule: immutable, `Sendable`, safe to evaluate from many threads at once.
///
/// Everything an instruction's operand names lives in one of the tables here; the verifier
/// checks every operand against them before a program can run.
public struct Program: Hashable, Sendable {
    /// Whether the program ends with a Boolean (a predicate), any value (an expression) or one
    /// result per rule (a rule set).
    public enum Kind: UInt8, Hashable, Sendable {
        /// A predicate: ends with `RETURN_BOOL`.
        case predicate
        /// A standalone expression: ends with `RETURN_VALUE`.
        case expression
        /// A rule set: several predicates, each ending with `RULE_END`, then `RETURN_RULES`.
        case ruleSet
    }

    /// Predicate or expression.
    public let kind: Kind
    /// The instructions.
    public let code: [Instruction]
    /// The constant pool: literals, folded values, selector names, messages.
    public let constants: [Value]
    /// The key paths `KEYPATH`/`SELF_KEYPATH` read, with bound fields.
    public let keyPaths: [[KeyComponent]]
    /// The variables, by slot: `$name` reads slot `variables.firstIndex(of: name)`.
    public let variables: [String]
    /// The source range of the syntax node each instruction evaluates, for error positions.
    public let sourceRanges: [SourceRange]
    /// The deepest the value stack gets.
    public let maximumStackDepth: Int
    /// The deepest `SUBQUERY` nesting.
    public let maximumSubqueryDepth: Int
    /// The rule's source text, for rendering errors.
    public let source: String

    /// Creates a program from its parts; ``Verifier`` checks them before anything runs.
    public init(
        kind: Kind, code: [Instruction], constants: [Value], keyPaths: [[KeyComponent]], variables: [String],
        sourceRanges: [SourceRange], maximumStackDepth: Int, maximumSubqueryDepth: Int, source: String
    ) {
        self.kind = kind
        self.code = code
        self.constants = constants
        self.keyPaths = keyPaths
        self.variables = variables
        self.sourceRanges = sourceRanges
        self.maximumStackDepth = maximumStackDepth
        self.maximumSubqueryDepth = maximumSubqueryDepth
        self.source = source
    }

    /// The size of the code when encoded: four bytes an instruction.
    public var codeSize: Int { code.count * 4 }
}
