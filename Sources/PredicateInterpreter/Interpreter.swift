import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The reference interpreter: a plain walk over the syntax tree that defines what every rule
/// means (SPEC §4). Written for clarity; the VM is held to its answers, and
/// ``explain(_:on:variables:)`` records this same walk.
///
/// ```swift
/// let rule = try PredicateParser.parsePredicate("documentSize > 1e6").predicate
/// let big = try Interpreter().evaluate(rule, on: .dictionary(["documentSize": .int(5_000_000)]))
/// ```
public struct Interpreter: Sendable {
    /// What operators need beyond their operands: type identifiers, compiled patterns.
    public var environment: EvaluationEnvironment

    /// Creates an interpreter with the given environment (the system type table by default).
    public init(environment: EvaluationEnvironment = EvaluationEnvironment()) {
        self.environment = environment
    }

    /// Evaluates `predicate` with `object` as `SELF` and `variables` as the bindings.
    ///
    /// - Throws: The first ``EvaluationError`` met, with the source range of the failing
    ///   sub-expression. Short-circuited operands are never evaluated, so cannot fail. A rule that
    ///   spends the environment's ``EvaluationLimits/maximumSteps`` fails with `limitExceeded`
    ///   at the range of the whole rule (one step per node evaluated, plus ``EvaluationCost``).
    public func evaluate(
        _ predicate: PredicateNode, on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        var walk = Walk(
            environment: environment, object: object, rootRange: predicate.range, observer: SilentObserver())
        return try walk.evaluate(predicate, variables)
    }

    /// Evaluates `predicate` under the activation-rule policy (SPEC §4.10.3): an evaluation error
    /// means "not satisfied" (the action stays hidden), and `onError` hears about it.
    public func isSatisfied(
        _ predicate: PredicateNode, by object: Value, variables: [String: Value] = [:],
        onError: (EvaluationError) -> Void = { _ in }
    ) -> Bool {
        do {
            return try evaluate(predicate, on: object, variables: variables)
        } catch {
            onError(error)
            return false
        }
    }

    /// Evaluates a standalone expression (what `NSExpression(format:)` parses).
    public func evaluate(
        _ expression: ExpressionNode, on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        var walk = Walk(
            environment: environment, object: object, rootRange: expression.range, observer: SilentObserver())
        var bindings = variables
        return try walk.evaluate(expression, &bindings)
    }
}

// MARK: - Observers

/// What hears the interpreter's walk, node by node, so that ``Interpreter/explain(_:on:variables:)``
/// reports the evaluation itself (its steps, limits and errors) rather than a second walk that
/// could drift from it.
///
/// Every node the walk evaluates gets a `begin` and, after its sub-nodes, an `end` with the same
/// node and what it produced (or the error it failed with); a `SUBQUERY` element gets
/// `beginElement` and `endElement`. The end repeats the node, and takes the result unwrapped,
/// so that an observer pays nothing for what it does not record. Operands the walk decides not
/// to evaluate are reported by ``skip(_:)`` inside their parent.
protocol WalkObserver {
    /// Whether the walk calls the hooks at all. A constant per observer type, so in the
    /// specialised walk of ``SilentObserver`` the hooks and their bookkeeping fold away.
    static var isObserving: Bool { get }
    /// A predicate starts (before its step is charged, so a node that runs out of steps still
    /// ends with the error).
    mutating func begin(_ predicate: PredicateNode)
    /// An expression starts, as ``begin(_:)-(PredicateNode)`` does.
    mutating func begin(_ expression: ExpressionNode)
    /// A `SUBQUERY` element starts: its predicate, at `range`, is evaluated with the variable
    /// bound to `element`.
    mutating func beginElement(_ element: Value, range: SourceRange)
    /// `predicate`, the innermost node begun and not ended, was `truth`.
    mutating func end(_ predicate: PredicateNode, truth: Bool)
    /// `predicate`, the innermost node begun and not ended, failed.
    mutating func end(_ predicate: PredicateNode, error: EvaluationError)
    /// `expression`, the innermost node begun and not ended, gave `value`.
    mutating func end(_ expression: ExpressionNode, value: Value)
    /// `expression`, the innermost node begun and not ended, failed.
    mutating func end(_ expression: ExpressionNode, error: EvaluationError)
    /// The innermost element begun and not ended `matched` the `SUBQUERY`'s predicate or not.
    mutating func endElement(_ element: Value, range: SourceRange, matched: Bool)
    /// The innermost element begun and not ended failed.
    mutating func endElement(_ element: Value, range: SourceRange, error: EvaluationError)
    /// `node`, an operand of the innermost node begun, is not evaluated.
    mutating func skip(_ node: SyntaxNode)
}

