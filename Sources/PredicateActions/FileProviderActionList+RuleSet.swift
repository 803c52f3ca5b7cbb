import PredicateFileProvider
import PredicateSyntax
import PredicateVM
import PredicateValue

extension FileProviderActionList {
    /// Every action's rule in one ``RuleSet`` (rule `r` is action `r`; an action without a rule is
    /// `FALSEPREDICATE`), prepared against the activation context: one pass answers which
    /// actions a selection enables.
    ///
    /// - Throws: ``CompileError`` when the rules together exceed what one program can address.
    public func makeRuleSet() throws(CompileError) -> RuleSet {
        try RuleSet(
            rules: actions.map { $0.activationRule ?? "FALSEPREDICATE" }, selfType: Self.activationContextType)
    }

    /// The key paths `action`'s rule reads from the activation context (`fileproviderItems`,
    /// `fileproviderItems.isUploaded`, …); empty when it has no rule or does not parse.
    public static func footprint(of action: FileProviderAction) -> [String] {
        guard let rule = action.activationRule, let parsed = try? PredicateParser.parsePredicate(rule) else {
            return []
        }
        return Footprint.keyPaths(of: parsed.predicate)
    }

    /// The enabled actions for `selectedItems` as a bit mask (bit `r` for action `r`), with the
    /// problems that hid actions, from one pass of `evaluator` (made by ``makeRuleSet()``).
    public func evaluate(selectedItems: [FileProviderItem], with evaluator: inout RuleSet.Evaluator) -> RuleSetAnswer {
        evaluator.evaluate(on: FileProviderContext.activation(selectedItems: selectedItems))
    }
}
