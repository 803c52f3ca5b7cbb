import PredicateActions
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The most items `--items` may select: far more than a user selects in Finder, and few enough
/// that building them and evaluating a rule over them stays within eval's limits.
let maximumSelectionCount = 100_000

/// `predicate check` and `predicate actions`: File Provider rules before they ship.
extension Session {
    // MARK: actions

    mutating func actions(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.actions + "\n")
            return 0
        }
        guard arguments.operands.count == 1 else {
            let message =
                arguments.operands.isEmpty
                ? "missing Info.plist" : "expected one Info.plist, got \(arguments.operands.count)"
            throw UsageError(message: message, subcommand: .actions)
        }
        let itemsSource = arguments.options["--items"]
        let interactionSource = arguments.options["--interaction"]
        guard itemsSource != nil || interactionSource != nil else {
            throw UsageError(
                message: "missing --items FILE (a JSON array of item properties) or --interaction FILE",
                subcommand: .actions)
        }
        let standardInputUsers = [itemsSource, interactionSource, arguments.operands[0], arguments.options["--expect"]]
            .filter { $0 == "-" }
        if standardInputUsers.count > 1 {
            throw UsageError(message: "standard input ('-') can be read only once", subcommand: .actions)
        }
        let limits = try stepLimits(arguments, for: .actions)
        let json = arguments.has("--json")
        let path = arguments.operands[0]
        var list: FileProviderActionList?
        var interactions: [FileProviderUserInteraction] = []
        do {
            let bytes = path == "-" ? try readAll(from: &input) : try readFile(atPath: path)
            if itemsSource != nil { list = try actionList(bytes, path: path == "-" ? "<stdin>" : path) }
            if interactionSource != nil {
                interactions = try FileProviderUserInteraction.interactions(inPropertyListBytes: bytes)
                if interactions.isEmpty { throw ActionListError("no NSFileProviderUserInteractions under NSExtension") }
            }
        } catch {
            return inputError("\(path == "-" ? "<stdin>" : path): \(error)", json: json)
        }
        var actionOutcomes: [ActionOutcome] = []
        var interactionOutcomes: [UserInteractionOutcome] = []
        var items: [FileProviderItem] = []
        var expectation: ActionExpectation?
        do throws(CommandLineIOError) {
            if let list, let itemsSource {
                items = try selection(from: itemsSource)
                actionOutcomes = list.outcomes(selectedItems: items, limits: limits)
            }
            if let interactionSource {
                let operation = try self.operation(from: interactionSource)
                interactionOutcomes = FileProviderUserInteraction.outcomes(of: interactions, for: operation)
            }
            if let expectSource = arguments.options["--expect"] {
                let bytes = expectSource == "-" ? try readAll(from: &input) : try readFile(atPath: expectSource)
                expectation = try ActionExpectation(
                    json: bytes,
                    origin: expectSource == "-" ? "--expect (standard input)" : "--expect '\(expectSource)'")
            }
        } catch {
            return inputError(error.message, json: json)
        }
        let enabled = actionOutcomes.filter(\.isEnabled)
        let matched = interactionOutcomes.filter(\.matched)
        let differences = expectation?.differences(
            enabled: list == nil ? nil : enabled.map(\.action.identifier),
            matched: interactionSource == nil ? nil : matched.map(\.interaction.position))
        if json {
            var members: [(key: String, value: JSON)] = []
            if list != nil {
                members.append(("enabled", .array(enabled.map { .string($0.action.identifier) })))
                let explaining = arguments.has("--explain")
                members.append(
                    (
                        "actions",
                        .array(
                            actionOutcomes.map { outcome in
                                actionJSON(outcome, reason: explaining ? reason(outcome, items, limits) : nil)
                            })
                    ))
            }
            if interactionSource != nil {
                members.append(("interactions", .array(interactionOutcomes.map(interactionJSON))))
            }
            if let differences { members.append(("differences", .array(differences.map(JSON.string)))) }
            output.write(JSON.object(members).serialized + "\n")
        } else {
            let reasons = arguments.has("--explain")
            writeActionLines(
                actionOutcomes, shown: enabled.count, listed: list != nil, explainingFor: reasons ? items : nil,
                limits: limits)
            writeInteractionLines(interactionOutcomes, matched: matched.count, explain: reasons)
            if let differences {
                for difference in differences { output.write(colorizeOutput("unexpected: ", .red) + difference + "\n") }
                output.write(differences.isEmpty ? "as expected\n" : "\(differences.count) different from --expect\n")
            }
        }
        if let differences { return differences.isEmpty ? 0 : 1 }
        return enabled.isEmpty && matched.isEmpty ? 1 : 0
    }

    /// The actions of an Info.plist, even when some are incomplete: an action that has at least
    /// an identifier is kept (one without a rule is hidden), and each structural problem is a
    /// warning at its position; only a file with no usable action is an input error.
    private mutating func actionList(_ bytes: [UInt8], path: String) throws(ActionListError) -> FileProviderActionList {
        do throws(ActionListError) {
            return try FileProviderActionList(propertyListBytes: bytes)
        } catch {
            let check = InfoPlistCheck(propertyListBytes: bytes)
            let usable = check.actions.compactMap { action in
                action.identifier.map {
                    FileProviderAction(identifier: $0, name: action.name ?? "", activationRule: action.rule)
                }
            }
            guard !usable.isEmpty else { throw error }
            for finding in check.findings where finding.ruleFinding == nil {
                let located = CheckFinding(file: path, finding)
                errorOutput.write(
                    colorize("predicate: warning: ", .yellow) + "\(located.position): \(finding.message)"
                        + located.keyPathSuffix + "\n")
            }
            return FileProviderActionList(actions: usable)
        }
    }

    /// An input error: on standard error, and with `--json` also as `{"error": …}` on standard
    /// output, so that a script reading the JSON always gets a document.
    mutating func inputError(_ message: String, json: Bool) -> Int32 {
        errorOutput.write(colorize("predicate: error: ", .red) + message + "\n")
        if json { output.write(JSON.object([("error", .string(message))]).serialized + "\n") }
        return 2
    }

    /// `--max-steps N`: the evaluation step limit (the default is EvaluationLimits' own).
    func stepLimits(_ arguments: ParsedArguments, for subcommand: Subcommand) throws(UsageError) -> EvaluationLimits {
        var limits = EvaluationLimits()
        guard let text = arguments.options["--max-steps"] else { return limits }
        guard let steps = Int(text), steps > 0 else {
            throw UsageError(message: "--max-steps needs a positive integer, got '\(text)'", subcommand: subcommand)
        }
        limits.maximumSteps = steps
        return limits
    }

    /// Shown, hidden because the rule is false, or hidden because of an error (in red); with
    /// `explainingFor`, the deciding clause of each false rule and the caret under each error.
    private mutating func writeActionLines(
        _ outcomes: [ActionOutcome], shown: Int, listed: Bool, explainingFor items: [FileProviderItem]?,
        limits: EvaluationLimits
    ) {
        guard listed else { return }
        for outcome in outcomes {
            let label = "\(outcome.action.identifier) (\(outcome.action.name))"
            if outcome.isEnabled {
                output.write(colorizeOutput("shown ", .green) + "  \(label)\n")
                continue
            }
            guard let problem = outcome.problem else {
                output.write(colorizeOutput("hidden", .yellow) + "  \(label): the rule is false\n")
                if let items, let rule = outcome.action.activationRule,
                    let reason = HiddenActionReason(rule: rule, items: items, limits: limits)
                {
                    output.write("        false: \(reason.clause)\n")
                    for value in reason.values { output.write("          \(value)\n") }
                }
                continue
            }
            let message = Self.withStepsHint(problem.message)
            output.write(
                colorizeOutput("hidden", .red) + "  \(label): " + colorizeOutput("error: ", .red) + message + "\n")
            if items != nil, let rule = outcome.action.activationRule, !rule.isEmpty {
                let rendered = problem.rendered(colored: tool.colorOutput)
                for line in rendered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
                    output.write("        \(line)\n")
                }
            }
        }
        output.write("\(shown) of \(outcomes.count) \(outcomes.count == 1 ? "action" : "actions") shown\n")
    }

    /// The step limit's message names the option that raises it.
    static func withStepsHint(_ message: String) -> String {
        message.contains("steps, the limit") ? message + " (raise it with --max-steps)" : message
    }

    private mutating func writeInteractionLines(_ outcomes: [UserInteractionOutcome], matched: Int, explain: Bool) {
        guard !outcomes.isEmpty else { return }
        for outcome in outcomes {
            let interaction = outcome.interaction
            let label = "interaction \(interaction.position)" + (interaction.title.map { " (\($0))" } ?? "")
            guard outcome.evaluated else {
                output.write(colorizeOutput("skipped  \(label): its parent matched no item", .dim) + "\n")
                continue
            }
            let status = outcome.matched ? colorizeOutput("alert  ", .yellow) : colorizeOutput("no     ", .green)
            var line = "\(status)  \(label): matched \(outcome.matchedItems) of \(outcome.evaluations)"
            line += outcome.evaluations == 1 ? " evaluation" : " evaluations"
            if let problem = outcome.problems.first { line += ": " + colorizeOutput("error: ", .red) + problem.message }
            output.write(line + "\n")
            if explain, let problem = outcome.problems.first, outcome.interaction.activationRule != nil {
                let rendered = problem.rendered(colored: tool.colorOutput)
                for line in rendered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
                    output.write("         \(line)\n")
                }
            }
        }
        let count = outcomes.count
        output.write("\(matched) of \(count) \(count == 1 ? "interaction" : "interactions") matched\n")
    }

    /// The operation of `--interaction`: `{"action", "sourceItems"?, "destinationItem"?,
    /// "sourceItemsCount"?, "domainUserInfo"?}`.
    private mutating func operation(from source: String) throws(CommandLineIOError) -> UserInteractionOperation {
        let bytes = source == "-" ? try readAll(from: &input) : try readFile(atPath: source)
        let origin = source == "-" ? "--interaction (standard input)" : "--interaction '\(source)'"
        guard case .dictionary(let fields) = try value(ofJSON: bytes, from: origin, expecting: "object") else {
            throw CommandLineIOError("\(origin) must be a JSON object")
        }
        let known: Set<String> = ["action", "sourceItems", "destinationItem", "sourceItemsCount", "domainUserInfo"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw CommandLineIOError("\(origin): unknown field '\(unknown)' (expected \(known.sorted()))")
        }
        let names = UserInteractionAction.allCases.map(\.rawValue)
        guard case .string(let name)? = fields["action"], let action = UserInteractionAction(rawValue: name) else {
            throw CommandLineIOError("\(origin): \"action\" must be one of \(names.joined(separator: ", "))")
        }
        func item(_ value: Value, _ what: String) throws(CommandLineIOError) -> FileProviderItem {
            guard case .dictionary(let properties) = value else {
                throw CommandLineIOError("\(origin): \(what) is not a JSON object")
            }
            do throws(FileProviderItemError) {
                return try FileProviderItem(properties: properties)
            } catch {
                throw CommandLineIOError("\(origin): \(what): \(error)")
            }
        }
        var sources: [FileProviderItem] = []
        if let value = fields["sourceItems"] {
            guard case .array(let elements) = value else {
                throw CommandLineIOError("\(origin): \"sourceItems\" must be an array of item objects")
            }
            for (index, element) in elements.enumerated() {
                sources.append(try item(element, "source item \(index + 1)"))
            }
        }
        var destination: FileProviderItem?
        if let value = fields["destinationItem"] { destination = try item(value, "destinationItem") }
        var count: Int?
        if let value = fields["sourceItemsCount"] {
            guard case .int(let number) = value, number >= 0 else {
                throw CommandLineIOError("\(origin): \"sourceItemsCount\" must be a non-negative integer")
            }
            count = Int(number)
        }
        var userInfo: [String: Value] = [:]
        if let value = fields["domainUserInfo"] {
            guard case .dictionary(let dictionary) = value else {
                throw CommandLineIOError("\(origin): \"domainUserInfo\" must be an object")
            }
            userInfo = dictionary
        }
        return UserInteractionOperation(
            action: action, sourceItems: sources, destinationItem: destination, sourceItemsCount: count,
            domainUserInfo: userInfo)
    }

    /// The selected items: a JSON array of objects, each the properties of one item.
    mutating func selection(from source: String) throws(CommandLineIOError) -> [FileProviderItem] {
        let bytes = source == "-" ? try readAll(from: &input) : try readFile(atPath: source)
        let origin = source == "-" ? "--items (standard input)" : "--items '\(source)'"
        // Checked while the JSON is read, before the items are built: each is far larger than
        // its JSON, and a rule over a huge selection (explain records every element it visits)
        // would run on and on.
        let tooMany = "more than \(maximumSelectionCount) items; a selection holds at most \(maximumSelectionCount)"
        guard
            case .array(let elements) = try value(
                ofJSON: bytes, from: origin, expecting: "array", maximumElements: maximumSelectionCount,
                tooMany: tooMany)
        else {
            return []
        }
        var items: [FileProviderItem] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .dictionary(let properties) = element else {
                throw CommandLineIOError("\(origin): item \(index + 1) is not a JSON object")
            }
            do throws(FileProviderItemError) {
                items.append(try FileProviderItem(properties: properties))
            } catch {
                let hint = error.message.hasPrefix("not a property") ? " ('predicate help items' lists them)" : ""
                throw CommandLineIOError("\(origin): item \(index + 1): \(error)\(hint)")
            }
        }
        return items
    }
}

