/// A predicate: something that evaluates to true or false (SPEC §3.9).
///
/// Equality and hashing compare the tree's structure only; ``range`` and ``depth`` are ignored.
public struct PredicateNode: Hashable, Sendable {
    /// What the predicate is.
    public let kind: PredicateKind
    /// The source text the predicate was parsed from (an empty range at 0 for built trees).
    public let range: SourceRange
    /// The height of the tree below and including this node (a leaf has depth 1).
    public let depth: Int

    /// Creates a predicate node; `range` defaults to an empty range for trees built in code.
    public init(_ kind: PredicateKind, range: SourceRange = SourceRange(0, 0)) {
        self.kind = kind
        self.range = range
        self.depth = 1 + kind.childDepth
    }

    /// The same node with another source range. Unlike ``init(_:range:)`` it does not visit the
    /// children again (an `AND` of 100,000 operands inside 100 parentheses would be visited 100
    /// times).
    func withRange(_ range: SourceRange) -> PredicateNode {
        PredicateNode(kind, range: range, depth: depth)
    }

    private init(_ kind: PredicateKind, range: SourceRange, depth: Int) {
        self.kind = kind
        self.range = range
        self.depth = depth
    }

    /// Structural equality, ignoring source ranges.
    public static func == (lhs: PredicateNode, rhs: PredicateNode) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the structure, ignoring source ranges.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}

/// The kinds of predicate.
public indirect enum PredicateKind: Hashable, Sendable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// `NOT p`, `!p`; also `NONE …`, which is `NOT ANY …`.
    case not(PredicateNode)
    /// `p AND q AND …`: an unparenthesised chain is one node.
    case and([PredicateNode])
    /// `p OR q OR …`: an unparenthesised chain is one node.
    case or([PredicateNode])
    /// `[ANY|ALL] lhs op[options] rhs`.
    case comparison(Comparison)

    /// The node's direct sub-nodes, in evaluation order.
    public var children: [SyntaxNode] {
        switch self {
        case .constant: return []
        case .not(let operand): return [.predicate(operand)]
        case .and(let operands), .or(let operands): return operands.map(SyntaxNode.predicate)
        case .comparison(let comparison): return [.expression(comparison.lhs), .expression(comparison.rhs)]
        }
    }

    var childDepth: Int {
        switch self {
        case .constant: return 0
        case .not(let operand): return operand.depth
        case .and(let operands), .or(let operands): return operands.map(\.depth).max() ?? 0
        case .comparison(let comparison): return max(comparison.lhs.depth, comparison.rhs.depth)
        }
    }
}

/// A comparison predicate: two expressions, an operator, a quantifier and options.
public struct Comparison: Hashable, Sendable {
    /// `ANY`/`SOME`, `ALL`, or none (`NONE` is `NOT ANY`).
    public var quantifier: Quantifier
    /// The left operand (the collection, under a quantifier).
    public var lhs: ExpressionNode
    /// The operator.
    public var op: ComparisonOperator
    /// The `[cdnlw]` options written after the operator.
    public var options: ComparisonOptions
    /// The right operand.
    public var rhs: ExpressionNode

    /// Creates a comparison.
    public init(
        _ lhs: ExpressionNode, _ op: ComparisonOperator, _ rhs: ExpressionNode,
        quantifier: Quantifier = .direct, options: ComparisonOptions = []
    ) {
        self.quantifier = quantifier
        self.lhs = lhs
        self.op = op
        self.options = options
        self.rhs = rhs
    }
}

/// The quantifier (Apple's comparison "modifier") of a comparison.
public enum Quantifier: String, Hashable, Sendable, CaseIterable {
    /// No quantifier: compare the operands themselves.
    case direct = ""
    /// `ANY` or `SOME`: true when some element of the left collection satisfies the comparison.
    case any = "ANY"
    /// `ALL`: true when every element does (vacuously true for an empty collection).
    case all = "ALL"
}

/// The comparison operators (SPEC §3.2 `CompOp`), spelled as Apple prints them.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    /// `==` (also written `=`).
    case equal = "=="
    /// `!=` (also written `<>`).
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=` (also written `=<`).
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=` (also written `=>`).
    case greaterOrEqual = ">="
    /// `BETWEEN`: inclusive range test against a two-element array.
    case between = "BETWEEN"
    /// `IN`: the left operand is an element (or substring) of the right.
    case `in` = "IN"
    /// `CONTAINS`: the right operand is an element (or substring) of the left.
    case contains = "CONTAINS"
    /// `BEGINSWITH`.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`.
    case endsWith = "ENDSWITH"
    /// `LIKE`: wildcard match with `*` and `?`.
    case like = "LIKE"
    /// `MATCHES`: whole-string regular-expression match.
    case matches = "MATCHES"
    /// `TOKENMATCHES` (parsed; unsupported at evaluation, as on Apple outside Core Data).
    case tokenMatches = "TOKENMATCHES"
    /// `UTI-CONFORMS-TO`.
    case utiConformsTo = "UTI-CONFORMS-TO"
    /// `UTI-EQUALS`.
    case utiEquals = "UTI-EQUALS"

    /// Whether `[cdnl]` options can change this operator's result. Apple creates `BETWEEN` and
    /// the UTI operators with no options (SPEC §3.7).
    public var usesOptions: Bool {
        switch self {
        case .between, .utiConformsTo, .utiEquals, .tokenMatches: return false
        default: return true
        }
    }

    /// Whether Apple's printer keeps the `w` option on this operator (`==`, `!=`, `IN`, `CONTAINS`).
    public var keepsWidthOption: Bool {
        switch self {
        case .equal, .notEqual, .in, .contains: return true
        default: return false
        }
    }
}

/// The `[cdnlw]` comparison options (SPEC §3.7), with Apple's raw values.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    /// The option bits.
    public let rawValue: UInt8
    /// Creates options from Apple's bit values.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `c`: case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `d`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `n`: operands are already normalised; compare literally.
    public static let normalized = ComparisonOptions(rawValue: 4)
    /// `l`: locale-sensitive (root locale on Linux).
    public static let localeSensitive = ComparisonOptions(rawValue: 8)
    /// `w`: accepted and printed by Apple, with no known effect.
    public static let widthInsensitive = ComparisonOptions(rawValue: 16)

    /// The options in Apple's printing order, with their letters.
    public static let letters: [(Character, ComparisonOptions)] = [
        ("c", .caseInsensitive), ("d", .diacriticInsensitive), ("l", .localeSensitive),
        ("n", .normalized), ("w", .widthInsensitive),
    ]
}
