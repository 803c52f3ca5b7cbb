import PredicateSemantics

extension BatchResult {
    /// The rows of a batch that failed, each with its error, in ascending row order.
    ///
    /// Most failing rows of one evaluation fail alike (a string where a rule compares numbers),
    /// so each row is stored as its number and the index of its error among the ones kept:
    /// 12 bytes a failing row instead of a copy of the error (64 bytes and its reference counts)
    /// when a kernel's table of errors gave it.
    /// A batch where a few percent of a million rows fail then allocates a few hundred
    /// kilobytes, not megabytes the kernel must clear page by page on every evaluation.
    public struct RowErrors: RandomAccessCollection, Sendable {
        private var rows: [Int] = []
        private var errorIndices: [UInt32] = []
        private var kept: [EvaluationError] = []

        /// No failures.
        init() {}

        /// The first position.
        public var startIndex: Int { 0 }
        /// One past the last position.
        public var endIndex: Int { rows.count }

        /// The failure at `position`.
        public subscript(position: Int) -> RowError {
            RowError(row: rows[position], error: kept[Int(errorIndices[position])])
        }

        /// The table of errors (a kernel's, one per distinct value) that the last failure
        /// recorded by ``append(row:errorAt:of:)`` came from, and where each of its entries is
        /// among ``kept`` (`UInt32.max`: not yet kept). Holding the table keeps its
        /// storage, hence its address, its own.
        private var lastTable: [EvaluationError] = []
        private var keptFromTable: [UInt32] = []

        /// The most entries of a table whose errors are kept once each.
        static let largestIndexedTable = 4_096

        /// Records that `row` failed with `error`.
        mutating func append(row: Int, error: consuming EvaluationError) {
            errorIndices.append(UInt32(truncatingIfNeeded: kept.count))
            kept.append(error)
            rows.append(row)
        }

        /// Records that `row` failed with `table[position]`; each entry of the table that
        /// failures come from in turn is kept once, and copied only then.
        mutating func append(row: Int, errorAt position: Int, of table: [EvaluationError]) {
            // A large table (many distinct values, each its own error): copied per row, as
            // ``append(row:error:)`` does, rather than an index as large as the table.
            guard table.count <= RowErrors.largestIndexedTable else { return append(row: row, error: table[position]) }
            let sameTable = lastTable.withUnsafeBufferPointer { last in
                table.withUnsafeBufferPointer { $0.baseAddress == last.baseAddress }
            }
            if !sameTable || keptFromTable.count != table.count {
                lastTable = table
                keptFromTable = [UInt32](repeating: .max, count: table.count)
            }
            if keptFromTable[position] == .max {
                keptFromTable[position] = UInt32(truncatingIfNeeded: kept.count)
                kept.append(table[position])
            }
            errorIndices.append(keptFromTable[position])
            rows.append(row)
        }

        /// Forgets the last failure recorded for `row`, if any.
        mutating func removeLast(of row: Int) {
            guard let position = rows.lastIndex(of: row) else { return }
            rows.remove(at: position)
            errorIndices.remove(at: position)
        }

        /// Appends `other`'s failures after these.
        mutating func append(contentsOf other: RowErrors) {
            let offset = UInt32(truncatingIfNeeded: kept.count)
            rows += other.rows
            errorIndices += other.errorIndices.lazy.map { $0 &+ offset }
            kept += other.kept
        }

        /// Room for `count` failures in all.
        mutating func reserveCapacity(_ count: Int) {
            rows.reserveCapacity(count)
            errorIndices.reserveCapacity(count)
        }

        /// Puts the failures in ascending row order (stable: one row's failures keep their order).
        mutating func sortByRow() {
            guard !rows.indices.dropFirst().allSatisfy({ rows[$0 - 1] <= rows[$0] }) else { return }
            let order = rows.indices.sorted { (rows[$0], $0) < (rows[$1], $1) }
            rows = order.map { rows[$0] }
            errorIndices = order.map { errorIndices[$0] }
        }
    }
}
