import PredicateValue

extension PredicateNode {
    /// The tree with each `$name` of `variables` replaced by its value, as
    /// `NSPredicate.withSubstitutionVariables(_:)` does; source ranges are kept.
    ///
    /// Substituting before a rule is prepared makes `$limit` a constant like `%@`, so the
    /// compiler folds it into prepared tests and the batch engine runs the clause as a column
    /// kernel (a variable bound at evaluation time is only known row by row). A `SUBQUERY`'s own
    /// variable is not substituted inside it, nor a variable the rule assigns with `:=`.
    public func substituting(_ variables: [String: Value]) -> PredicateNode {
        guard !variables.isEmpty else { return self }
        var values = variables
        // A variable the rule assigns is the rule's own: reads of it stay reads.
        var assigned: Set<String> = []
        Substitution.collectAssignments(.predicate(self), into: &assigned)
        for name in assigned { values[name] = nil }
        return Substitution(values: values).predicate(self)
    }
}

/// One walk of the tree; `values` loses the name a `SUBQUERY` binds below it.
private struct Substitution {
    var values: [String: Value]

    static func collectAssignments(_ node: SyntaxNode, into names: inout Set<String>) {
        let children: [SyntaxNode]
        switch node {
        case .predicate(let predicate):
            children = predicate.kind.children
        case .expression(let expression):
            if case .assignment(let name, _) = expression.kind { names.insert(name) }
            children = expression.kind.children
        }
        for child in children { collectAssignments(child, into: &names) }
    }

    func predicate(_ node: PredicateNode) -> PredicateNode {
        switch node.kind {
        case .constant:
            return node
        case .not(let operand):
            return PredicateNode(.not(predicate(operand)), range: node.range)
        case .and(let operands):
            return PredicateNode(.and(operands.map(predicate)), range: node.range)
        case .or(let operands):
            return PredicateNode(.or(operands.map(predicate)), range: node.range)
        case .comparison(var comparison):
            comparison.lhs = expression(comparison.lhs)
            comparison.rhs = expression(comparison.rhs)
            return PredicateNode(.comparison(comparison), range: node.range)
        }
    }

    func expression(_ node: ExpressionNode) -> ExpressionNode {
        let kind: ExpressionKind
        switch node.kind {
        case .constant, .evaluatedObject, .anyKey:
            return node
        case .variable(let name):
            guard let value = values[name] else { return node }
            kind = .constant(value)
        case .keyPath(let base, let components):
            kind = .keyPath(base: expression(base), components: components)
        case .function(let name, let arguments):
            kind = .function(name, arguments.map(expression))
        case .invoke(let receiver, let selector, let arguments):
            kind = .invoke(receiver: expression(receiver), selector: selector, arguments: arguments.map(expression))
        case .aggregate(let elements):
            kind = .aggregate(elements.map(expression))
        case .index(let base, .expression(let index)):
            kind = .index(expression(base), .expression(expression(index)))
        case .index(let base, let spec):
            kind = .index(expression(base), spec)
        case .subquery(let collection, let variable, let inner):
            var scoped = self
            scoped.values[variable] = nil
            kind = .subquery(collection: expression(collection), variable: variable, predicate: scoped.predicate(inner))
        case .ternary(let condition, let whenTrue, let whenFalse):
            kind = .ternary(predicate(condition), expression(whenTrue), expression(whenFalse))
        case .cast(let value, let type):
            kind = .cast(expression(value), expression(type))
        case .assignment(let variable, let value):
            kind = .assignment(variable: variable, expression(value))
        case .setOperation(let op, let lhs, let rhs):
            kind = .setOperation(op, expression(lhs), expression(rhs))
        }
        return ExpressionNode(kind, range: node.range)
    }
}
