import PredicateSyntax
import PredicateValue

/// The rows of a ``ColumnBatch``: what its columns are read from, and what clauses that run on
/// the scalar VM take whole.
protocol RowStore: Sendable {
    var count: Int { get }
    /// Row `index` as the language's value.
    func row(_ index: Int) -> Value
    /// The column of `path` over the rows `rows`, its first row being `rows.lowerBound`.
    func column(_ path: [KeyComponent], rows: Range<Int>) -> Column
    /// These rows without `removed` (ascending, distinct, all below ``count``).
    func removing(_ removed: [Int]) -> any RowStore
}

/// The elements of `elements` whose offsets are not in `removed` (ascending, distinct).
func keeping<C: Collection>(_ elements: C, without removed: [Int]) -> [C.Element] {
    var kept: [C.Element] = []
    kept.reserveCapacity(max(0, elements.count - removed.count))
    var next = 0
    for (offset, element) in elements.enumerated() {
        if next < removed.count, removed[next] == offset {
            next += 1
        } else {
            kept.append(element)
        }
    }
    return kept
}

/// The host's own objects: fields of their schema are read from `Item` in place.
struct ItemStore<Item: KeyValueCoding>: RowStore {
    var items: ArraySlice<Item>

    var count: Int { items.count }

    func row(_ index: Int) -> Value { .object(items[items.startIndex + index]) }

    func column(_ path: [KeyComponent], rows: Range<Int>) -> Column {
        let start = items.startIndex
        return Column(reading: path, from: items[(start + rows.lowerBound)..<(start + rows.upperBound)])
    }

    func removing(_ removed: [Int]) -> any RowStore { ItemStore(items: keeping(items, without: removed)[...]) }
}

/// The language's values; `SUBQUERY` elements (`rowsAreElements`) read `null` as `nil`.
struct ValueStore: RowStore {
    var rows: [Value]
    let rowsAreElements: Bool

    var count: Int { rows.count }

    func row(_ index: Int) -> Value { rows[index] }

    func column(_ path: [KeyComponent], rows range: Range<Int>) -> Column {
        let slice = range == rows.indices ? rows : Array(rows[range])
        return Column(reading: path, from: slice, nullReadsAsNil: rowsAreElements)
    }

    func removing(_ removed: [Int]) -> any RowStore {
        ValueStore(rows: keeping(rows, without: removed), rowsAreElements: rowsAreElements)
    }
}
