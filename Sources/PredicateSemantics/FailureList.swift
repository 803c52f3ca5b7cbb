/// The failures of many evaluations of one rule (the rows of a batch, the items of a buffer),
/// each a position and the index of its error among the errors kept: what
/// `BatchResult.RowErrors` and `ItemFailures` hold.
///
/// Most failures of one evaluation repeat an error (the same string where a rule compares
/// numbers), so an engine that knows it repeats one keeps it once and records 12 bytes a
/// failure instead of a copy of the error (64 bytes and its reference counts): over a million
/// rows of which a few percent fail, megabytes less to allocate, copy as the list grows, and
/// fault in on every evaluation.
package struct FailureList: Sendable {
    /// The positions, in the order recorded.
    package private(set) var positions: [Int] = []
    private var errorIndices: [UInt32] = []
    private var kept: [EvaluationError] = []

    /// No failures.
    package init() {}

    /// How many failures.
    package var count: Int { positions.count }

    /// The error of failure `index`.
    package func error(at index: Int) -> EvaluationError { kept[Int(errorIndices[index])] }

    /// Records that `position` failed with `error`; returns where the error is kept, for
    /// ``append(_:keptAt:)``.
    @discardableResult
    package mutating func append(_ position: Int, error: consuming EvaluationError) -> UInt32 {
        let index = UInt32(truncatingIfNeeded: kept.count)
        kept.append(error)
        errorIndices.append(index)
        positions.append(position)
        return index
    }

    /// Records that `position` failed with the error kept at `index` (as ``append(_:error:)``
    /// returned it).
    package mutating func append(_ position: Int, keptAt index: UInt32) {
        errorIndices.append(index)
        positions.append(position)
    }

    /// Forgets the last failure recorded at `position`, if any.
    package mutating func removeLast(of position: Int) {
        guard let index = positions.lastIndex(of: position) else { return }
        positions.remove(at: index)
        errorIndices.remove(at: index)
    }

    /// Room for `count` failures in all.
    package mutating func reserveCapacity(_ count: Int) {
        positions.reserveCapacity(count)
        errorIndices.reserveCapacity(count)
    }

    /// Appends `other`'s failures after these.
    package mutating func append(contentsOf other: FailureList) {
        let offset = UInt32(truncatingIfNeeded: kept.count)
        positions += other.positions
        errorIndices += other.errorIndices.lazy.map { $0 &+ offset }
        kept += other.kept
    }

    /// Puts the failures in ascending order of position (stable: one position's failures keep
    /// their order).
    package mutating func sortByPosition() {
        guard !positions.indices.dropFirst().allSatisfy({ positions[$0 - 1] <= positions[$0] }) else { return }
        let order = positions.indices.sorted { (positions[$0], $0) < (positions[$1], $1) }
        positions = order.map { positions[$0] }
        errorIndices = order.map { errorIndices[$0] }
    }

    /// These failures and `other`'s, each in ascending order of position, as one in that order.
    package func merged(with other: FailureList) -> FailureList {
        guard other.count > 0 else { return self }
        guard count > 0 else { return other }
        var result = FailureList()
        result.reserveCapacity(count + other.count)
        result.kept = kept + other.kept
        let offset = UInt32(truncatingIfNeeded: kept.count)
        var (mine, theirs) = (0, 0)
        while mine < count || theirs < other.count {
            if theirs == other.count || (mine < count && positions[mine] < other.positions[theirs]) {
                result.positions.append(positions[mine])
                result.errorIndices.append(errorIndices[mine])
                mine += 1
            } else {
                result.positions.append(other.positions[theirs])
                result.errorIndices.append(other.errorIndices[theirs] &+ offset)
                theirs += 1
            }
        }
        return result
    }
}
