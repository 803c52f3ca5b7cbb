import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why an action's rule is false for a selection: the clause that decided it and the values that
/// clause read, found in the interpreter's explanation of the rule.
struct HiddenActionReason {
    /// The deciding clause's text.
    let clause: String
    /// `text = value` for each value the clause read (constants are their own text).
    let values: [String]

    /// The reason `rule` is false for `items`, or `nil` when the interpreter does not find it
    /// false (the engines agree; this is only a guard).
    init?(rule: String, items: [FileProviderItem], limits: EvaluationLimits) {
        guard let predicate = try? PredicateParser.parsePredicate(rule).predicate else { return nil }
        let context = FileProviderContext.activation(selectedItems: items)
        let root = Interpreter(environment: EvaluationEnvironment(limits: limits)).explain(predicate, on: context)
        guard case .truth(false) = root.outcome else { return nil }
        let node = Self.deciding(root)
        let renderer = ExplanationRenderer(source: rule, colored: false)
        clause = renderer.excerpt(node.range)
        values = node.children.compactMap { child in
            guard case .value(let value) = child.outcome else { return nil }
            return renderer.excerpt(child.range) + " = " + renderer.shortValue(value)
        }
    }

    /// Through `AND` to its first false operand, and through parentheses: the smallest clause
    /// that alone makes the rule false. An `OR`, a `NOT` or a comparison is its own reason.
    private static func deciding(_ node: Explanation) -> Explanation {
        guard node.kind == "AND",
            let first = node.children.first(where: { $0.outcome == .truth(false) })
        else { return node }
        return deciding(first)
    }
}
