import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why a rule gave its answer: the tree of its sub-predicates and sub-expressions, each with
/// what it produced, and the ones short-circuit evaluation never reached.
///
/// Built by ``Interpreter/explain(_:on:variables:)`` with the reference interpreter's
/// semantics; the root's outcome is the interpreter's answer (or error).
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

    /// Creates a node.
    public init(kind: String, range: SourceRange, element: Value? = nil, outcome: Outcome, children: [Explanation]) {
        self.kind = kind
        self.range = range
        self.element = element
        self.outcome = outcome
        self.children = children
    }

    /// The most `SUBQUERY` elements explained one by one; the others are evaluated without a
    /// record, so an explanation stays readable on large selections.
    public static let maximumExplainedElements = 20
}

extension Interpreter {
    /// Evaluates `predicate` like ``evaluate(_:on:variables:)`` and records why: every
    /// sub-predicate and sub-expression with its value, the operands short-circuit skipped, and
    /// where an error arose. Never throws: an error is the root's outcome.
    public func explain(
        _ predicate: Predicate, on object: Value, variables: [String: Value] = [:]
    ) -> Explanation {
        var walk = ExplainingWalk(environment: environment, object: object)
        return walk.explain(predicate, variables)
    }
}

/// The interpreter's walk (``Interpreter``), recording a node per sub-tree.
private struct ExplainingWalk {
    let environment: EvaluationEnvironment
    let object: Value

    // MARK: - Predicates

    mutating func explain(_ predicate: Predicate, _ bindings: [String: Value]) -> Explanation {
        let range = predicate.range
        switch predicate.kind {
        case .constant(let value):
            return Explanation(kind: "constant", range: range, outcome: .truth(value), children: [])
        case .not(let operand):
            let inner = explain(operand, bindings)
            let outcome: Explanation.Outcome
            switch inner.outcome {
            case .truth(let flag): outcome = .truth(!flag)
            default: outcome = inner.outcome
            }
            return Explanation(kind: "NOT", range: range, outcome: outcome, children: [inner])
        case .and(let operands), .or(let operands):
            let isAnd: Bool
            if case .and = predicate.kind { isAnd = true } else { isAnd = false }
            var children: [Explanation] = []
            var decided: Explanation.Outcome?
            for operand in operands {
                if decided != nil {
                    children.append(Self.skipped(.predicate(operand)))
                    continue
                }
                let child = explain(operand, bindings)
                children.append(child)
                switch child.outcome {
                case .truth(let flag) where flag != isAnd: decided = .truth(flag)
                case .error: decided = child.outcome
                default: break
                }
            }
            return Explanation(
                kind: isAnd ? "AND" : "OR", range: range, outcome: decided ?? .truth(isAnd), children: children)
        case .comparison(let comparison):
            var local = bindings
            let lhs = explain(comparison.lhs, &local)
            guard case .value(let left) = lhs.outcome else {
                return Explanation(
                    kind: "comparison", range: range, outcome: lhs.outcome,
                    children: [lhs, Self.skipped(.expression(comparison.rhs))].filter(Self.isShown))
            }
            let rhs = explain(comparison.rhs, &local)
            let children = [lhs, rhs].filter(Self.isShown)
            guard case .value(let right) = rhs.outcome else {
                return Explanation(kind: "comparison", range: range, outcome: rhs.outcome, children: children)
            }
            let outcome: Explanation.Outcome
            do throws(EvaluationError) {
                outcome = .truth(
                    try ComparisonOperators.evaluate(
                        comparison.op, left, right, quantifier: comparison.quantifier, options: comparison.options,
                        environment: environment))
            } catch {
                outcome = .error(error.at(range))
            }
            return Explanation(kind: "comparison", range: range, outcome: outcome, children: children)
        }
    }

    // MARK: - Expressions

    /// Explains `expression`; an error made here gets the expression's range, as in the
    /// interpreter.
    mutating func explain(_ expression: Expression, _ bindings: inout [String: Value]) -> Explanation {
        var children: [Explanation] = []
        let outcome: Explanation.Outcome
        do throws(EvaluationError) {
            outcome = .value(try value(of: expression, &bindings, &children))
        } catch {
            outcome = .error(error.at(expression.range))
        }
        return Explanation(
            kind: Self.kind(of: expression), range: expression.range, outcome: outcome, children: children)
    }

    /// Evaluates a child and records it; throws its error so that the caller stops as the
    /// interpreter would.
    private mutating func child(
        _ expression: Expression, _ bindings: inout [String: Value], _ children: inout [Explanation]
    ) throws(EvaluationError) -> Value {
        let node = explain(expression, &bindings)
        if Self.isShown(node) { children.append(node) }
        switch node.outcome {
        case .value(let value): return value
        case .error(let error): throw error
        case .truth(let flag): return .bool(flag)
        case .skipped: return .nil
        }
    }

