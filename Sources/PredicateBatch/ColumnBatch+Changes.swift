import PredicateSyntax
import PredicateValue

/// Why a change to a ``ColumnBatch`` was refused; the batch is left as it was.
public struct ColumnBatchChangeError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String
}

/// Keeping a batch current as the items it holds change, as a sync engine's items do: the
/// columns of the rows that changed are read and joined to the others (``Column``'s plain
/// arrays and coded strings), instead of every row being read again; a column whose storage the
/// new rows do not fit is read again whole. Answers on the changed batch are those on a batch
/// built anew from the same rows.
extension ColumnBatch {
    /// Appends `items`, of the type the batch was built from, as rows after the last.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the batch holds rows of another type.
    public mutating func append<Item: KeyValueCoding>(
        contentsOf items: some Collection<Item>
    )
        throws(ColumnBatchChangeError)
    {
        var store = try itemStore(of: Item.self)
        change {
            store.items.append(contentsOf: items)
        } store: {
            store
        }
    }

    /// Appends `rows` after the last row of a batch built from values.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the batch holds the host's objects.
    public mutating func append(contentsOf rows: [Value]) throws(ColumnBatchChangeError) {
        var store = try valueStore()
        change {
            store.rows.append(contentsOf: rows)
        } store: {
            store
        }
    }

    /// Replaces row `row` with `item`, of the type the batch was built from.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the row does not exist or the batch holds rows
    ///   of another type.
    public mutating func replaceRow<Item: KeyValueCoding>(_ row: Int, with item: Item) throws(ColumnBatchChangeError) {
        try replaceRows([row], with: [item])
    }

    /// Replaces each of `rows` with the item at the same position of `items`, of the type the
    /// batch was built from (a row given twice takes its last item). Replacing many rows at once
    /// reads again at most once a column whose storage the new rows do not fit.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when a row does not exist, the counts differ or the
    ///   batch holds rows of another type; nothing is replaced then.
    public mutating func replaceRows<Item: KeyValueCoding>(
        _ rows: [Int], with items: [Item]
    )
        throws(ColumnBatchChangeError)
    {
        try checkReplacement(rows, items.count)
        var store = try itemStore(of: Item.self)
        change(replacing: Array(Set(rows)).sorted()) {
            store.change { array in
                for (row, item) in zip(rows, items) { array[row] = item }
            }
        } store: {
            store
        }
    }

    /// Replaces row `row` of a batch built from values with `value`.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the row does not exist or the batch holds the
    ///   host's objects.
    public mutating func replaceRow(_ row: Int, with value: Value) throws(ColumnBatchChangeError) {
        try replaceRows([row], with: [value])
    }

    /// Replaces each of `rows` of a batch built from values with the value at the same position
    /// of `values`; see the items' ``replaceRows(_:with:)-(_,[Item])``.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when a row does not exist, the counts differ or the
    ///   batch holds the host's objects; nothing is replaced then.
    public mutating func replaceRows(_ rows: [Int], with values: [Value]) throws(ColumnBatchChangeError) {
        try checkReplacement(rows, values.count)
        var store = try valueStore()
        change(replacing: Array(Set(rows)).sorted()) {
            for (row, value) in zip(rows, values) { store.rows[row] = value }
        } store: {
            store
        }
    }

    /// Removes the rows `rows` (in any order; repeats count once); the rows after each move up.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when a row does not exist; nothing is removed then.
    public mutating func removeRows(_ rows: some Sequence<Int>) throws(ColumnBatchChangeError) {
        let removed = Array(Set(rows)).sorted()
        if let first = removed.first { try checkRow(first) }
        if let last = removed.last { try checkRow(last) }
        guard !removed.isEmpty else { return }
        // As in `change`: the rows held once, so they close up in place.
        let borrowing = letGoOfBorrowingColumns()
        var newStore = store
        store = ValueStore(rows: [], rowsAreElements: false)
        newStore.remove(removed)
        store = newStore
        count = newStore.count
        for path in Array(columns.keys) {
            guard var column = columns.removeValue(forKey: path) else { continue }
            if borrowing.contains(path) || !column.remove(removed) {
                column = newStore.column(path, rows: 0..<newStore.count)
            }
            columns[path] = column
        }
    }

    private func checkReplacement(_ rows: [Int], _ replacements: Int) throws(ColumnBatchChangeError) {
        guard rows.count == replacements else {
            throw ColumnBatchChangeError(description: "\(rows.count) rows to replace but \(replacements) replacements")
        }
        for row in rows { try checkRow(row) }
    }

    private func checkRow(_ row: Int) throws(ColumnBatchChangeError) {
        guard row >= 0 && row < count else {
            throw ColumnBatchChangeError(description: "row \(row) is not in the batch of \(count) rows")
        }
    }

    private func itemStore<Item: KeyValueCoding>(of _: Item.Type) throws(ColumnBatchChangeError) -> ItemStore<Item> {
        guard let items = store as? ItemStore<Item> else {
            throw ColumnBatchChangeError(
                description: "the batch holds rows of another type than \(Item.self); build a batch for them")
        }
        return items
    }

    private func valueStore() throws(ColumnBatchChangeError) -> ValueStore {
        guard let values = store as? ValueStore else {
            throw ColumnBatchChangeError(
                description: "the batch holds the host's objects; append or replace objects of their type")
        }
        return values
    }

    /// Runs `mutate` on the rows (appending after the last, or replacing the rows `replaced`,
    /// ascending and distinct), then brings each column up to date from the changed rows.
    ///
    /// The batch lets go of the rows, and of the columns that read strings where the rows hold
    /// them, before `mutate` runs, so the rows are held once and change in place: otherwise the
    /// first change of a batch of a million items would copy them all for one row. (Rows the
    /// caller still holds are copied once, on the first change.)
    private mutating func change(
        replacing replaced: [Int]? = nil, _ mutate: () -> Void, store newStore: () -> any RowStore
    ) {
        let start = count
        let borrowing = letGoOfBorrowingColumns()
        store = ValueStore(rows: [], rowsAreElements: false)
        mutate()
        let rows = newStore()
        store = rows
        count = rows.count
        for path in Array(columns.keys) {
            guard var column = columns.removeValue(forKey: path) else { continue }
            let updated: Bool
            if borrowing.contains(path) {
                updated = false
            } else if let replaced {
                updated = replaced.allSatisfy { row in
                    column.replace(row: row, with: rows.column(path, rows: row..<(row + 1)))
                }
            } else {
                updated = column.append(rows.column(path, rows: start..<rows.count), count: rows.count - start)
            }
            columns[path] = updated ? column : rows.column(path, rows: 0..<rows.count)
        }
    }

    /// Replaces the columns that read strings where the rows hold them (and so share the rows'
    /// storage) with nothing, so that the rows are held once; returns their key paths, whose
    /// columns are read again after the change.
    private mutating func letGoOfBorrowingColumns() -> Set<[KeyComponent]> {
        let borrowing = Set(
            columns.compactMap { path, column in
                if case .borrowedStrings = column { return path } else { return nil }
            })
        for path in borrowing { columns[path] = .unavailable }
        return borrowing
    }
}
