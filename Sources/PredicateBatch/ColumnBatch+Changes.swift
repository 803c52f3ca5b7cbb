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
        store.items.append(contentsOf: items)
        appended(store)
    }

    /// Appends `rows` after the last row of a batch built from values.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the batch holds the host's objects.
    public mutating func append(contentsOf rows: [Value]) throws(ColumnBatchChangeError) {
        var store = try valueStore()
        store.rows.append(contentsOf: rows)
        appended(store)
    }

    /// Replaces row `row` with `item`, of the type the batch was built from.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the row does not exist or the batch holds rows
    ///   of another type.
    public mutating func replaceRow<Item: KeyValueCoding>(_ row: Int, with item: Item) throws(ColumnBatchChangeError) {
        try checkRow(row)
        var store = try itemStore(of: Item.self)
        store.items[store.items.startIndex + row] = item
        replaced(row, store)
    }

    /// Replaces row `row` of a batch built from values with `value`.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when the row does not exist or the batch holds the
    ///   host's objects.
    public mutating func replaceRow(_ row: Int, with value: Value) throws(ColumnBatchChangeError) {
        try checkRow(row)
        var store = try valueStore()
        store.rows[row] = value
        replaced(row, store)
    }

    /// Removes the rows `rows` (in any order; repeats count once); the rows after each move up.
    ///
    /// - Throws: ``ColumnBatchChangeError`` when a row does not exist; nothing is removed then.
    public mutating func removeRows(_ rows: some Sequence<Int>) throws(ColumnBatchChangeError) {
        let removed = Array(Set(rows)).sorted()
        if let first = removed.first { try checkRow(first) }
        if let last = removed.last { try checkRow(last) }
        guard !removed.isEmpty else { return }
        let newStore = store.removing(removed)
        var newColumns: [[KeyComponent]: Column] = [:]
        for (path, column) in columns {
            newColumns[path] = column.removing(removed) ?? newStore.column(path, rows: 0..<newStore.count)
        }
        store = newStore
        count = newStore.count
        columns = newColumns
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

    /// `newStore` is the old rows followed by new ones: each column gains the new rows' column.
    private mutating func appended(_ newStore: any RowStore) {
        let start = count
        for (path, column) in columns {
            let tail = newStore.column(path, rows: start..<newStore.count)
            columns[path] = column.appending(tail) ?? newStore.column(path, rows: 0..<newStore.count)
        }
        store = newStore
        count = newStore.count
    }

    /// `newStore` differs from the old rows in row `row` only.
    private mutating func replaced(_ row: Int, _ newStore: any RowStore) {
        for (path, column) in columns {
            let single = newStore.column(path, rows: row..<(row + 1))
            columns[path] = column.replacing(row: row, with: single) ?? newStore.column(path, rows: 0..<newStore.count)
        }
        store = newStore
    }
}
