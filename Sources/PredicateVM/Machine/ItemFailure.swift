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
