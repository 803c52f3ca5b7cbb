/// Rows of one chunk still in question: either the whole chunk (`rows` is `nil`: `start`,
/// `start + 1`, …) or the ascending row numbers in `rows`.
struct Selection {
    var rows: UnsafeMutablePointer<Int32>?
    var start: Int
    var count: Int

    /// Row `index` of the selection.
    @inline(__always)
    func row(_ index: Int) -> Int {
        if let rows { return Int(rows[index]) }
        return start + index
    }

    /// Writes the rows for which `keep` holds to `output`, without a branch per row in the dense
    /// case, and returns how many it wrote.
    @inline(__always)
    func filter(into output: UnsafeMutablePointer<Int32>, _ keep: (Int) -> Bool) -> Int {
        var kept = 0
        if let rows {
            for index in 0..<count {
                let row = rows[index]
                output[kept] = row
                kept &+= keep(Int(row)) ? 1 : 0
            }
        } else {
            for row in start..<(start + count) {
                output[kept] = Int32(truncatingIfNeeded: row)
                kept &+= keep(row) ? 1 : 0
            }
        }
        return kept
    }
}

/// Selection buffers of one chunk's size, reused from chunk to chunk: a plan needs a few at once
/// (one per level of nesting), never one per row.
struct SelectionPool {
    let capacity: Int
    private var free: [UnsafeMutablePointer<Int32>] = []
    private var all: [UnsafeMutablePointer<Int32>] = []

    init(capacity: Int) { self.capacity = capacity }

    mutating func take() -> UnsafeMutablePointer<Int32> {
        if let buffer = free.popLast() { return buffer }
        let buffer = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        all.append(buffer)
        return buffer
    }

    mutating func give(_ selection: Selection) {
        if let rows = selection.rows { free.append(rows) }
    }

    func deallocate() {
        for buffer in all { buffer.deallocate() }
    }
}
