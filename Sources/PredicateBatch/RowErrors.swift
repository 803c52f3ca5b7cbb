import PredicateSemantics

extension BatchResult {
    /// The rows of a batch that failed, each with its error, in ascending row order.
    ///
    /// Most failing rows of one evaluation fail alike (a string where a rule compares numbers):
    /// a failure whose error comes from a kernel's table of errors (one per distinct value) is
    /// kept as its row and the index of that entry, kept once, the first time a row fails with
    /// it (see `FailureList`). A batch where a few percent of a million rows fail then
    /// allocates a few hundred kilobytes, not megabytes the kernel must clear page by page on
    /// every evaluation.
    public struct RowErrors: RandomAccessCollection, Sendable {
        private var list = FailureList()

        /// No failures.
        init() {}

        /// The first position.
        public var startIndex: Int { 0 }
        /// One past the last position.
        public var endIndex: Int { list.count }

        /// The failure at `position`.
        public subscript(position: Int) -> RowError {
            RowError(row: list.positions[position], error: list.error(at: position))
        }

        /// The table of errors (a kernel's, one per distinct value) that the last failure
        /// recorded by ``append(row:errorAt:of:)`` came from, and where each of its entries is
        /// kept (`UInt32.max`: not yet). Holding the table keeps its storage, hence its
        /// address, its own.
        private var lastTable: [EvaluationError] = []
        private var keptFromTable: [UInt32] = []

        /// The most entries of a table whose errors are kept once each.
        static let largestIndexedTable = 4_096

        /// Records that `row` failed with `error`.
        mutating func append(row: Int, error: consuming EvaluationError) { list.append(row, error: error) }

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
                keptFromTable[position] = list.append(row, error: table[position])
            } else {
                list.append(row, keptAt: keptFromTable[position])
            }
        }

        /// Forgets the last failure recorded for `row`, if any.
        mutating func removeLast(of row: Int) { list.removeLast(of: row) }

        /// Appends `other`'s failures after these.
        mutating func append(contentsOf other: RowErrors) { list.append(contentsOf: other.list) }

        /// Room for `count` failures in all.
        mutating func reserveCapacity(_ count: Int) { list.reserveCapacity(count) }

        /// Puts the failures in ascending row order (stable: one row's failures keep their order).
        mutating func sortByRow() { list.sortByPosition() }
    }
}
