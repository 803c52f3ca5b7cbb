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
/// numbers: `userInfo.rank >= 3` on `"high"`), so a failure that repeats the error before is
/// kept as the item's index and the index of that error: 12 bytes instead of a copy of the
/// error (64 bytes and a reference count).
public struct ItemFailures: RandomAccessCollection, Sendable {
    private var list = FailureList()

    /// No failures.
    public init() {}

    /// The first position.
    public var startIndex: Int { 0 }
    /// One past the last position.
    public var endIndex: Int { list.count }

    /// The failure at `position`.
    public subscript(position: Int) -> ItemFailure {
        ItemFailure(index: list.positions[position], error: list.error(at: position))
    }

    /// Records that item `index` failed with `error`; returns where the error is kept, for
    /// ``append(index:keptAt:)``.
    @discardableResult
    mutating func append(index: Int, error: consuming EvaluationError) -> UInt32 {
        list.append(index, error: error)
    }

    /// Records that item `index` failed with the error kept at `position` (as
    /// ``append(index:error:)`` returned it).
    mutating func append(index: Int, keptAt position: UInt32) { list.append(index, keptAt: position) }

    /// These failures and `other`'s, each list in the order of its items, as one in that order.
    func merged(with other: ItemFailures) -> ItemFailures {
        var result = ItemFailures()
        result.list = list.merged(with: other.list)
        return result
    }
}
