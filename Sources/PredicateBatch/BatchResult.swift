import PredicateSemantics

/// The outcome of evaluating a predicate over a batch: which rows matched, and which failed.
public struct BatchResult: Sendable {
    /// A row whose evaluation raised an error (it does not match; an activation rule that fails
    /// hides its action).
    public struct RowError: Sendable {
        /// The row number.
        public let row: Int
        /// The error, as the scalar VM and the interpreter report it.
        public let error: EvaluationError
    }

    /// The number of rows evaluated.
    public let count: Int
    /// One bit per row, row `r` at bit `r % 64` of word `r / 64`.
    public let bitmap: [UInt64]
    /// Rows that failed, by row number.
    public let errors: RowErrors
    /// Rows whose answer the batch engine could not vouch for (a step or pattern budget ran
    /// out), for a caller that evaluates them again on the scalar VM; empty unless the run was
    /// asked to report them (see ``RowBudget``).
    var suspects: [Int] = []
    /// The steps charged to all rows together.
    var cost = 0
    /// Whether a shared budget ran out, so the run stopped early and its answers are void.
    var exhausted = false

    /// Whether row `row` matched.
    public func matches(_ row: Int) -> Bool {
        guard row >= 0, row < count else { return false }
        return bitmap[row >> 6] & (1 << UInt64(row & 63)) != 0
    }

    /// How many rows matched.
    public var matchCount: Int { bitmap.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The matching rows, ascending.
    public var matchingRows: [Int] {
        var rows: [Int] = []
        rows.reserveCapacity(matchCount)
        for (index, word) in bitmap.enumerated() {
            var bits = word
            while bits != 0 {
                rows.append(index << 6 | bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return rows
    }
}
