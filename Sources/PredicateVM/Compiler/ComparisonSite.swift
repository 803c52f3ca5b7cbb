import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// What a `TEST`, `TEST_AND` or `TEST_OR` instruction compares: a key path read from `SELF` or
/// from a variable, against a constant, the commonest comparison in rules
/// (`isUploaded == NO`, `$i.userInfo.rank != nil`).
///
/// A site stands for the instructions `SELF_KEYPATH p` (or `LOAD_VAR v; KEYPATH p`),
/// `PUSH_CONST k` and `CMP op, options, quantifier`, and means exactly what they mean; the
/// compiler emits one where it would have emitted them.
public struct ComparisonSite: Hashable, Sendable {
    /// Where the key path starts.
    package enum Receiver: Hashable, Sendable {
        /// The evaluated object.
        case evaluatedObject
        /// Variable `v` of the program's variable table.
        case variable(UInt16)
    }

    /// Where the key path starts.
    package let receiver: Receiver
    /// The key path, an index into ``Program/keyPaths``.
    public let keyPath: UInt16
    /// The constant right operand, an index into ``Program/constants``.
    public let constant: UInt16
    /// The operator.
    public let op: ComparisonOperator
    /// The options.
    public let options: ComparisonOptions
    /// The quantifier.
    public let quantifier: Quantifier
    /// The source range of the key-path expression, where an error reading it is reported (the
    /// instruction's own range is the comparison's).
    public let keyPathRange: SourceRange

    /// Creates a site; ``Verifier`` checks its indices before a program runs.
    package init(
        receiver: Receiver, keyPath: UInt16, constant: UInt16, op: ComparisonOperator, options: ComparisonOptions,
        quantifier: Quantifier,
        keyPathRange: SourceRange
    ) {
        self.receiver = receiver
        self.keyPath = keyPath
        self.constant = constant
        self.op = op
        self.options = options
        self.quantifier = quantifier
        self.keyPathRange = keyPathRange
    }
}

/// The program's comparison sites with their constants prepared: built once per program, shared
/// by every machine and thread that runs it.
package final class PreparedComparisons: Sendable {
    /// One per site, in site order; `nil` for a site whose operands are out of range (the
    /// verifier refuses such programs before they run).
    public let sites: [PreparedComparison?]

    init(sites: [ComparisonSite], constants: [Value]) {
        self.sites = sites.map { site in
            guard Int(site.constant) < constants.count else { return nil }
            return PreparedComparison(
                op: site.op, options: site.options, quantifier: site.quantifier,
                constant: constants[Int(site.constant)])
        }
    }
}
