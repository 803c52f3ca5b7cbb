import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension Compiler {
    /// The most sub-trees a rule set shares through memo slots (`MEMO_LOAD` names its slot in one
    /// byte); further shared sub-trees are simply computed where they occur.
    package static let maximumSharedSubtrees = 256

    /// Compiles several rules into one ``Program`` of kind ``Program/Kind/ruleSet`` that answers
    /// all of them in one pass.
    ///
    /// Each rule keeps its own code, in order, ending with `RULE_END r`; a sub-tree that more
    /// than one rule (or one rule twice) would compute, and that reads no variable, is computed
    /// the first time it is needed and remembered for the rest of the evaluation: each key path
    /// is then loaded once, each common sub-expression computed once. Because only successful
    /// values are remembered and every rule keeps its own evaluation order, each rule's answer
    /// (or error) is the one it would give alone.
    ///
    /// - Parameters:
    ///   - rules: The rules with their source texts; the program's source is the texts one a
    ///     line, and its source ranges point into it (``RuleSetSource`` maps them back).
    ///   - limits: How large the program may grow.
    public static func compileRuleSet(
        _ rules: [(predicate: PredicateNode, source: String)], limits: ProgramLimits = ProgramLimits()
    ) throws(CompileError)
        -> Program
    {
        guard rules.count <= Int(UInt16.max) + 1 else {
            throw CompileError(message: "a rule set holds at most 65,536 rules, got \(rules.count)")
        }
        var emitter = Emitter()
        emitter.memoSlots = SharedSubtrees.slots(for: rules.map(\.predicate))
        let layout = RuleSetSource(sources: rules.map(\.source))
        for (index, rule) in rules.enumerated() {
            emitter.rangeOffset = layout.starts[index]
            emitter.compile(rule.predicate)
            emitter.emit(.ruleEnd(UInt16(index)), rule.predicate.range)
        }
        emitter.rangeOffset = 0
        emitter.emit(.returnRules, SourceRange(0, 0))
        return try emitter.finish(kind: .ruleSet, source: layout.text, limits: limits)
    }
}

/// Where each rule of a rule set sits in the program's source: the rules one a line.
public struct RuleSetSource: Hashable, Sendable {
    /// The rules' texts joined by line feeds.
    public let text: String
    /// The UTF-8 offset of each rule's first byte in ``text``.
    public let starts: [Int]

    /// The layout of `sources`.
    public init(sources: [String]) {
        var starts: [Int] = []
        var offset = 0
        for source in sources {
            starts.append(offset)
            offset += source.utf8.count + 1
        }
        self.starts = starts
        text = sources.joined(separator: "\n")
    }

    /// The rule whose text holds `offset` and the offset relative to that rule.
    public func rule(containing offset: Int) -> (rule: Int, offset: Int)? {
        guard let index = starts.lastIndex(where: { $0 <= offset }) else { return nil }
        return (index, offset - starts[index])
    }
}

/// Chooses the sub-trees of a rule set worth computing once: those that would be computed more
/// than once and read no variable.
enum SharedSubtrees {
    static func slots(for rules: [PredicateNode]) -> [SyntaxNode: UInt8] {
        // Pass 1: how often each closed, non-trivial sub-tree occurs anywhere.
        var counts: [SyntaxNode: Int] = [:]
        for rule in rules { count(.predicate(rule), into: &counts) }
        // Pass 2: how often each would be computed once shared sub-trees are: a repeat of a
        // shared sub-tree is served from its memo, so what is inside it is not counted again.
        var computed: [SyntaxNode: Int] = [:]
        var seen = Set<SyntaxNode>()
        var order: [SyntaxNode] = []
        for rule in rules { walk(.predicate(rule), counts, &computed, &seen, &order) }
        var slots: [SyntaxNode: UInt8] = [:]
        for node in order where (computed[node] ?? 0) >= 2 && slots[node] == nil {
            guard slots.count < Compiler.maximumSharedSubtrees else { break }
            slots[node] = UInt8(slots.count)
        }
        return slots
    }

    private static func count(_ node: SyntaxNode, into counts: inout [SyntaxNode: Int]) {
        if isCandidate(node) { counts[node, default: 0] += 1 }
        for child in node.children { count(child, into: &counts) }
    }

