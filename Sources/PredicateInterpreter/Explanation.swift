import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why a rule gave its answer: the tree of its sub-predicates and sub-expressions, each with
/// what it produced, and the ones short-circuit evaluation never reached.
///
/// Recorded by ``Interpreter/explain(_:on:variables:)`` while the interpreter evaluates the
/// rule, so the root's outcome is the interpreter's answer (or error), under the same limits.
///
/// The record is bounded whatever the input: a node keeps at most
/// ``maximumExplainedElements`` `SUBQUERY` elements and as many other children, and a whole
/// explanation at most ``maximumRecordedNodes`` nodes. What is left out is still evaluated, and
/// counted in its parent's ``omittedChildren``.
public struct Explanation: Hashable, Sendable {
    /// What one node produced.
    public enum Outcome: Hashable, Sendable {
        /// A predicate's truth value.
        case truth(Bool)
        /// An expression's value.
        case value(Value)
        /// The node failed (or a node inside it did).
        case error(EvaluationError)
        /// Never evaluated: an `AND`/`OR` was already decided, a `TERNARY` took the other branch,
        /// `FUNCTION` had a nil receiver, or an earlier operand failed.
        case skipped
    }

    /// What kind of node: `AND`, `OR`, `NOT`, `comparison`, `constant`, `key path`, `variable`,
    /// `SELF`, `function`, `FUNCTION`, `array`, `index`, `SUBQUERY`, `element`, `TERNARY`,
    /// `CAST`, `assignment`, `set operation`, `ANYKEY`.
    public let kind: String
    /// The node's source range in the rule (for `element`, the `SUBQUERY`'s predicate).
    public let range: SourceRange
    /// For `element` nodes, the element the `SUBQUERY` variable stood for; otherwise `nil`.
    public let element: Value?
    /// What the node produced.
    public let outcome: Outcome
    /// The sub-nodes in evaluation order (constants are left out: their value is their text).
    public let children: [Explanation]
    /// How many sub-nodes were evaluated (or skipped) after ``children`` but not recorded, to
    /// keep the explanation bounded; their own sub-nodes are not counted.
    public let omittedChildren: Int

    /// Creates a node.
    public init(
        kind: String, range: SourceRange, element: Value? = nil, outcome: Outcome, children: [Explanation],
        omittedChildren: Int = 0
    ) {
        self.kind = kind
        self.range = range
        self.element = element
        self.outcome = outcome
        self.children = children
        self.omittedChildren = omittedChildren
    }

    /// The most `SUBQUERY` elements a node explains one by one, and the most other children it
    /// records; the rest are evaluated and counted in ``omittedChildren``, so an explanation
    /// stays readable on large selections and long aggregates.
    public static let maximumExplainedElements = 20

    /// The most nodes one explanation records. The per-node bound alone still lets nesting
    /// multiply (six nested `SUBQUERY`s of 20 elements would be 20⁶ elements); past this budget
    /// nodes are counted, not stored. The walk is depth-first, so the budget goes to the first
    /// elements of the outer collections, which are the ones a reader starts with. A few
    /// thousand nodes are far more than a reader follows, and a few hundred kilobytes.
    public static let maximumRecordedNodes = 5_000
}

extension Interpreter {
    /// Evaluates `predicate` like ``evaluate(_:on:variables:)`` and records why: every
    /// sub-predicate and sub-expression with its value, the operands short-circuit skipped, and
    /// where an error arose. Never throws: an error is the root's outcome.
    ///
    /// It is the same evaluation, observed: the same steps are charged and the same limits
    /// checked, so a rule that does too much work stops here with the same `limitExceeded` error
    /// as ``evaluate(_:on:variables:)``. The record is bounded (see ``Explanation``).
    public func explain(
        _ predicate: Predicate, on object: Value, variables: [String: Value] = [:]
    ) -> Explanation {
        var walk = Walk(
            environment: environment, object: object, rootRange: predicate.range, observer: ExplanationRecorder())
        let outcome: Explanation.Outcome
        do throws(EvaluationError) {
            outcome = .truth(try walk.evaluate(predicate, variables))
        } catch {
            outcome = .error(error)
        }
        // The root is always recorded; the fallback only keeps this free of a force unwrap.
        return walk.observer.root
            ?? Explanation(
                kind: ExplanationRecorder.kind(of: .predicate(predicate)), range: predicate.range, outcome: outcome,
                children: [])
    }
}

/// Builds an ``Explanation`` from the interpreter's walk: a stack of the nodes begun and not yet
/// ended, each collecting its recorded children.
struct ExplanationRecorder: WalkObserver {
    static var isObserving: Bool { true }

