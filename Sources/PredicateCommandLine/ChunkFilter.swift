import PredicateBatch
import PredicateValue

/// The one place `predicate filter` evaluates its rule: a chunk of items in, the indices of the
/// matching ones out.
///
/// A chunk is evaluated by the batch engine on every core: comparisons of a key path with a
/// constant as loops over the chunk's columns, everything else on the scalar VM. An item on
/// which the rule fails to evaluate does not match (as an activation rule's error hides its
/// action).
public enum ChunkFilter {
    /// The indices (ascending) of the items of `items` for which `program` is true.
    public static func matchingIndices(
        _ program: BatchProgram, _ items: [Value], threads: Int = BatchProgram.allCores
    ) -> [Int] {
        program.evaluate(items, threads: threads).matchingRows
    }
}
