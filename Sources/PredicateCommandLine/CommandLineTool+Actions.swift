import PredicateActions
import PredicateFileProvider
import PredicateSyntax
import PredicateValue

/// `predicate check` and `predicate actions`: File Provider rules before they ship.
extension Session {
    // MARK: check

    mutating func check(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.check + "\n")
            return 0
        }
        let operand: String
        switch arguments.operands.count {
        case 0: throw UsageError(message: "missing rule or Info.plist", subcommand: .check)
        case 1: operand = arguments.operands[0]
        default:
            throw UsageError(
                message: "expected one rule or one Info.plist, got \(arguments.operands.count) (quote the rule)",
                subcommand: .check)
        }
        let json = arguments.has("--json")
        let isPropertyList = arguments.has("--plist") || operand.lowercased().hasSuffix(".plist")
        let checker: RuleChecker
        switch arguments.options["--context"] ?? "activation" {
        case "activation": checker = RuleChecker()
        case "interaction": checker = RuleChecker(selfType: RuleChecker.fileProviderUserInteraction)
        case let other:
            throw UsageError(message: "unknown context '\(other)' (use activation or interaction)", subcommand: .check)
        }
        guard isPropertyList else {
            let findings = checker.check(operand)
            if json {
                let document = JSON.object([("rule", .string(operand)), ("findings", findingsJSON(findings, operand))])
                output.write(document.serialized + "\n")
            } else {
                writeFindings(findings, rule: operand, indent: "")
                output.write(summary(findings) + "\n")
            }
            return findings.isEmpty ? 0 : 1
        }
        var actions: [FileProviderAction] = []
        let interactions: [FileProviderUserInteraction]
        do {
            let bytes = try readFile(atPath: operand)
            interactions = try FileProviderUserInteraction.interactions(inPropertyListBytes: bytes).flatMap(\.flattened)
            do throws(ActionListError) {
                actions = try FileProviderActionList.actions(inPropertyListBytes: bytes)
            } catch {
                // A File Provider extension may declare only user interactions.
                guard error.message.hasPrefix("no NSExtensionFileProviderActions"), !interactions.isEmpty else {
                    throw error
                }
            }
        } catch {
            errorOutput.write("predicate: error: \(operand): \(error)\n")
            return 2
        }
        var all: [RuleFinding] = []
        var entries: [JSON] = []
        for action in actions {
            let findings =
                action.activationRule.map { checker.check($0) }
                ?? [
                    RuleFinding(
                        Diagnostic(
                            .ruleCheck(Self.noRuleMessage), severity: .warning, range: SourceRange(0, 0), source: ""))
                ]
            all += findings
            if json {
                let members: [(key: String, value: JSON)] = [
                    ("identifier", .string(action.identifier)), ("name", .string(action.name)),
                    ("rule", action.activationRule.map(JSON.string) ?? .null),
                    ("findings", findingsJSON(findings, action.activationRule ?? "")),
                ]
                entries.append(.object(members))
                continue
            }
            guard let rule = action.activationRule else {
                output.write("\(action.identifier) (\(action.name)): warning: \(Self.noRuleMessage)\n")
                continue
            }
            if findings.isEmpty {
                output.write("\(action.identifier) (\(action.name)): no findings\n")
            } else {
                output.write("\(action.identifier) (\(action.name)):\n")
                writeFindings(findings, rule: rule, indent: "  ")
            }
        }
        let interactionChecker = RuleChecker(selfType: RuleChecker.fileProviderUserInteraction)
        var interactionEntries: [JSON] = []
        for interaction in interactions {
            let findings = interaction.activationRule.map { interactionChecker.check($0) } ?? []
            all += findings
            let label = "interaction \(interaction.position)" + (interaction.title.map { " (\($0))" } ?? "")
            if json {
                interactionEntries.append(
                    .object([
                        ("position", .string(interaction.position)),
                        ("title", interaction.title.map(JSON.string) ?? .null),
                        ("rule", interaction.activationRule.map(JSON.string) ?? .null),
                        ("findings", findingsJSON(findings, interaction.activationRule ?? "")),
                    ]))
            } else if let rule = interaction.activationRule, !findings.isEmpty {
                output.write("\(label):\n")
                writeFindings(findings, rule: rule, indent: "  ")
            } else {
                output.write("\(label): \(interaction.activationRule == nil ? "no activation rule" : "no findings")\n")
            }
        }
        if json {
            var members: [(key: String, value: JSON)] = [("file", .string(operand)), ("actions", .array(entries))]
            if !interactions.isEmpty { members.append(("interactions", .array(interactionEntries))) }
            output.write(JSON.object(members).serialized + "\n")
        } else {
            var counted = "\(actions.count) \(actions.count == 1 ? "action" : "actions")"
            if !interactions.isEmpty {
                counted += ", \(interactions.count) \(interactions.count == 1 ? "interaction" : "interactions")"
            }
            output.write("\(counted): \(summary(all))\n")
        }
        return all.isEmpty ? 0 : 1
    }

    static var noRuleMessage: String {
        "no NSExtensionFileProviderActionActivationRule, so the action is never shown"
    }

    private mutating func writeFindings(_ findings: [RuleFinding], rule: String, indent: String) {
        for finding in findings {
            let rendered = finding.diagnostic.rendered(colored: tool.colorOutput)
            for line in rendered.split(separator: "\n", omittingEmptySubsequences: false) {
                output.write(indent + line + "\n")
            }
            if let fixIt = finding.fixIt {
                let original = finding.diagnostic.range == fixIt.range ? finding.diagnostic.offendingText : nil
                let what =
                    fixIt.range.lowerBound == fixIt.range.upperBound
                    ? "insert '\(fixIt.replacement)'"
                    : "replace '\(original ?? Self.text(rule, fixIt.range))' with '\(fixIt.replacement)'"
                output.write("\(indent)fix-it: \(what): \(fixIt.applied(to: rule))\n")
            }
        }
    }

    private static func text(_ rule: String, _ range: SourceRange) -> String {
        let bytes = Array(rule.utf8)
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    private func summary(_ findings: [RuleFinding]) -> String {
        guard !findings.isEmpty else { return "no findings" }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        return "\(errors) \(errors == 1 ? "error" : "errors"), \(warnings) \(warnings == 1 ? "warning" : "warnings")"
    }

    private func findingsJSON(_ findings: [RuleFinding], _ rule: String) -> JSON {
        .array(
            findings.map { finding in
                let diagnostic = finding.diagnostic
                var fixIt = JSON.null
                if let edit = finding.fixIt {
                    fixIt = .object([
                        ("start", .number(JSON.Number(Int64(edit.range.lowerBound)))),
                        ("end", .number(JSON.Number(Int64(edit.range.upperBound)))),
                        ("replacement", .string(edit.replacement)), ("fixedRule", .string(edit.applied(to: rule))),
                    ])
                }
                return .object([
                    ("severity", .string(diagnostic.severity.rawValue)),
                    ("line", .number(JSON.Number(Int64(diagnostic.location.line)))),
                    ("column", .number(JSON.Number(Int64(diagnostic.location.column)))),
                    ("start", .number(JSON.Number(Int64(diagnostic.range.lowerBound)))),
                    ("end", .number(JSON.Number(Int64(diagnostic.range.upperBound)))),
                    ("text", .string(diagnostic.offendingText)), ("message", .string(diagnostic.message)),
                    ("fixIt", fixIt),
                ])
            })
    }

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
