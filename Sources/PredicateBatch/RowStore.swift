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
    /// The columns of `paths` over the rows `rows`, in order: ``column(_:rows:)`` of each, or
    /// what reads several of them at once.
    func columns(_ paths: [[KeyComponent]], rows: Range<Int>) -> [Column]
    /// Removes the rows `removed` (ascending, distinct, all below ``count``), moving the rest
    /// up in place.
    mutating func remove(_ removed: [Int])
}

extension RowStore {
    func columns(_ paths: [[KeyComponent]], rows: Range<Int>) -> [Column] { paths.map { column($0, rows: rows) } }
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

    /// The stored scalar fields of the items' own type among `paths` loaded together
    /// (``Column/loading(together:from:)``), the other paths one by one.
    func columns(_ paths: [[KeyComponent]], rows: Range<Int>) -> [Column] {
        let start = items.startIndex
        let slice = items[(start + rows.lowerBound)..<(start + rows.upperBound)]
        var stored: [(path: Int, field: StoredScalar)] = []
        if let schema = slice.first?.schema, Item.sharedSchema === schema {
            for (index, path) in paths.enumerated() {
                guard path.count == 1, case .field(let field) = path[0], field.schema.schema === schema,
                    let scalar = Item.storedScalar(atSlot: field.slot), scalar.root == ObjectIdentifier(Item.self)
                else { continue }
                stored.append((index, scalar))
            }
        }
        var loaded: [Int: Column] = [:]
        if stored.count > 1 {
            let columns = slice.withUnsafeBufferPointer { Column.loading(together: stored.map(\.field), from: $0) }
            for (entry, column) in zip(stored, columns) { loaded[entry.path] = column }
        }
        return paths.indices.map { loaded[$0] ?? column(paths[$0], rows: rows) }
    }

    mutating func remove(_ removed: [Int]) {
        change { items in
            // The rows kept are moved down (a swap moves, retaining nothing), the removed ones
            // end up last and are dropped.
            items.withUnsafeMutableBufferPointer { buffer in
                var write = 0
                var next = 0
                for read in buffer.indices {
                    if next < removed.count, removed[next] == read {
                        next += 1
                        continue
                    }
                    if write != read { buffer.swapAt(write, read) }
                    write += 1
                }
            }
            items.removeLast(removed.count)
        }
    }

    /// `body` on the items as an array of their own: held once (when the batch holds them
    /// once), an append that outgrows the storage moves the items instead of copying them,
    /// which an array slice would do.
    mutating func change(_ body: (inout [Item]) -> Void) {
        // An array of a slice that spans its whole storage takes that storage as it is.
        var array = Array(items)
        items = []
        // Room to grow, taken when the items are copied anyway (on the first change of items the
        // caller still holds) or the room is nearly used: appends of a few percent then move
        // nothing, where growing an array of large structs moves every one.
        if array.capacity < array.count + array.count / 32 { array.reserveCapacity(array.count + array.count / 8) }
        body(&array)
        items = array[...]
    }
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

    mutating func remove(_ removed: [Int]) { rows = keeping(rows, without: removed) }
}
