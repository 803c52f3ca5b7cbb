import Foundation
import PredicateBatch
import PredicateFileProvider
import PredicateValue

/// The generated items and every form an engine reads them in, each built once, on first use,
/// and timed: building is not part of any engine's figures, and the table reports it apart.
///
/// `items` holds two items more than the largest count measured, so that the small selection of
/// the last measured item (up to three items) never has to be cut short: the selections of the
/// first `n` items are the same whatever `n` is, and counts on a prefix compare exactly.
final class Dataset {
    let items: [FileProviderItem]
    /// How many items the sampled engines (``Engine/Scope/sample``) may be asked for.
    let sampleLimit: Int
    private(set) var buildSeconds: [(String, Double)] = []

    init(count: Int, sampleLimit: Int) {
        self.sampleLimit = min(sampleLimit, count)
        var generator = ItemGenerator(seed: 0x5EED)
        let start = ContinuousClock.now
        items = generator.items(count + 2)
        buildSeconds.append(("generate \(count) items", seconds(ContinuousClock.now - start)))
    }

    private func timed<T>(_ label: String, _ build: () -> T) -> T {
        let start = ContinuousClock.now
        let result = build()
        buildSeconds.append((label, seconds(ContinuousClock.now - start)))
        return result
    }

    private var limit: Int { min(items.count, sampleLimit + 2) }

    private var batches: [String: ColumnBatch] = [:]

    /// The batch engine's columns named `key`, built (and timed) on first use. Only the latest
    /// batch is kept: each workload builds its own, and a million rows of columns is not small.
    func batch(for key: String, _ build: () -> ColumnBatch) -> ColumnBatch {
        if let batch = batches[key] { return batch }
        batches.removeAll()
        let batch = timed("vm_batch columns: \(key)", build)
        batches[key] = batch
        return batch
    }

    /// Each item as the language's `Value` (a host object), for the interpreter and the VM.
    private(set) lazy var values: [Value] = timed("values for \(sampleLimit) items") {
        items[..<limit].map { .object($0) }
    }

    /// The activation context of each item's small selection.
    private(set) lazy var smallSelections: [Value] = timed("contexts for \(sampleLimit) selections") {
        let values = self.values
        return (0..<sampleLimit).map { index in
            .dictionary([
                FileProviderContext.selectionKey: .array(Array(values[index..<index + smallSelectionLength(index)]))
            ])
        }
    }

    /// The struct-of-arrays form, over every item.
    private(set) lazy var columns: ItemColumns = timed("columns for \(items.count - 2) items") { ItemColumns(items) }

    /// The mirrors `#Predicate` reads.
    private(set) lazy var mirrors: [ItemMirror] = timed("#Predicate mirrors for \(sampleLimit) items") {
        items[..<limit].map(ItemMirror.init)
    }

    private(set) lazy var smallSelectionMirrors: [SelectionMirror] = timed("#Predicate selections") {
        let mirrors = self.mirrors
        return (0..<sampleLimit).map { SelectionMirror(items: Array(mirrors[$0..<$0 + smallSelectionLength($0)])) }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
