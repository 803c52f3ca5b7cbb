import PredicateActions
import PredicateValue

/// `check --json`: one JSON object a line for each file (or the one rule), every finding with the
/// file's line and column and, for a rule finding, its byte range in the rule.
extension Session {
    func fileJSON(_ file: CheckedFile) -> JSON {
        guard let check = file.check else {
            return .object([("file", .string(file.path)), ("error", .string(file.inputError ?? "cannot read"))])
        }
        let actions = check.actions.map { action in
            JSON.object([
                ("identifier", action.identifier.map(JSON.string) ?? .null),
                ("name", action.name.map(JSON.string) ?? .null), ("rule", action.rule.map(JSON.string) ?? .null),
                ("line", number(action.location.line)), ("column", number(action.location.column)),
                ("findings", findingsJSON(action.findings.map { CheckFinding(file: file.path, $0) })),
            ])
        }
        var members: [(key: String, value: JSON)] = [("file", .string(file.path)), ("actions", .array(actions))]
        if !check.interactions.isEmpty {
            let interactions = check.interactions.map { interaction in
                JSON.object([
                    ("position", .string(interaction.position)),
                    ("title", interaction.title.map(JSON.string) ?? .null),
                    ("rule", interaction.rule.map(JSON.string) ?? .null),
                    ("line", number(interaction.location.line)), ("column", number(interaction.location.column)),
                    ("findings", findingsJSON(interaction.findings.map { CheckFinding(file: file.path, $0) })),
                ])
            }
            members.append(("interactions", .array(interactions)))
        }
        let all = file.findings
        members.append(("findings", findingsJSON(all)))
        members.append(("errors", number(all.filter { $0.severity == .error }.count)))
        members.append(("warnings", number(all.filter { $0.severity == .warning }.count)))
        return .object(members)
    }

    func findingsJSON(_ findings: [CheckFinding]) -> JSON {
        .array(
            findings.map { finding in
                var members: [(key: String, value: JSON)] = [
                    ("severity", .string(finding.severity.rawValue)),
                    ("line", number(finding.line)), ("column", number(finding.column)),
                ]
                if let keyPath = finding.keyPath { members.append(("keyPath", .string(keyPath))) }
                if let subject = finding.subject { members.append(("subject", .string(subject))) }
                members.append(("message", .string(finding.message)))
                guard let ruleFinding = finding.ruleFinding, let rule = finding.rule else {
                    return .object(members)
                }
                let diagnostic = ruleFinding.diagnostic
                var fixIt = JSON.null
                if let edit = ruleFinding.fixIt {
                    fixIt = .object([
                        ("start", number(edit.range.lowerBound)), ("end", number(edit.range.upperBound)),
                        ("replacement", .string(edit.replacement)), ("fixedRule", .string(edit.applied(to: rule))),
                    ])
                }
                members += [
                    ("ruleLine", number(diagnostic.location.line)), ("ruleColumn", number(diagnostic.location.column)),
                    ("start", number(diagnostic.range.lowerBound)), ("end", number(diagnostic.range.upperBound)),
                    ("text", .string(diagnostic.offendingText)), ("fixIt", fixIt),
                ]
                return .object(members)
            })
    }

    private func number(_ value: Int?) -> JSON {
        value.map { .number(JSON.Number(Int64($0))) } ?? .null
    }
}
