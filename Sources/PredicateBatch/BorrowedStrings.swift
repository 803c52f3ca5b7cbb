import PredicateValue

/// A string field the items store in place (``StoredString``: file names), read where it lies
/// when a comparison runs instead of copied into a column: building it costs nothing, and each
/// string is borrowed, never retained. Only mostly distinct strings are kept this way; a field
/// of few distinct values is coded instead (see ``ColumnBuilder``), so its comparisons are
/// decided once per value.
struct BorrowedStrings: Sendable {
    let rows: any ItemRows
    let stored: StoredString

    /// Row `row`'s value, as the general semantics takes it.
    func value(at row: Int) -> Value {
        rows.withBase { base, stride in stored.value(in: base + row &* stride) }
    }
}

/// The items of a batch, whose addresses are valid only inside ``withBase(_:)``.
protocol ItemRows: Sendable {
    /// `body` with the address of the first item and the distance between items.
    func withBase<Result>(_ body: (UnsafeRawPointer, Int) -> Result) -> Result
}

/// The items of a ``ColumnBatch`` built from the host's objects.
struct HostItemRows<Item: KeyValueCoding>: ItemRows {
    let items: ArraySlice<Item>

    func withBase<Result>(_ body: (UnsafeRawPointer, Int) -> Result) -> Result {
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                // An empty slice has no address, and no row is ever read from it.
                var nothing = 0
                return withUnsafePointer(to: &nothing) { body(UnsafeRawPointer($0), MemoryLayout<Item>.stride) }
            }
            return body(UnsafeRawPointer(base), MemoryLayout<Item>.stride)
        }
    }
}

/// Where a string kernel reads row `row`'s string: a column's array, or the items themselves.
protocol StringRows {
    /// `body` of row `row`'s string, borrowed; `whenNil()` for a nil row.
    func withString<Result>(_ row: Int, whenNil: () -> Result, _ body: (String) -> Result) -> Result
    /// Asks for row `row`'s string to be brought into the cache (see ``StoredString/prefetch(in:)``).
    func prefetch(_ row: Int)
}

/// The strings of a ``Column/strings(values:nils:)`` column, through plain pointers.
struct ColumnStringRows: StringRows {
    let values: UnsafeBufferPointer<String>
    let nils: UnsafeBufferPointer<UInt8>

    @inline(__always)
    func withString<Result>(_ row: Int, whenNil: () -> Result, _ body: (String) -> Result) -> Result {
        nils[row] != 0 ? whenNil() : body(values[row])
    }

    @inline(__always)
    func prefetch(_ row: Int) {
        StoredString.prefetch(values[row])
    }
}

/// The strings of ``BorrowedStrings``, at their addresses in the items.
struct InPlaceStringRows: StringRows {
    let base: UnsafeRawPointer
    let stride: Int
    let stored: StoredString

    @inline(__always)
    func withString<Result>(_ row: Int, whenNil: () -> Result, _ body: (String) -> Result) -> Result {
        stored.withString(in: base + row &* stride, whenNil: whenNil, body)
    }

    @inline(__always)
    func prefetch(_ row: Int) {
        stored.prefetch(in: base + row &* stride)
    }
}
