import PredicateFileProvider

/// One rung of the ladder: a rule, the shape of what it runs on, and the same test written by hand
/// for the native engines, for Foundation's `#Predicate`, and as an ordinary Swift developer would.
struct Workload: Sendable {
    /// What `SELF` is.
    enum Shape: Sendable {
        /// One item per evaluation.
        case item
        /// An activation context per item `i`, selecting items `i ..< i + 1 + i % 3` (1–3 items,
        /// overlapping windows), as a context-menu action sees them.
        case smallSelections(Quantifier)
        /// One activation context selecting every item: the very large selection a sync engine
        /// sees when a user selects a whole folder tree. The answer is a single Boolean; the cost
        /// is the `SUBQUERY` over all items.
        case oneSelection(Quantifier)
    }

    /// How an activation rule turns its `SUBQUERY` count into an answer.
    enum Quantifier: Sendable {
        /// `SUBQUERY(…).@count > 0`.
        case any
        /// `SUBQUERY(…).@count == fileproviderItems.@count`.
        case all

        func holds(matching: Int, of count: Int) -> Bool { self == .any ? matching > 0 : matching == count }
    }

    let name: String
    let rule: String
    let shape: Shape
    /// The condition on one item (for activation rules, the `SUBQUERY`'s), over the array of structs.
    let row: @Sendable (UnsafePointer<FileProviderItem>) -> Bool
    /// The same condition over the columns: writes one byte (0 or 1) per item for items `0 ..< n`.
    let columns: @Sendable (ItemColumns, _ n: Int, _ mask: UnsafeMutablePointer<UInt8>) -> Void
    let foundation: FoundationRule
    /// The same condition as an ordinary Swift developer writes it with Foundation, for the
    /// `idiomatic` engine: the baseline a user of the library would otherwise have.
    let idiomatic: IdiomaticRule
}

/// A rule as an ordinary Swift developer writes it with Foundation (`lowercased()`,
/// `range(of:options:)`, `NSRegularExpression`, a `Set` of wanted values), without the library's
/// string kernels: what the engines are worth to someone who would otherwise write this.
enum IdiomaticRule: Sendable {
    /// The condition on one item (for activation rules, the `SUBQUERY`'s), read in place; the
    /// runner applies an activation rule's quantifier with `contains(where:)` or `allSatisfy`.
    case item(@Sendable (UnsafePointer<FileProviderItem>) -> Bool)
    /// A short reason, shown in the table in place of a figure.
    case unsupported(String)
}

/// The number of items activation context `index` selects (1–3): see ``Workload/Shape/smallSelections(_:)``.
func smallSelectionLength(_ index: Int) -> Int { 1 + index % 3 }
