import PredicateActions
import PredicateFileProvider
import PredicateSyntax
import PredicateValue

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
        if itemsSource == "-" && interactionSource == "-" {
            throw UsageError(message: "--items and --interaction cannot both read standard input", subcommand: .actions)
        }
        let path = arguments.operands[0]
        let bytes: [UInt8]
        var list: FileProviderActionList?
        var interactions: [FileProviderUserInteraction] = []
        do {
            bytes = try readFile(atPath: path)
            if itemsSource != nil { list = try FileProviderActionList(propertyListBytes: bytes) }
            if interactionSource != nil {
                interactions = try FileProviderUserInteraction.interactions(inPropertyListBytes: bytes)
                if interactions.isEmpty { throw ActionListError("no NSFileProviderUserInteractions under NSExtension") }
            }
        } catch {
            errorOutput.write(colorize("predicate: error: ", .red) + "\(path): \(error)\n")
            return 2
        }
        var actionOutcomes: [ActionOutcome] = []
        var interactionOutcomes: [UserInteractionOutcome] = []
        do throws(CommandLineIOError) {
            if let list, let itemsSource {
                actionOutcomes = list.outcomes(selectedItems: try selection(from: itemsSource))
            }
            if let interactionSource {
                let operation = try self.operation(from: interactionSource)
                interactionOutcomes = FileProviderUserInteraction.outcomes(of: interactions, for: operation)
            }
        } catch {
            errorOutput.write(colorize("predicate: error: ", .red) + "\(error)\n")
            return 2
        }
        let enabled = actionOutcomes.filter(\.isEnabled)
        let matched = interactionOutcomes.filter(\.matched)
        if arguments.has("--json") {
            var members: [(key: String, value: JSON)] = []
            if list != nil {
                members.append(("enabled", .array(enabled.map { .string($0.action.identifier) })))
                members.append(("actions", .array(actionOutcomes.map(actionJSON))))
            }
            if interactionSource != nil {
                members.append(("interactions", .array(interactionOutcomes.map(interactionJSON))))
            }
            output.write(JSON.object(members).serialized + "\n")
        } else {
            writeActionLines(actionOutcomes, shown: enabled.count, listed: list != nil)
            writeInteractionLines(interactionOutcomes, matched: matched.count)
        }
        for outcome in actionOutcomes {
            guard let problem = outcome.problem, let rule = outcome.action.activationRule, !rule.isEmpty else {
                continue
            }
            errorOutput.write("action '\(outcome.action.identifier)':\n")
            report([problem])
        }
        for outcome in interactionOutcomes where outcome.interaction.activationRule != nil {
            for problem in outcome.problems {
                errorOutput.write("interaction \(outcome.interaction.position):\n")
                report([problem])
            }
        }
        return enabled.isEmpty && matched.isEmpty ? 1 : 0
    }

    private mutating func writeActionLines(_ outcomes: [ActionOutcome], shown: Int, listed: Bool) {
        guard listed else { return }
        for outcome in outcomes {
            let status = outcome.isEnabled ? colorizeOutput("shown ", .green) : colorizeOutput("hidden", .red)
            var line = "\(status)  \(outcome.action.identifier) (\(outcome.action.name))"
            if let problem = outcome.problem { line += ": \(problem.message)" }
            output.write(line + "\n")
        }
        output.write("\(shown) of \(outcomes.count) \(outcomes.count == 1 ? "action" : "actions") shown\n")
    }

    private mutating func writeInteractionLines(_ outcomes: [UserInteractionOutcome], matched: Int) {
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
            if let problem = outcome.problems.first { line += ": \(problem.message)" }
            output.write(line + "\n")
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
        guard case .array(let elements) = try value(ofJSON: bytes, from: origin, expecting: "array") else {
            return []
        }
        var items: [FileProviderItem] = []
        for (index, element) in elements.enumerated() {
            guard case .dictionary(let properties) = element else {
                throw CommandLineIOError("\(origin): item \(index + 1) is not a JSON object")
            }
            do throws(FileProviderItemError) {
                items.append(try FileProviderItem(properties: properties))
            } catch {
                throw CommandLineIOError("\(origin): item \(index + 1): \(error)")
            }
        }
        return items
    }
}

private func actionJSON(_ outcome: ActionOutcome) -> JSON {
    .object([
        ("identifier", .string(outcome.action.identifier)), ("name", .string(outcome.action.name)),
        ("enabled", .bool(outcome.isEnabled)),
        ("error", outcome.problem.map { JSON.string($0.description) } ?? .null),
    ])
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