/// Why a hidden action's rule is false, when it is false rather than failing.
private func reason(
    _ outcome: ActionOutcome, _ items: [FileProviderItem], _ limits: EvaluationLimits
) -> HiddenActionReason? {
    guard !outcome.isEnabled, outcome.problem == nil, let rule = outcome.action.activationRule else { return nil }
    return HiddenActionReason(rule: rule, items: items, limits: limits)
}

/// An action's outcome; with `--explain`, a false rule's `"false"`: its deciding clause and values.
private func actionJSON(_ outcome: ActionOutcome, reason: HiddenActionReason?) -> JSON {
    var members: [(key: String, value: JSON)] = [
        ("identifier", .string(outcome.action.identifier)), ("name", .string(outcome.action.name)),
        ("enabled", .bool(outcome.isEnabled)),
        ("error", outcome.problem.map { JSON.string($0.description) } ?? .null),
    ]
    if let reason {
        members.append(
            (
                "false",
                .object([("clause", .string(reason.clause)), ("values", .array(reason.values.map(JSON.string)))])
            ))
    }
    return .object(members)
}

private func interactionJSON(_ outcome: UserInteractionOutcome) -> JSON {
    .object([
        ("position", .string(outcome.interaction.position)),
        ("title", outcome.interaction.title.map(JSON.string) ?? .null),
        ("evaluated", .bool(outcome.evaluated)), ("matched", .bool(outcome.matched)),
        ("matchedItems", .number(JSON.Number(Int64(outcome.matchedItems)))),
        ("evaluations", .number(JSON.Number(Int64(outcome.evaluations)))),
        ("errors", .array(outcome.problems.map { .string($0.description) })),
    ])
}
