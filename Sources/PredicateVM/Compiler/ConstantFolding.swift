import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Computes at compile time what cannot differ at run time: aggregates of constants and built-in
/// functions of constants (not `now()`, `random()` or `randomn:`), and `CAST` of constants (how a
/// rule writes a date: `CAST(700000000, 'NSDate')`). A computation that fails is
/// left for run time, so that the error happens when, and only if, the interpreter's would.
enum ConstantFolding {
    /// The value of `expression` if it is foldable and not already a constant.
    static func value(of expression: ExpressionNode) -> Value? {
        switch expression.kind {
        case .aggregate, .function, .cast: return folded(expression)
        default: return nil
        }
    }

    private static let volatile: Set<String> = ["now", "random", "randomn:"]

    private static func folded(_ expression: ExpressionNode) -> Value? {
        switch expression.kind {
        case .constant(let value):
            return value
        case .aggregate(let elements):
            var values: [Value] = []
            for element in elements {
                guard let value = folded(element) else { return nil }
                values.append(value.asCollectionElement)
            }
            return .array(values)
        case .function(let selector, let arguments) where !volatile.contains(selector):
            var values: [Value] = []
            for argument in arguments {
                guard let value = folded(argument) else { return nil }
                values.append(value)
            }
            return try? BuiltinFunctions.call(selector, values)
        case .cast(let value, let type):
            guard let value = folded(value), let type = folded(type) else { return nil }
            return try? Cast.cast(value, to: type)
        default:
            return nil
        }
    }
}
