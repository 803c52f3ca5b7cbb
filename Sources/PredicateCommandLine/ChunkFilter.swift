import PredicateBytecode
import PredicateVM
import PredicateValue

/// The one place `predicate filter` evaluates its rule: a chunk of items in, the indices of the
/// matching ones out.
///
/// Today it runs the scalar VM item by item; a batch engine can replace the body without
/// touching the streaming around it. An item on which the rule fails to evaluate does not match
/// (as an activation rule's error hides its action).
public enum ChunkFilter {
    /// The indices (ascending) of the items of `items` for which `program` is true.
    public static func matchingIndices(_ program: Program, _ items: [Value]) -> [Int] {
        var machine = VirtualMachine(program: program)
        var matches: [Int] = []
        for (index, item) in items.enumerated() where (try? machine.evaluate(on: item)) == true {
            matches.append(index)
        }
        return matches
    }
}