/// The observer of plain ``Interpreter/evaluate(_:on:variables:)``: hears nothing.
struct SilentObserver: WalkObserver {
    static var isObserving: Bool { false }
    func begin(_ predicate: PredicateNode) {}
    func begin(_ expression: ExpressionNode) {}
    func beginElement(_ element: Value, range: SourceRange) {}
    func end(_ predicate: PredicateNode, truth: Bool) {}
    func end(_ predicate: PredicateNode, error: EvaluationError) {}
    func end(_ expression: ExpressionNode, value: Value) {}
    func end(_ expression: ExpressionNode, error: EvaluationError) {}
    func endElement(_ element: Value, range: SourceRange, matched: Bool) {}
    func endElement(_ element: Value, range: SourceRange, error: EvaluationError) {}
    func skip(_ node: SyntaxNode) {}
}

// MARK: - Walk

/// One evaluation: the object stays fixed (SPEC §4.1; even inside SUBQUERY, SELF is the outer
/// object), the bindings change as SUBQUERY binds its variable and `:=` assigns.
///
/// Generic over its observer rather than holding an optional one, so that plain evaluation is
/// specialised with ``SilentObserver`` and pays nothing for explanations.
struct Walk<Observer: WalkObserver> {
    let environment: EvaluationEnvironment
    let object: Value
    /// Where a spent budget is reported: the whole rule, as the VM does, whose step counts differ.
    let rootRange: SourceRange
    /// Steps left before ``EvaluationLimits/maximumSteps`` is spent.
    var steps: Int
    var observer: Observer

    init(environment: EvaluationEnvironment, object: Value, rootRange: SourceRange, observer: Observer) {
        self.environment = environment
        self.object = object
        self.rootRange = rootRange
        self.observer = observer
        steps = environment.limits.maximumSteps
    }

    /// Spends `cost` steps, failing once the budget is gone.
    mutating func charge(_ cost: Int) throws(EvaluationError) {
        steps = steps < cost ? -1 : steps - cost
        if steps < 0 { throw environment.limits.stepsExceeded().at(rootRange) }
    }

    // MARK: - Predicates

    mutating func evaluate(_ predicate: PredicateNode, _ bindings: [String: Value]) throws(EvaluationError) -> Bool {
        guard Observer.isObserving else { return try evaluateNode(predicate, bindings) }
        observer.begin(predicate)
        do {
            let result = try evaluateNode(predicate, bindings)
            observer.end(predicate, truth: result)
            return result
        } catch {
            observer.end(predicate, error: error)
            throw error
        }
    }

    private mutating func evaluateNode(
        _ predicate: PredicateNode, _ bindings: [String: Value]
    ) throws(EvaluationError) -> Bool {
        try charge(1)
        switch predicate.kind {
        case .constant(let value):
            return value
        case .not(let operand):
            return !(try evaluate(operand, bindings))
        case .and(let operands), .or(let operands):
            // `AND` is decided by its first false operand, `OR` by its first true one.
            let decider: Bool
            if case .or = predicate.kind { decider = true } else { decider = false }
            for (index, operand) in operands.enumerated() {
                let holds: Bool
                do {
                    holds = try evaluate(operand, bindings)
                } catch {
                    skip(operands, after: index)
                    throw error
                }
                if holds == decider {
                    skip(operands, after: index)
                    return decider
                }
            }
            return !decider
        case .comparison(let comparison):
            // Each comparison evaluates with its own copy of the bindings, so an assignment is
            // visible to the rest of the comparison and nowhere else (SPEC §4.9.6).
            var local = bindings
            let lhs: Value
            do {
                lhs = try evaluate(comparison.lhs, &local)
            } catch {
                observer.skip(.expression(comparison.rhs))
                throw error
            }
            let rhs = try evaluate(comparison.rhs, &local)
            try charge(EvaluationCost.comparison(lhs, rhs))
            do {
                return try ComparisonOperators.evaluate(
                    comparison.op, lhs, rhs, quantifier: comparison.quantifier, options: comparison.options,
                    environment: environment, steps: &steps)
            } catch {
                // `LIKE`/`MATCHES` spent the rest of the budget: the rule's error, not the comparison's.
                if steps < 0 { throw environment.limits.stepsExceeded().at(rootRange) }
                throw error.at(predicate.range)
            }
        }
    }

    /// Reports the operands of an `AND` or `OR` after `index` as skipped: it was decided there.
    private mutating func skip(_ operands: [PredicateNode], after index: Int) {
        guard Observer.isObserving else { return }
        for operand in operands.dropFirst(index + 1) { observer.skip(.predicate(operand)) }
    }

    // MARK: - Expressions

    mutating func evaluate(
        _ expression: ExpressionNode, _ bindings: inout [String: Value]
    ) throws(EvaluationError) -> Value {
        guard Observer.isObserving else { return try evaluateNode(expression, &bindings) }
        observer.begin(expression)
        do {
            let value = try evaluateNode(expression, &bindings)
            observer.end(expression, value: value)
            return value
        } catch {
            observer.end(expression, error: error)
            throw error
        }
    }