    private mutating func value(
        of expression: Expression, _ bindings: inout [String: Value], _ children: inout [Explanation]
    ) throws(EvaluationError) -> Value {
        switch expression.kind {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            return try Self.variable(name, bindings)
        case .keyPath(let base, let components):
            let receiver = try child(base, &bindings, &children)
            let bound = bindings
            return try KeyValueAccess.value(along: components, from: receiver) { name throws(EvaluationError) in
                try Self.variable(name, bound)
            }
        case .function(let selector, let arguments):
            var values: [Value] = []
            for argument in arguments { values.append(try child(argument, &bindings, &children)) }
            return try BuiltinFunctions.call(selector, values)
        case .invoke(let receiverExpression, let selector, let arguments):
            let receiver = try child(receiverExpression, &bindings, &children)
            if receiver.isNil {
                children += arguments.map { Self.skipped(.expression($0)) }.filter(Self.isShown)
                return .nil
            }
            var values: [Value] = []
            for argument in arguments { values.append(try child(argument, &bindings, &children)) }
            return try MethodInvocation.invoke(selector, on: receiver, arguments: values)
        case .aggregate(let elements):
            var values: [Value] = []
            for element in elements { values.append(try child(element, &bindings, &children).asCollectionElement) }
            return .array(values)
        case .index(let base, let spec):
            let receiver = try child(base, &bindings, &children)
            let index: CollectionOperations.IndexValue
            switch spec {
            case .first: index = .first
            case .last: index = .last
            case .size: index = .size
            case .expression(let indexExpression): index = .value(try child(indexExpression, &bindings, &children))
            }
            return try CollectionOperations.index(receiver, index)
        case .subquery(let collectionExpression, let variable, let predicate):
            let collection = try child(collectionExpression, &bindings, &children)
            let elements: [Value]
            switch collection {
            case .nil: return .nil
            case .array(let values), .set(let values): elements = values
            default:
                throw EvaluationError(
                    .notACollection, "SUBQUERY needs an array or a set, got \(ValueComparison.describe(collection))")
            }
            var inner = bindings
            var matches: [Value] = []
            for (position, element) in elements.enumerated() {
                inner[variable] = element
                let node = explain(predicate, inner)
                if position < Explanation.maximumExplainedElements {
                    children.append(
                        Explanation(
                            kind: "element", range: predicate.range, element: element, outcome: node.outcome,
                            children: [node]))
                }
                switch node.outcome {
                case .truth(true): matches.append(element)
                case .error(let error): throw error
                default: break
                }
            }
            return .array(matches)
        case .ternary(let condition, let whenTrue, let whenFalse):
            let test = explain(condition, bindings)
            children.append(test)
            switch test.outcome {
            case .truth(true):
                let result = try child(whenTrue, &bindings, &children)
                children += [Self.skipped(.expression(whenFalse))].filter(Self.isShown)
                return result
            case .truth(false):
                children += [Self.skipped(.expression(whenTrue))].filter(Self.isShown)
                return try child(whenFalse, &bindings, &children)
            case .error(let error):
                throw error
            default:
                return .nil
            }
        case .cast(let value, let type):
            let castValue = try child(value, &bindings, &children)
            return try Cast.cast(castValue, to: try child(type, &bindings, &children))
        case .assignment(let name, let value):
            let result = try child(value, &bindings, &children)
            bindings[name] = result
            return result
        case .setOperation(let op, let lhs, let rhs):
            let left = try child(lhs, &bindings, &children)
            return try CollectionOperations.setOperation(op, left, try child(rhs, &bindings, &children))
        case .anyKey:
            throw EvaluationError(.unsupported, "ANYKEY is only meaningful to Spotlight and cannot be evaluated here")
        }
    }

    private static func variable(_ name: String, _ bindings: [String: Value]) throws(EvaluationError) -> Value {
        guard let value = bindings[name] else {
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
        return value.isNull ? .nil : value
    }

    // MARK: - Nodes

    /// Constants and `SELF` as the base of a key path say nothing the rule's text does not.
    static func isShown(_ node: Explanation) -> Bool { node.kind != "constant" && node.kind != "SELF" }

    static func skipped(_ node: SyntaxNode) -> Explanation {
        switch node {
        case .predicate(let predicate):
            let kind: String
            switch predicate.kind {
            case .constant: kind = "constant"
            case .not: kind = "NOT"
            case .and: kind = "AND"
            case .or: kind = "OR"
            case .comparison: kind = "comparison"
            }
            return Explanation(kind: kind, range: predicate.range, outcome: .skipped, children: [])
        case .expression(let expression):
            return Explanation(
                kind: Self.kind(of: expression), range: expression.range, outcome: .skipped, children: [])
        }
    }

    static func kind(of expression: Expression) -> String {
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
