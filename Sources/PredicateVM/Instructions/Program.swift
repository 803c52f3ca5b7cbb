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
    /// The comparisons `TEST`, `TEST_AND` and `TEST_OR` make, by site number.
    public let comparisons: [ComparisonSite]
    /// ``comparisons`` with their constants prepared (derived, so not part of equality).
    package let prepared: PreparedComparisons
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
        kind: Kind, code: [Instruction], constants: [Value], keyPaths: [[KeyComponent]],
        comparisons: [ComparisonSite] = [], variables: [String], sourceRanges: [SourceRange], maximumStackDepth: Int,
        maximumSubqueryDepth: Int, source: String
    ) {
        self.kind = kind
        self.code = code
        self.constants = constants
        self.keyPaths = keyPaths
        self.comparisons = comparisons
        prepared = PreparedComparisons(sites: comparisons, constants: constants)
        self.variables = variables
        self.sourceRanges = sourceRanges
        self.maximumStackDepth = maximumStackDepth
        self.maximumSubqueryDepth = maximumSubqueryDepth
        self.source = source
    }

    /// Programs are equal when their parts are; the prepared constants follow from them.
    public static func == (lhs: Program, rhs: Program) -> Bool {
        lhs.kind == rhs.kind && lhs.code == rhs.code && lhs.constants == rhs.constants && lhs.keyPaths == rhs.keyPaths
            && lhs.comparisons == rhs.comparisons && lhs.variables == rhs.variables
            && lhs.sourceRanges == rhs.sourceRanges && lhs.maximumStackDepth == rhs.maximumStackDepth
            && lhs.maximumSubqueryDepth == rhs.maximumSubqueryDepth && lhs.source == rhs.source
    }

    /// Hashes the parts equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(code)
        hasher.combine(constants)
        hasher.combine(keyPaths)
        hasher.combine(comparisons)
        hasher.combine(variables)
        hasher.combine(source)
    }

    /// The size of the code when encoded: four bytes an instruction.
    public var codeSize: Int { code.count * 4 }
}