    private mutating func evaluateNode(
        _ expression: ExpressionNode, _ bindings: inout [String: Value]
    ) throws(EvaluationError) -> Value {
        try charge(1)
        do {
            return try evaluateKind(expression, &bindings)
        } catch {
            throw error.at(expression.range)
        }
    }

    private mutating func evaluateKind(
        _ expression: ExpressionNode, _ bindings: inout [String: Value]
    ) throws(EvaluationError) -> Value {
        switch expression.kind {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            return try variable(name, bindings)
        case .keyPath(let base, let components):
            let receiver = try evaluate(base, &bindings)
            try charge(EvaluationCost.keyPath(components, from: receiver))
            let bound = bindings
            return try KeyValueAccess.value(along: components, from: receiver) { name throws(EvaluationError) in
                try variable(name, bound)
            }
        case .function(let selector, let arguments):
            var values: [Value] = []
            for argument in arguments { values.append(try evaluate(argument, &bindings)) }
            try charge(EvaluationCost.call(values))
            return try BuiltinFunctions.call(selector, values)
        case .invoke(let receiverExpression, let selector, let arguments):
            let receiver = try evaluate(receiverExpression, &bindings)
            if receiver.isNil {
                if Observer.isObserving { for argument in arguments { observer.skip(.expression(argument)) } }
                return .nil
            }
            var values: [Value] = []
            for argument in arguments { values.append(try evaluate(argument, &bindings)) }
            try charge(EvaluationCost.call(values))
            return try MethodInvocation.invoke(selector, on: receiver, arguments: values)
        case .aggregate(let elements):
            var values: [Value] = []
            for element in elements { values.append(try evaluate(element, &bindings).asCollectionElement) }
            try environment.limits.checkCollection(count: values.count)
            return .array(values)
        case .index(let base, let spec):
            let receiver = try evaluate(base, &bindings)
            let index: CollectionOperations.IndexValue
            switch spec {
            case .first: index = .first
            case .last: index = .last
            case .size: index = .size
            case .expression(let indexExpression): index = .value(try evaluate(indexExpression, &bindings))
            }
            return try CollectionOperations.index(receiver, index)
        case .subquery(let collectionExpression, let variable, let predicate):
            let collection = try evaluate(collectionExpression, &bindings)
            let elements: [Value]
            switch collection {
            case .nil: return .nil
            case .array(let values), .set(let values): elements = values
            default:
                throw EvaluationError(
                    .notACollection, "SUBQUERY needs an array or a set, got \(ValueComparison.describe(collection))")
            }
            try charge(elements.count)
            var inner = bindings
            var matches: [Value] = []
            for element in elements {
                inner[variable] = element
                if try evaluateElement(element, predicate, inner) { matches.append(element) }
            }
            try environment.limits.checkCollection(count: matches.count)
            return .array(matches)
        case .ternary(let condition, let whenTrue, let whenFalse):
            if try evaluate(condition, bindings) {
                let result = try evaluate(whenTrue, &bindings)
                observer.skip(.expression(whenFalse))
                return result
            }
            observer.skip(.expression(whenTrue))
            return try evaluate(whenFalse, &bindings)
        case .cast(let value, let type):
            let castValue = try evaluate(value, &bindings)
            return try Cast.cast(castValue, to: try evaluate(type, &bindings))
        case .assignment(let name, let value):
            let result = try evaluate(value, &bindings)
            bindings[name] = result
            return result
        case .setOperation(let op, let lhs, let rhs):
            let left = try evaluate(lhs, &bindings)
            let right = try evaluate(rhs, &bindings)
            try charge(EvaluationCost.setOperation(left, right))
            let result = try CollectionOperations.setOperation(op, left, right)
            if case .set(let members) = result { try environment.limits.checkCollection(count: members.count) }
            return result
        case .anyKey:
            throw EvaluationError(.unsupported, "ANYKEY is only meaningful to Spotlight and cannot be evaluated here")
        }
    }

    /// One `SUBQUERY` element: its predicate with the variable bound (in `bindings`) to `element`.
    private mutating func evaluateElement(
        _ element: Value, _ predicate: PredicateNode, _ bindings: [String: Value]
    ) throws(EvaluationError) -> Bool {
        guard Observer.isObserving else { return try evaluate(predicate, bindings) }
        observer.beginElement(element, range: predicate.range)
        do {
            let matched = try evaluate(predicate, bindings)
            observer.endElement(element, range: predicate.range, matched: matched)
            return matched
        } catch {
            observer.endElement(element, range: predicate.range, error: error)
            throw error
        }
    }

    /// `$name`: missing is an error, `null` reads as `nil` (SPEC §4.9.7).
    private func variable(_ name: String, _ bindings: [String: Value]) throws(EvaluationError) -> Value {
        guard let value = bindings[name] else {
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
        return value.isNull ? .nil : value
    }
}