    /// A node begun and not yet ended.
    private struct Frame {
        let kind: String
        let range: SourceRange
        let element: Value?
        var children: [Explanation] = []
        /// How many of `children` are `SUBQUERY` elements, which have their own bound.
        var elements = 0
        var omitted = 0
    }

    private var frames: [Frame] = []
    /// How many nodes begun and not ended lie in or below one that is not recorded: their hooks
    /// are ignored, so an unrecorded subtree costs a counter, not memory.
    private var unrecordedDepth = 0
    /// Nodes that may still be recorded (``Explanation/maximumRecordedNodes``).
    private var budget = Explanation.maximumRecordedNodes
    /// The finished tree, once the root has ended.
    private(set) var root: Explanation?

    mutating func begin(_ node: SyntaxNode) {
        guard unrecordedDepth == 0 else {
            unrecordedDepth += 1
            return
        }
        guard Self.isShown(node) else {
            unrecordedDepth = 1
            return
        }
        open(kind: Self.kind(of: node), range: Self.range(of: node), element: nil, isElement: false)
    }

    mutating func beginElement(_ element: Value, range: SourceRange) {
        guard unrecordedDepth == 0 else {
            unrecordedDepth += 1
            return
        }
        open(kind: "element", range: range, element: element, isElement: true)
    }

    mutating func end(_ outcome: Explanation.Outcome) {
        guard unrecordedDepth == 0 else {
            unrecordedDepth -= 1
            return
        }
        guard let frame = frames.popLast() else { return }
        add(
            Explanation(
                kind: frame.kind, range: frame.range, element: frame.element, outcome: outcome,
                children: frame.children, omittedChildren: frame.omitted))
    }

    mutating func skip(_ node: SyntaxNode) {
        guard unrecordedDepth == 0, Self.isShown(node) else { return }
        guard admit(isElement: false) else { return }
        add(Explanation(kind: Self.kind(of: node), range: Self.range(of: node), outcome: .skipped, children: []))
    }

    /// Starts recording a node, or starts ignoring its subtree when it is over a bound.
    private mutating func open(kind: String, range: SourceRange, element: Value?, isElement: Bool) {
        guard admit(isElement: isElement) else {
            unrecordedDepth = 1
            return
        }
        frames.append(Frame(kind: kind, range: range, element: element))
    }

    /// Whether one more child (a `SUBQUERY` element or another node) of the innermost open node
    /// is recorded; spends one node of the budget if so, counts it as omitted if not.
    private mutating func admit(isElement: Bool) -> Bool {
        // The root is the first node, so the budget always has room for it.
        if let parent = frames.indices.last {
            let elements = frames[parent].elements
            let recorded = isElement ? elements : frames[parent].children.count - elements
            guard budget > 0, recorded < Explanation.maximumExplainedElements else {
                frames[parent].omitted += 1
                return false
            }
        }
        budget -= 1
        return true
    }

    /// Adds a finished node to its parent, or makes it the root.
    private mutating func add(_ node: Explanation) {
        guard let parent = frames.indices.last else {
            root = node
            return
        }
        frames[parent].children.append(node)
        if node.kind == "element" { frames[parent].elements += 1 }
    }

    // MARK: - Kinds

    /// Constant expressions and `SELF` say nothing the rule's text does not (a constant
    /// predicate, `TRUEPREDICATE`, is shown: it decides its `AND` or `OR`).
    static func isShown(_ node: SyntaxNode) -> Bool {
        guard case .expression(let expression) = node else { return true }
        switch expression.kind {
        case .constant, .evaluatedObject: return false
        default: return true
        }
    }

    static func range(of node: SyntaxNode) -> SourceRange {
        switch node {
        case .predicate(let predicate): return predicate.range
        case .expression(let expression): return expression.range
        }
    }

    static func kind(of node: SyntaxNode) -> String {
        switch node {
        case .predicate(let predicate):
            switch predicate.kind {
            case .constant: return "constant"
            case .not: return "NOT"
            case .and: return "AND"
            case .or: return "OR"
            case .comparison: return "comparison"
            }
        case .expression(let expression):
            switch expression.kind {
            case .constant: return "constant"
            case .evaluatedObject: return "SELF"
            case .variable: return "variable"
            case .keyPath: return "key path"
            case .function: return "function"
            case .invoke: return "FUNCTION"
            case .aggregate: return "array"
            case .index: return "index"
            case .subquery: return "SUBQUERY"
            case .ternary: return "TERNARY"
            case .cast: return "CAST"
            case .assignment: return "assignment"
            case .setOperation: return "set operation"
            case .anyKey: return "ANYKEY"
            }
        }
    }
}
