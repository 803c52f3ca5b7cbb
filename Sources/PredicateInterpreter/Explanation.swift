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
/// counted in its parent's ``omittedChildren``. Past these bounds only the path to an error is
/// recorded (a node per level of the rule, and per `SUBQUERY` element on the way), so the tree
/// always leads to where an error arose.
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
    /// How many sub-nodes were evaluated (or skipped) but are not in ``children``, to keep the
    /// explanation bounded; their own sub-nodes are not counted.
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
    /// thousand nodes are far more than a reader follows, and about a megabyte. The values the
    /// nodes hold are the evaluation's own (shared, not copied): an input's collections cost
    /// nothing more, and what the rule builds is bounded by the steps it was allowed.
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
        _ predicate: PredicateNode, on object: Value, variables: [String: Value] = [:]
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
                kind: ExplanationRecorder.kind(of: predicate), range: predicate.range, outcome: outcome,
                children: [])
    }
}

/// Builds an ``Explanation`` from the interpreter's walk: a stack of the nodes begun and not yet
/// ended, each collecting its recorded children.
///
/// Nodes over a bound are not recorded, but still counted on a stack of "ghosts" while they run:
/// an error ends the whole evaluation, and the ghosts it passes through on its way out are
/// recorded after all, so the tree always leads to where an error arose, even in element 500 of
/// a `SUBQUERY`. That adds at most twice the rule's depth in nodes beyond the bounds. A ghost is one
/// integer (its children so far), as the walk names the node again when it ends.
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
    /// For each node begun and not ended in or below the first that is not recorded, how many
    /// shown children it has begun or skipped so far (all unrecorded).
    private var ghosts: [Int] = []
    /// The failing child of the innermost ghost, when one has ended with an error.
    private var failed: Explanation?
    /// Nodes that may still be recorded (``Explanation/maximumRecordedNodes``).
    private var budget = Explanation.maximumRecordedNodes
    /// The finished tree, once the root has ended.
    private(set) var root: Explanation?

    // The hooks are inlined into the walk: past the bounds, where most of a large evaluation
    // runs, each is a push or a pop.

    @inline(__always)
    mutating func begin(_ predicate: PredicateNode) {
        if ghosts.isEmpty && admit(isElement: false) {
            frames.append(Frame(kind: Self.kind(of: predicate), range: predicate.range, element: nil))
        } else {
            beginGhost(shown: true)
        }
    }

    @inline(__always)
    mutating func begin(_ expression: ExpressionNode) {
        let shown = Self.isShown(expression)
        if ghosts.isEmpty && shown && admit(isElement: false) {
            frames.append(Frame(kind: Self.kind(of: expression), range: expression.range, element: nil))
        } else {
            beginGhost(shown: shown)
        }
    }

    @inline(__always)
    mutating func beginElement(_ element: Value, range: SourceRange) {
        if ghosts.isEmpty && admit(isElement: true) {
            frames.append(Frame(kind: "element", range: range, element: element))
        } else {
            beginGhost(shown: true)
        }
    }

    // A ghost that succeeds only pops: only failures past the bounds are recorded.

    @inline(__always)
    mutating func end(_ predicate: PredicateNode, truth: Bool) {
        if ghosts.popLast() == nil { close(.truth(truth)) }
    }

    @inline(__always)
    mutating func end(_ predicate: PredicateNode, error: EvaluationError) {
        guard let children = ghosts.popLast() else { return close(.error(error)) }
        endGhost(kind: Self.kind(of: predicate), range: predicate.range, element: nil, children: children, error)
    }

    @inline(__always)
    mutating func end(_ expression: ExpressionNode, value: Value) {
        if ghosts.popLast() == nil { close(.value(value)) }
    }

    @inline(__always)
    mutating func end(_ expression: ExpressionNode, error: EvaluationError) {
        guard let children = ghosts.popLast() else { return close(.error(error)) }
        // A hidden node was a ghost from the start, and stays one even when it fails.
        guard Self.isShown(expression) else { return }
        endGhost(kind: Self.kind(of: expression), range: expression.range, element: nil, children: children, error)
    }

    @inline(__always)
    mutating func endElement(_ element: Value, range: SourceRange, matched: Bool) {
        if ghosts.popLast() == nil { close(.truth(matched)) }
    }

    @inline(__always)
    mutating func endElement(_ element: Value, range: SourceRange, error: EvaluationError) {
        guard let children = ghosts.popLast() else { return close(.error(error)) }
        endGhost(kind: "element", range: range, element: element, children: children, error)
    }

    mutating func skip(_ node: SyntaxNode) {
        guard Self.isShown(node) else { return }
        if let ghost = ghosts.indices.last {
            ghosts[ghost] += 1
        } else if admit(isElement: false) {
            add(Explanation(kind: Self.kind(of: node), range: Self.range(of: node), outcome: .skipped, children: []))
        }
    }

    /// Stacks a node that is not recorded; a shown one counts as a child of its ghost parent
    /// (``admit(isElement:)`` has counted it if the parent is recorded).
    private mutating func beginGhost(shown: Bool) {
        if shown, let parent = ghosts.indices.last { ghosts[parent] += 1 }
        ghosts.append(0)
    }

    /// Records a ghost that failed, with its failing child if that was recorded. Only failures
    /// are: a failure ends the evaluation, and its path is the answer. (A ghost that did not
    /// fail had no failing child, so there is nothing to clear.)
    private mutating func endGhost(
        kind: String, range: SourceRange, element: Value?, children: Int, _ error: EvaluationError
    ) {
        let child = failed
        failed = nil
        let node = Explanation(
            kind: kind, range: range, element: element, outcome: .error(error), children: child.map { [$0] } ?? [],
            omittedChildren: children - (child == nil ? 0 : 1))
        if !ghosts.isEmpty {
            failed = node
        } else if let parent = frames.indices.last {
            frames[parent].omitted -= 1  // counted when it began; recorded after all
            frames[parent].children.append(node)
        }
    }

    /// Ends the innermost recorded node.
    private mutating func close(_ outcome: Explanation.Outcome) {
        guard let frame = frames.popLast() else { return }
        add(
            Explanation(
                kind: frame.kind, range: frame.range, element: frame.element, outcome: outcome,
                children: frame.children, omittedChildren: frame.omitted))
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
    static func isShown(_ expression: ExpressionNode) -> Bool {
        switch expression.kind {
        case .constant, .evaluatedObject: return false
        default: return true
        }
    }

    static func isShown(_ node: SyntaxNode) -> Bool {
        guard case .expression(let expression) = node else { return true }
        return isShown(expression)
    }

    static func range(of node: SyntaxNode) -> SourceRange {
        switch node {
        case .predicate(let predicate): return predicate.range
        case .expression(let expression): return expression.range
        }
    }

    static func kind(of node: SyntaxNode) -> String {
        switch node {
        case .predicate(let predicate): return kind(of: predicate)
        case .expression(let expression): return kind(of: expression)
        }
    }

    static func kind(of predicate: PredicateNode) -> String {
        switch predicate.kind {
        case .constant: return "constant"
        case .not: return "NOT"
        case .and: return "AND"
        case .or: return "OR"
        case .comparison: return "comparison"
        }
    }

    static func kind(of expression: ExpressionNode) -> String {
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
