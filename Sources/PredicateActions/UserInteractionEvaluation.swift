import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// An operation the system asks a File Provider extension's `NSFileProviderUserInteractions`
/// about (SPEC §5.4): what is done, to which items, and where.
public struct UserInteractionOperation: Sendable {
    /// `Move`, `Trash`, ….
    public var action: UserInteractionAction
    /// The items acted on; each top-level rule is evaluated once per item, as `sourceItem`.
    /// Empty for actions without a source item (`MoveIn`, `CopyIn`): the rule is then
    /// evaluated once, without `sourceItem`.
    public var sourceItems: [FileProviderItem]
    /// The destination, for actions that have one.
    public var destinationItem: FileProviderItem?
    /// `sourceItemsCount` in top-level rules; `sourceItems.count` when `nil`.
    public var sourceItemsCount: Int?
    /// The domain's `userInfo`.
    public var domainUserInfo: [String: Value]

    /// Creates an operation.
    public init(
        action: UserInteractionAction, sourceItems: [FileProviderItem], destinationItem: FileProviderItem? = nil,
        sourceItemsCount: Int? = nil, domainUserInfo: [String: Value] = [:]
    ) {
        self.action = action
        self.sourceItems = sourceItems
        self.destinationItem = destinationItem
        self.sourceItemsCount = sourceItemsCount
        self.domainUserInfo = domainUserInfo
    }
}

/// What one user-interaction entry said about an operation.
public struct UserInteractionOutcome: Sendable {
    /// The entry (its position says where it sits: `1`, `1.1`, …).
    public let interaction: FileProviderUserInteraction
    /// Whether the rule was evaluated: a sub-interaction is only when its parent matched an item.
    public let evaluated: Bool
    /// How many source items the rule matched (0 or 1 when there are no source items).
    public let matchedItems: Int
    /// How many times the rule was evaluated (one per source item the entry was asked about).
    public let evaluations: Int
    /// Why the rule could not match some items: it has none, does not parse, or failed to evaluate.
    public let problems: [Diagnostic]

    /// Whether the entry's alert is shown: its rule matched at least one item.
    public var matched: Bool { matchedItems > 0 }
}

extension FileProviderUserInteraction {
    /// Evaluates `interactions` (top-level entries, with their sub-interactions) for `operation`,
    /// as SPEC §5.4 describes: each top-level rule once per source item with `sourceItemsCount`
    /// the operation's count; each sub-interaction only when its parent matched, over the items
    /// the parent matched, with `sourceItemsCount` their number. An error makes the rule false
    /// for that item and is reported.
    ///
    /// - Returns: One outcome per entry, depth first (the order of ``flattened``).
    public static func outcomes(
        of interactions: [FileProviderUserInteraction], for operation: UserInteractionOperation
    ) -> [UserInteractionOutcome] {
        let items: [FileProviderItem?] = operation.sourceItems.isEmpty ? [nil] : operation.sourceItems
        let count = operation.sourceItemsCount ?? operation.sourceItems.count
        var outcomes: [UserInteractionOutcome] = []
        for interaction in interactions {
            evaluate(interaction, items: items, count: count, operation, into: &outcomes)
        }
        return outcomes
    }

    private static func evaluate(
        _ interaction: FileProviderUserInteraction, items: [FileProviderItem?], count: Int,
        _ operation: UserInteractionOperation, into outcomes: inout [UserInteractionOutcome]
    ) {
        var matched: [FileProviderItem?] = []
        var problems: [Diagnostic] = []
        if let rule = interaction.activationRule {
            do {
                let parsed = try PredicateParser.parsePredicate(rule).predicate
                let program = try Compiler.compile(
                    Binder.bind(parsed, selfType: RuleChecker.fileProviderUserInteraction), source: rule)
                for item in items {
                    let context = FileProviderContext.userInteraction(
                        action: operation.action, sourceItem: item, destinationItem: operation.destinationItem,
                        sourceItemsCount: count, domainUserInfo: operation.domainUserInfo)
                    do throws(EvaluationError) {
                        if try program.evaluate(on: context) { matched.append(item) }
                    } catch {
                        problems.append(error.diagnostic(source: rule))
                    }
                }
            } catch let diagnostic as Diagnostic {
                problems.append(diagnostic)
            } catch {
                problems.append(
                    Diagnostic(
                        .evaluationFailed("the rule does not compile: \(error)"),
                        range: SourceRange(0, rule.utf8.count), source: rule))
            }
        } else {
            problems.append(
                Diagnostic(
                    .ruleCheck("the interaction has no ActivationRule, so it never matches"), severity: .warning,
                    range: SourceRange(0, 0), source: ""))
        }
        outcomes.append(
            UserInteractionOutcome(
                interaction: interaction, evaluated: true, matchedItems: matched.count, evaluations: items.count,
                problems: problems))
        for child in interaction.subInteractions {
            if matched.isEmpty {
                skip(child, into: &outcomes)
            } else {
                evaluate(child, items: matched, count: matched.count, operation, into: &outcomes)
            }
        }
    }

    private static func skip(_ interaction: FileProviderUserInteraction, into outcomes: inout [UserInteractionOutcome])
    {
        outcomes.append(
            UserInteractionOutcome(
                interaction: interaction, evaluated: false, matchedItems: 0, evaluations: 0, problems: []))
        for child in interaction.subInteractions { skip(child, into: &outcomes) }
    }
}
