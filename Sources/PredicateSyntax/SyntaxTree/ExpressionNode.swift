import PredicateValue

/// An expression: something that evaluates to a ``Value`` (SPEC §3.9).
///
/// Equality and hashing compare the tree's structure only; ``range`` (where the expression came
/// from) and ``depth`` are ignored, so a printed-and-reparsed tree equals the original.
public struct ExpressionNode: Hashable, Sendable {
    /// What the expression is.
    public let kind: ExpressionKind
    /// The source text the expression was parsed from (an empty range at 0 for built trees).
    public let range: SourceRange
    /// The height of the tree below and including this node (a leaf has depth 1).
    public let depth: Int

    /// Creates an expression node; `range` defaults to an empty range for trees built in code.
    public init(_ kind: ExpressionKind, range: SourceRange = SourceRange(0, 0)) {
        self.kind = kind
        self.range = range
        self.depth = 1 + kind.childDepth
    }

    /// The same node with another source range. Unlike ``init(_:range:)`` it does not visit the
    /// children again (an `AND` of 100,000 operands inside 100 parentheses would be visited 100
    /// times).
    func withRange(_ range: SourceRange) -> ExpressionNode {
        ExpressionNode(kind, range: range, depth: depth)
    }

    private init(_ kind: ExpressionKind, range: SourceRange, depth: Int) {
        self.kind = kind
        self.range = range
        self.depth = depth
    }

    /// Structural equality, ignoring source ranges.
    public static func == (lhs: ExpressionNode, rhs: ExpressionNode) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the structure, ignoring source ranges.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}

/// The kinds of expression. Arithmetic operators are ``function(_:_:)`` nodes named by their
/// Apple selector (`add:to:`, `from:subtract:`, …), as in Apple's own tree.
public indirect enum ExpressionKind: Hashable, Sendable {
    /// A literal or a substituted argument.
    case constant(Value)
    /// `SELF`: the object the rule is evaluated against.
    case evaluatedObject
    /// `$name`: a variable from the bindings.
    case variable(String)
    /// `base.a.b`: key-value coding from `base` (``evaluatedObject`` for a bare `a.b`).
    case keyPath(base: ExpressionNode, components: [KeyComponent])
    /// A built-in function, by selector (`sum:`, `now`, `modulus:by:`, `add:to:` for `+`).
    case function(String, [ExpressionNode])
    /// `FUNCTION(receiver, 'selector', args…)`: a method call on the receiver. The parser also
    /// builds one for an index after a dotted key, as Apple's grammar binds it: `a.d[0]` is
    /// `FUNCTION(a, 'valueForKeyPath:', d[0])`, and prints back as `a.d[0]`.
    case invoke(receiver: ExpressionNode, selector: String, arguments: [ExpressionNode])
    /// `{a, b, c}`: an array literal.
    case aggregate([ExpressionNode])
    /// `collection[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`. On a dotted key path the collection
    /// prints in parentheses, `(a.d)[0]`.
    case index(ExpressionNode, IndexSpec)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: ExpressionNode, variable: String, predicate: PredicateNode)
    /// `TERNARY(condition, whenTrue, whenFalse)`.
    case ternary(PredicateNode, ExpressionNode, ExpressionNode)
    /// `CAST(value, type)`.
    case cast(ExpressionNode, ExpressionNode)
    /// `$name := value`.
    case assignment(variable: String, ExpressionNode)
    /// `a UNION b`, `a INTERSECTION b`, `a MINUS b`.
    case setOperation(SetOperator, ExpressionNode, ExpressionNode)
    /// `ANYKEY` (Spotlight only; evaluation reports it unsupported).
    case anyKey

    /// The node's direct sub-expressions and sub-predicates, in evaluation order: the one
    /// description of the tree's shape that walks over it (key-path scans, assignment scans) use.
    public var children: [SyntaxNode] {
        switch self {
        case .constant, .evaluatedObject, .variable, .anyKey:
            return []
        case .keyPath(let base, _):
            return [.expression(base)]
        case .function(_, let arguments), .aggregate(let arguments):
            return arguments.map(SyntaxNode.expression)
        case .invoke(let receiver, _, let arguments):
            return [.expression(receiver)] + arguments.map(SyntaxNode.expression)
        case .index(let base, .expression(let index)):
            return [.expression(base), .expression(index)]
        case .index(let base, _):
            return [.expression(base)]
        case .subquery(let collection, _, let predicate):
            return [.expression(collection), .predicate(predicate)]
        case .ternary(let condition, let whenTrue, let whenFalse):
            return [.predicate(condition), .expression(whenTrue), .expression(whenFalse)]
        case .cast(let value, let type):
            return [.expression(value), .expression(type)]
        case .assignment(_, let value):
            return [.expression(value)]
        case .setOperation(_, let lhs, let rhs):
            return [.expression(lhs), .expression(rhs)]
        }
    }

    /// The greatest depth among the node's children (0 for a leaf). Spelled out rather than
    /// derived from ``children`` because every node the parser builds computes it, and this form
    /// allocates nothing.
    var childDepth: Int {
        switch self {
        case .constant, .evaluatedObject, .variable, .anyKey:
            return 0
        case .keyPath(let base, _):
            return base.depth
        case .function(_, let arguments), .aggregate(let arguments):
            return arguments.map(\.depth).max() ?? 0
        case .invoke(let receiver, _, let arguments):
            return max(receiver.depth, arguments.map(\.depth).max() ?? 0)
        case .index(let base, let spec):
            return max(base.depth, spec.depth)
        case .subquery(let collection, _, let predicate):
            return max(collection.depth, predicate.depth)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return max(condition.depth, whenTrue.depth, whenFalse.depth)
        case .cast(let value, let type):
            return max(value.depth, type.depth)
        case .assignment(_, let value):
            return value.depth
        case .setOperation(_, let lhs, let rhs):
            return max(lhs.depth, rhs.depth)
        }
    }
}