    private static func walk(
        _ node: SyntaxNode, _ counts: [SyntaxNode: Int], _ computed: inout [SyntaxNode: Int],
        _ seen: inout Set<SyntaxNode>, _ order: inout [SyntaxNode]
    ) {
        let shared = (counts[node] ?? 0) >= 2
        if shared {
            computed[node, default: 0] += 1
            if computed[node] == 1 { order.append(node) }
            guard seen.insert(node).inserted else { return }
        }
        for child in node.children { walk(child, counts, &computed, &seen, &order) }
    }

    /// Worth a memo slot: not a constant or `SELF`, not folded to a constant, not as cheap as
    /// the memo itself (``isCheaperThanMemo(_:)``), and closed: no variable read or assigned
    /// other than a `SUBQUERY`'s own.
    static func isCandidate(_ node: SyntaxNode) -> Bool {
        switch node {
        case .predicate(let predicate):
            if case .constant = predicate.kind { return false }
        case .expression(let expression):
            switch expression.kind {
            case .constant, .evaluatedObject, .variable, .anyKey: return false
            default: break
            }
            if ConstantFolding.value(of: expression) != nil { return false }
        }
        return !isCheaperThanMemo(node) && isClosed(node, bound: []) && !containsSignedZero(node)
    }

    /// Computed at least as fast as a memo slot is checked, read and filled: a field stored in
    /// `SELF`, read by its slot; and such a field of a Boolean, number or date type compared
    /// with a constant by equality or order, which the compiler makes one `TEST` on the field.
    /// Remembering either would cost more than it saves, and a remembered field would keep its
    /// comparisons from being made `TEST`s at all.
    static func isCheaperThanMemo(_ node: SyntaxNode) -> Bool {
        switch node {
        case .expression(let expression):
            return storedField(expression) != nil
        case .predicate(let predicate):
            guard case .comparison(let comparison) = predicate.kind, comparison.quantifier == .direct,
                comparison.options.isEmpty, comparison.op.isRelationalOperator
            else { return false }
            let field = storedField(comparison.lhs) ?? storedField(comparison.rhs)
            guard let field, isConstant(comparison.lhs) || isConstant(comparison.rhs) else { return false }
            return isScalar(field.schema.schema.fields[field.slot].type)
        }
    }

    /// The field `expression` reads when it is one key of `SELF` bound to a slot of its schema.
    private static func storedField(_ expression: ExpressionNode) -> FieldReference? {
        guard case .keyPath(let base, let components) = expression.kind, case .evaluatedObject = base.kind,
            components.count == 1, case .field(let field) = components[0],
            field.slot >= 0, field.slot < field.schema.schema.fields.count
        else { return nil }
        return field
    }

    private static func isConstant(_ expression: ExpressionNode) -> Bool {
        if case .constant = expression.kind { return true }
        return ConstantFolding.value(of: expression) != nil
    }

    /// A type whose values compare in constant time.
    private static func isScalar(_ type: ValueType) -> Bool {
        switch type {
        case .bool, .integer, .number, .date: return true
        case .optional(let wrapped): return isScalar(wrapped)
        default: return false
        }
    }

    /// Trees are told apart by `Value` equality, for which `0.0 == -0.0`; yet `x / 0.0` and
    /// `x / -0.0` differ. Trees holding a floating-point zero are left unshared.
    private static func containsSignedZero(_ node: SyntaxNode) -> Bool {
        if case .expression(let expression) = node, case .constant(let value) = expression.kind {
            switch value {
            case .double(let number), .date(let number): return number == 0
            default: return false
            }
        }
        return node.children.contains(where: containsSignedZero)
    }

    private static func isClosed(_ node: SyntaxNode, bound: Set<String>) -> Bool {
        if case .expression(let expression) = node {
            switch expression.kind {
            case .variable(let name):
                return bound.contains(name)
            case .assignment:
                return false
            case .keyPath(let base, let components):
                for case .variable(let name) in components where !bound.contains(name) { return false }
                return isClosed(.expression(base), bound: bound)
            case .subquery(let collection, let variable, let predicate):
                return isClosed(.expression(collection), bound: bound)
                    && isClosed(.predicate(predicate), bound: bound.union([variable]))
            default:
                break
            }
        }
        return node.children.allSatisfy { isClosed($0, bound: bound) }
    }
}

extension SyntaxNode {
    /// The node's direct children.
    var children: [SyntaxNode] {
        switch self {
        case .predicate(let predicate): return predicate.kind.children
        case .expression(let expression): return expression.kind.children
        }
    }
}
