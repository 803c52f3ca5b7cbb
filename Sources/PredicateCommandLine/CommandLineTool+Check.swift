import PredicateActions
import PredicateSyntax
import PredicateValue

/// `predicate check`: File Provider rules, alone or in `Info.plist` files, before they ship.
extension Session {
    /// One file's outcome: its check, or why it could not be read.
    struct CheckedFile {
        let path: String
        let check: InfoPlistCheck?
        let inputError: String?

        var findings: [CheckFinding] { check?.findings.map { CheckFinding(file: path, $0) } ?? [] }
    }

    mutating func check(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.check + "\n")
            return 0
        }
        let operands = arguments.operands
        guard !operands.isEmpty else { throw UsageError(message: "missing rule or Info.plist", subcommand: .check) }
        let format = try outputFormat(arguments)
        let threshold = try choice(arguments, "--fail-on", default: FailureThreshold.error)
        let checker: RuleChecker
        switch arguments.options["--context"] ?? "activation" {
        case "activation": checker = RuleChecker()
        case "interaction": checker = RuleChecker(selfType: RuleChecker.fileProviderUserInteraction)
        case let other:
            throw UsageError(message: "unknown context '\(other)' (use activation or interaction)", subcommand: .check)
        }
        let isFiles = arguments.has("--plist") || operands.contains(where: CheckFiles.isFile)
        guard isFiles else {
            guard operands.count == 1 else {
                throw UsageError(
                    message: "expected one rule or Info.plist files, got \(operands.count) operands (quote the rule)",
                    subcommand: .check)
            }
            return checkRule(operands[0], checker: checker, format: format, threshold: threshold)
        }
        if operands.filter({ $0 == "-" }).count > 1 {
            throw UsageError(message: "standard input ('-') can be read only once", subcommand: .check)
        }
        var checked: [CheckedFile] = []
        let files = CheckFiles.expand(operands)
        for file in files {
            let bytes: [UInt8]
            do throws(CommandLineIOError) {
                bytes = file.path == "-" ? try readAll(from: &input) : try readFile(atPath: file.path)
            } catch {
                checked.append(CheckedFile(path: displayName(file.path), check: nil, inputError: error.message))
                continue
            }
            // Actions are activation rules and interactions interaction rules, whatever --context says.
            let check = InfoPlistCheck(propertyListBytes: bytes)
            if file.fromDirectory, !check.declaresFileProviderRules { continue }
            checked.append(CheckedFile(path: displayName(file.path), check: check, inputError: nil))
        }
        // A directory that holds nothing to check is worth a word: a CI path may be wrong.
        for directory in operands where CheckFiles.isDirectory(directory) {
            guard !checked.contains(where: { $0.path.hasPrefix(directory) }) else { continue }
            errorOutput.write(
                colorize("predicate: warning: ", .yellow)
                    + "no *Info.plist declaring File Provider rules under '\(directory)'\n")
        }
        writeCheckedFiles(checked, format: format, scannedDirectory: operands.contains(where: CheckFiles.isDirectory))
        if checked.contains(where: { $0.inputError != nil }) { return 2 }
        let failing = checked.flatMap(\.findings).contains { threshold.fails($0.severity) }
        return failing ? 1 : 0
    }

    private func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// `--format`, with `--json` as its shorthand.
    func outputFormat(_ arguments: ParsedArguments) throws(UsageError) -> OutputFormat {
        let format = try choice(arguments, "--format", default: OutputFormat.text)
        guard arguments.has("--json") else { return format }
        guard arguments.options["--format"] == nil || format == .json else {
            throw UsageError(message: "--json and --format \(format.rawValue) disagree; give one", subcommand: .check)
        }
        return .json
    }

    /// The value of an option that names one of `Choice`'s cases.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _ arguments: ParsedArguments, _ option: String, default value: Choice
    ) throws(UsageError) -> Choice where Choice.RawValue == String {
        guard let text = arguments.options[option] else { return value }
        guard let chosen = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "unknown \(option) '\(text)' (use \(names))", subcommand: .check)
        }
        return chosen
    }

    private mutating func checkRule(
        _ rule: String, checker: RuleChecker, format: OutputFormat, threshold: FailureThreshold
    ) -> Int32 {
        let findings = checker.check(rule)
        switch format {
        case .text:
            writeRuleFindings(findings.map { CheckFinding(rule: rule, $0) }, indent: "", filePositions: false)
            output.write(summary(findings.map(\.severity)) + "\n")
        case .json:
            let document = JSON.object([
                ("rule", .string(rule)), ("findings", findingsJSON(findings.map { CheckFinding(rule: rule, $0) })),
            ])
            output.write(document.serialized + "\n")
        case .github, .xcode, .sarif:
            writeAnnotations(findings.map { CheckFinding(rule: rule, $0) }, inputErrors: [], format: format)
        }
        return findings.contains { threshold.fails($0.severity) } ? 1 : 0
    }

    private mutating func writeCheckedFiles(_ files: [CheckedFile], format: OutputFormat, scannedDirectory: Bool) {
        let inputErrors = files.compactMap { file in file.inputError.map { (file.path, $0) } }
        for (path, message) in inputErrors where format != .json {
            errorOutput.write(colorize("predicate: error: ", .red) + "\(path): \(message)\n")
        }
        switch format {
        case .text:
            for file in files {
                guard let check = file.check else { continue }
                writeText(check, path: file.path, named: files.count > 1)
            }
            if scannedDirectory || files.count > 1 {
                let findings = files.flatMap(\.findings)
                let count = files.count
                output.write("\(count) \(count == 1 ? "file" : "files"): \(summary(findings.map(\.severity)))\n")
            }
        case .json:
            for file in files { output.write(fileJSON(file).serialized + "\n") }
            for (path, message) in inputErrors {
                errorOutput.write(colorize("predicate: error: ", .red) + "\(path): \(message)\n")
            }
        case .github, .xcode, .sarif:
            writeAnnotations(files.flatMap(\.findings), inputErrors: inputErrors, format: format)
        }
    }

    /// One file in readable form: file-wide findings, then each action and interaction with its own.
    private mutating func writeText(_ check: InfoPlistCheck, path: String, named: Bool) {
        writeRuleFindings(check.fileFindings.map { CheckFinding(file: path, $0) }, indent: "", filePositions: true)
        for (index, action) in check.actions.enumerated() {
            let label = "\(action.identifier ?? "action \(index + 1)") (\(action.name ?? "no name"))"
            writeSection(label, action.findings.map { CheckFinding(file: path, $0) })
        }
        for interaction in check.interactions {
            let label = "interaction \(interaction.position)" + (interaction.title.map { " (\($0))" } ?? "")
            writeSection(label, interaction.findings.map { CheckFinding(file: path, $0) })
        }
        let actions = check.actions.count
        var counted: [String] = []
        // A file that does not parse has no declarations to count, only its error.
        if actions > 0 || check.interactions.isEmpty {
            counted.append("\(actions) \(actions == 1 ? "action" : "actions")")
        }
        if !check.interactions.isEmpty {
            let count = check.interactions.count
            counted.append("\(count) \(count == 1 ? "interaction" : "interactions")")
        }
        if actions == 0, check.interactions.isEmpty, !check.fileFindings.isEmpty { counted = [] }
        let label = ((named ? [path] : []) + (counted.isEmpty ? [] : [counted.joined(separator: ", ")]))
            .joined(separator: ": ")
        let total = summary(check.findings.map(\.severity))
        output.write(label.isEmpty ? total + "\n" : "\(label): \(total)\n")
    }

    private mutating func writeSection(_ label: String, _ findings: [CheckFinding]) {
        guard !findings.isEmpty else {
            output.write("\(label): no findings\n")
            return
        }
        output.write("\(label):\n")
        writeRuleFindings(findings, indent: "  ", filePositions: true)
    }

    /// Each finding as `position: severity: message`, then for a rule finding the rule's line, a
    /// caret under the offending text, and the fix-it.
    private mutating func writeRuleFindings(_ findings: [CheckFinding], indent: String, filePositions: Bool) {
        for finding in findings {
            let position =
                filePositions
                ? finding.position : (finding.ruleFinding.map { "\($0.diagnostic.location)" } ?? finding.position)
            output.write("\(indent)\(position): \(severityLabel(finding.severity)) \(bold(finding.message))")
            output.write(finding.keyPathSuffix + "\n")
            guard let ruleFinding = finding.ruleFinding else { continue }
            let rendered = ruleFinding.diagnostic.rendered(colored: tool.colorOutput)
            for line in rendered.split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
                output.write(indent + line + "\n")
            }
            if let fixIt = finding.fixItDescription { output.write("\(indent)fix-it: \(fixIt)\n") }
        }
    }

    private func severityLabel(_ severity: Diagnostic.Severity) -> String {
        guard tool.colorOutput else { return "\(severity.rawValue):" }
        let color = severity == .error ? "\u{1B}[1;31m" : "\u{1B}[1;35m"
        return "\(color)\(severity.rawValue):\u{1B}[0m"
    }

    private func bold(_ text: String) -> String { tool.colorOutput ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    func summary(_ severities: [Diagnostic.Severity]) -> String {
        guard !severities.isEmpty else { return "no findings" }
        let errors = severities.filter { $0 == .error }.count
        let warnings = severities.count - errors
        return "\(errors) \(errors == 1 ? "error" : "errors"), \(warnings) \(warnings == 1 ? "warning" : "warnings")"
    }
}