/// A node of the syntax tree: an expression or a predicate.
public enum SyntaxNode: Hashable, Sendable {
    /// An expression.
    case expression(ExpressionNode)
    /// A predicate.
    case predicate(PredicateNode)
}

/// One component of a key path after the base.
public enum KeyComponent: Hashable, Sendable {
    /// A key: from an identifier, `#word`, `@word`, a quoted string or a `%K` argument.
    case key(String)
    /// `$name` as a component: the variable's string value is the key (SPEC §3.9a).
    case variable(String)
    /// A key resolved against a schema when the rule was prepared (never produced by the
    /// parser): evaluators read the field by slot when the receiver has that schema, and fall
    /// back to the key otherwise, so the meaning is the same as ``key(_:)``.
    case field(FieldReference)

    /// The key this component reads, when it is a fixed key.
    public var key: String? {
        switch self {
        case .key(let key): return key
        case .field(let field): return field.key
        case .variable: return nil
        }
    }
}

/// A key bound to a slot of a schema (see ``KeyComponent/field(_:)``).
public struct FieldReference: Hashable, Sendable {
    /// The key as written.
    public let key: String
    /// The slot of the field in ``schema``.
    public let slot: Int
    /// The schema the slot belongs to.
    public let schema: SchemaReference

    /// Binds `key` to `slot` of `schema`.
    public init(key: String, slot: Int, schema: SchemaReference) {
        self.key = key
        self.slot = slot
        self.schema = schema
    }
}

/// What goes between `[` and `]` after a collection.
public indirect enum IndexSpec: Hashable, Sendable {
    /// `[FIRST]`: the first element.
    case first
    /// `[LAST]`: the last element.
    case last
    /// `[SIZE]`: the element count.
    case size
    /// `[expression]`: a position, or a dictionary key.
    case expression(ExpressionNode)

    var depth: Int {
        if case .expression(let expression) = self { return expression.depth }
        return 0
    }
}

/// The set operators of expression level 7 (SPEC §3.4).
public enum SetOperator: String, Hashable, Sendable, CaseIterable {
    /// `UNION`.
    case union = "UNION"
    /// `INTERSECTION`.
    case intersection = "INTERSECTION"
    /// `MINUS`.
    case minus = "MINUS"
}
