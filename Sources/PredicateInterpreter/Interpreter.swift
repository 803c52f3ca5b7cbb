import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The reference interpreter: a plain walk over the syntax tree that defines what every rule
/// means (SPEC §4). Written for clarity; the VM is held to its answers.
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
        _ predicate: Predicate, on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        var walk = Walk(environment: environment, object: object, rootRange: predicate.range)
        return try walk.evaluate(predicate, variables)
    }

    /// Evaluates `predicate` under the activation-rule policy (SPEC §4.10.3): an evaluation error
    /// means "not satisfied" (the action stays hidden), and `onError` hears about it.
    public func isSatisfied(
        _ predicate: Predicate, by object: Value, variables: [String: Value] = [:],
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
        _ expression: Expression, on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        var walk = Walk(environment: environment, object: object, rootRange: expression.range)
        var bindings = variables
        return try walk.evaluate(expression, &bindings)
    }
}

/// One evaluation: the object stays fixed (SPEC §4.1; even inside SUBQUERY, SELF is the outer
/// object), the bindings change as SUBQUERY binds its variable and `:=` assigns.
private struct Walk {
    let environment: EvaluationEnvironment
    let object: Value
    /// Where a spent budget is reported: the whole rule, as the VM does, whose step counts differ.
    let rootRange: SourceRange
    /// Steps left before ``EvaluationLimits/maximumSteps`` is spent.
    var steps: Int

    init(environment: EvaluationEnvironment, object: Value, rootRange: SourceRange) {
        self.environment = environment
        self.object = object
        self.rootRange = rootRange
        steps = environment.limits.maximumSteps
    }

    /// Spends `cost` steps, failing once the budget is gone.
    mutating func charge(_ cost: Int) throws(EvaluationError) {
        steps = steps < cost ? -1 : steps - cost
        if steps < 0 { throw environment.limits.stepsExceeded().at(rootRange) }
    }

    // MARK: - Predicates

    mutating func evaluate(_ predicate: Predicate, _ bindings: [String: Value]) throws(EvaluationError) -> Bool {
        try charge(1)
        switch predicate.kind {
        case .constant(let value):
            return value
        case .not(let operand):
            return !(try evaluate(operand, bindings))
        case .and(let operands):
            for operand in operands where !(try evaluate(operand, bindings)) { return false }
            return true
        case .or(let operands):
            for operand in operands where try evaluate(operand, bindings) { return true }
            return false
        case .comparison(let comparison):
            // Each comparison evaluates with its own copy of the bindings, so an assignment is
            // visible to the rest of the comparison and nowhere else (SPEC §4.9.6).
            var local = bindings
            let lhs = try evaluate(comparison.lhs, &local)
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

    // MARK: - Expressions

    mutating func evaluate(_ expression: Expression, _ bindings: inout [String: Value]) throws(EvaluationError) -> Value
    {
        try charge(1)
        do {
            return try evaluateKind(expression, &bindings)
        } catch {
            throw error.at(expression.range)
        }
    }

    private mutating func evaluateKind(
        _ expression: Expression, _ bindings: inout [String: Value]
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
            if receiver.isNil { return .nil }
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
                if try evaluate(predicate, inner) { matches.append(element) }
            }
            try environment.limits.checkCollection(count: matches.count)
            return .array(matches)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return try evaluate(condition, bindings)
                ? try evaluate(whenTrue, &bindings) : try evaluate(whenFalse, &bindings)
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

    /// `$name`: missing is an error, `null` reads as `nil` (SPEC §4.9.7).
    private func variable(_ name: String, _ bindings: [String: Value]) throws(EvaluationError) -> Value {
        guard let value = bindings[name] else {
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
        return value.isNull ? .nil : value
    }
}
