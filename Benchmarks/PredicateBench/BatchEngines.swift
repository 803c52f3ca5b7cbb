import PredicateBatch
import PredicateFileProvider
import PredicateSyntax
import PredicateValue

/// The batch VM on the columns it builds from the items (building is timed apart, as data
/// preparation): item rules over the batch, small selections as ranges of its rows, and the one
/// large selection as every row.
func batchRunner(_ input: EngineInput, threads: Int) -> Preparation {
    let program = BatchProgram(input.program, environment: input.environment)
    let dataset = input.dataset
    let name = input.workload.name
    let keyPaths: [[KeyComponent]]
    if case .item = input.workload.shape {
        keyPaths = program.columnKeyPaths
    } else {
        keyPaths = program.selectionKeyPaths
    }
    // Columns for the first `n` items, built on the counting call (outside the clock) and shared
    // by the one-core and all-core engines.
    func batch(_ n: Int) -> ColumnBatch {
        dataset.batch(for: "\(name) (\(n) items)") { ColumnBatch(items: dataset.items[..<n], keyPaths: keyPaths) }
    }
    switch input.workload.shape {
    case .item:
        return .runner { n in program.evaluate(batch(n), threads: threads).matchCount }
    case .smallSelections:
        var ranges: (n: Int, ranges: [Range<Int>])?
        return .runner { n in
            if ranges?.n != n { ranges = (n, (0..<n).map { $0..<($0 + smallSelectionLength($0)) }) }
            // Selections reach two items past the last one counted.
            let rows = batch(n + 2)
            return ranges.map { program.evaluateSelections(rows, ranges: $0.ranges, threads: threads).matchCount } ?? 0
        }
    case .oneSelection:
        return .runner { n in (try? program.evaluateSelection(batch(n), threads: threads).get()) == true ? 1 : 0 }
    }
}
