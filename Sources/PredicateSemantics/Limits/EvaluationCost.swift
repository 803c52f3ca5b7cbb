import PredicateSyntax
import PredicateValue

/// The extra work units an operation costs beyond its one step, charged against
/// ``EvaluationLimits/maximumSteps`` by both engines with the same operands, so that loops hidden
/// inside one operation (a quantified comparison, a set operation, a `@distinctUnionOfObjects`)
/// are bounded as well as the rule's own steps.
///
/// Each figure is an upper bound on the element visits the operation makes, saturating at
/// `Int.max`: pairs for the quadratic operations, elements for the linear ones.
public enum EvaluationCost {
    /// `lhs op rhs` under any quantifier: each left element may be compared with each right one.
    public static func comparison(_ lhs: Value, _ rhs: Value) -> Int {
        product(size(lhs), size(rhs))
    }

    /// `UNION`, `INTERSECTION`, `MINUS`: a pairwise membership test, then removing duplicates
    /// from the joined elements.
    public static func setOperation(_ lhs: Value, _ rhs: Value) -> Int {
        let joined = size(lhs).addingReportingOverflow(size(rhs))
        let all = joined.overflow ? Int.max : joined.partialValue
        return product(all, all)
    }

    /// A built-in function or method: one visit per element of each collection argument.
    public static func call(_ arguments: [Value]) -> Int {
        call(arguments[...])
    }

    /// The cost of a call on arguments that lie in a larger array.
    public static func call(_ arguments: ArraySlice<Value>) -> Int {
        var total = 0
        for argument in arguments { total = sum(total, size(argument)) }
        return total
    }

    /// A key path read from `receiver`: a path over a collection visits every element (and the
    /// elements of nested collections for `@unionOfArrays`), and the `@distinct…` operators
    /// compare every pair of the collection they reach, which may sit further along the path
    /// (`SELF.tags.@distinctUnionOfObjects.length`): the fixed keys before the operator are
    /// read again to find it, a few dictionary or field reads.
    public static func keyPath(_ components: [KeyComponent], from receiver: Value) -> Int {
        guard let operatorIndex = components.firstIndex(where: isDistinctOperator) else { return visits(receiver) }
        var current = receiver
        for component in components[..<operatorIndex] {
            guard let key = component.key, let next = try? KeyValueAccess.value(forKey: key, of: current) else {
                return visits(receiver)
            }
            current = next
        }
        let pairs = visits(current)
        return product(pairs, pairs)
    }

    /// Whether `component` is `@distinctUnionOf…`: a byte test first, since this runs for every
    /// key path the interpreter reads.
    private static func isDistinctOperator(_ component: KeyComponent) -> Bool {
        guard case .key(let key) = component, key.utf8.first == UInt8(ascii: "@") else { return false }
        return key.hasPrefix("@distinct")
    }

    /// Elements of `value` and of the collections directly inside it; 0 for a non-collection.
    private static func visits(_ value: Value) -> Int {
        let elements: [Value]
        switch value {
        case .array(let values), .set(let values): elements = values
        default: return 0
        }
        var total = elements.count
        for element in elements { total = sum(total, size(element)) }
        return total
    }

    /// Elements of a collection (or entries of a dictionary); 1 for anything else: what a value
    /// adds to the visits of a key path over a collection holding it.
    public static func size(_ value: Value) -> Int {
        switch value {
        case .array(let elements), .set(let elements): return max(1, elements.count)
        case .dictionary(let entries): return max(1, entries.count)
        default: return 1
        }
    }

    private static func product(_ a: Int, _ b: Int) -> Int {
        let result = a.multipliedReportingOverflow(by: b)
        return result.overflow ? .max : result.partialValue
    }

    private static func sum(_ a: Int, _ b: Int) -> Int {
        let result = a.addingReportingOverflow(b)
        return result.overflow ? .max : result.partialValue
    }
}
