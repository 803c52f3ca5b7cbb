import PredicateVM

/// How a batch run bounds the work done for its rows, so that every answer is the scalar VM's,
/// budget errors included (issue 14).
///
/// The batch engine does not run the VM's instructions, so it cannot count the VM's steps; it
/// charges each row an upper bound instead (the plan's instructions, the elements comparisons
/// visit, the matching steps `LIKE` and `MATCHES` spend, the steps of clauses run on the VM).
/// A row whose charge passes ``EvaluationLimits/maximumSteps``, or whose pattern or clause ran
/// out of budget, is a *suspect*: its answer is left to the VM, which reports exactly what it
/// reports on its own (kind, message and source range) and stops the row where it would.
enum RowBudget: Sendable {
    /// Each row has the evaluation's budget; suspects are evaluated again with `program` on
    /// the scalar VM, which gives their answers.
    case rerun(Program)
    /// Each row has the evaluation's budget; suspects are listed in the result for the caller.
    case report
    /// All rows share `steps` (a `SUBQUERY`'s elements, one evaluation of the rule): once spent,
    /// the run stops and its result says so.
    case shared(Int)

    /// The steps all rows may spend together, `Int.max` unless shared.
    var sharedSteps: Int {
        if case .shared(let steps) = self { return steps }
        return .max
    }
}

extension Int {
    /// `self + other`, saturating at `Int.max` (charges are non-negative).
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
