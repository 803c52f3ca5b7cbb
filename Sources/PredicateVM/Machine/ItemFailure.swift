import PredicateSemantics

/// An item whose evaluation failed in ``VirtualMachine/evaluate(items:variables:into:)``: its
/// index among the items and the error, as ``VirtualMachine/evaluate(item:variables:)`` throws it.
public struct ItemFailure: Error, Hashable, Sendable {
    /// The item's index in the buffer evaluated.
    public let index: Int
    /// Why its evaluation failed.
    public let error: EvaluationError

    /// Creates a failure.
    public init(index: Int, error: EvaluationError) {
        self.index = index
        self.error = error
    }
}

/// The items of one ``VirtualMachine/evaluate(items:variables:into:)`` that failed, each with
/// its error, in the order of the items.
///
/// Most failing items of one evaluation fail alike (the same string where a rule compares
/// numbers: `userInfo.rank >= 3` on `"high"`), so each is stored as its index and the index of
/// its error among the ones kept: 12 bytes a failing item instead of a copy of the error (64
/// bytes and a reference count) when it repeats the error before. Over a few hundred thousand
/// items of which a third fail, that is megabytes less to allocate, copy as the list grows and
/// fault in for every evaluation.
public struct ItemFailures: RandomAccessCollection, Sendable {
    private var items: [Int] = []
    private var errorIndices: [UInt32] = []
    private var kept: [EvaluationError] = []

    /// No failures.
    public init() {}

    /// The first position.
    public var startIndex: Int { 0 }
    /// One past the last position.
    public var endIndex: Int { items.count }

    /// The failure at `position`.
    public subscript(position: Int) -> ItemFailure {
        ItemFailure(index: items[position], error: kept[Int(errorIndices[position])])
    }

    /// Records that item `index` failed with `error`; returns where the error is kept, for
    /// ``append(index:keptAt:)``.
    @discardableResult
    mutating func append(index: Int, error: consuming EvaluationError) -> UInt32 {
        let position = UInt32(truncatingIfNeeded: kept.count)
        kept.append(error)
        errorIndices.append(position)
        items.append(index)
        return position
    }

    /// Records that item `index` failed with the error kept at `position` (as
    /// ``append(index:error:)`` returned it).
    mutating func append(index: Int, keptAt position: UInt32) {
        errorIndices.append(position)
        items.append(index)
    }

    /// These failures and `other`'s, each list in the order of its items, as one in that order.
    func merged(with other: ItemFailures) -> ItemFailures {
        guard !other.isEmpty else { return self }
        guard !isEmpty else { return other }
        var result = ItemFailures()
        result.items.reserveCapacity(count + other.count)
        result.errorIndices.reserveCapacity(count + other.count)
        result.kept = kept + other.kept
        let offset = UInt32(truncatingIfNeeded: kept.count)
        var (mine, theirs) = (0, 0)
        while mine < count || theirs < other.count {
            if theirs == other.count || (mine < count && items[mine] < other.items[theirs]) {
                result.items.append(items[mine])
                result.errorIndices.append(errorIndices[mine])
                mine += 1
            } else {
                result.items.append(other.items[theirs])
                result.errorIndices.append(other.errorIndices[theirs] &+ offset)
                theirs += 1
            }
        }
        return result
    }
}
