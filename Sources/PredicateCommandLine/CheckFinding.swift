import PredicateActions
import PredicateSyntax

/// How `check` writes its findings: for a person, for a program, or for a CI system or IDE that
/// places them on the file's lines.
enum OutputFormat: String, CaseIterable {
    case text, json, github, sarif, xcode
}

/// The least severe finding that makes `check` exit 1.
enum FailureThreshold: String, CaseIterable {
    case error, warning, never

    func fails(_ severity: Diagnostic.Severity) -> Bool {
        switch self {
        case .error: return severity == .error
        case .warning: return true
        case .never: return false
        }
    }
}

/// One finding as every output format needs it: the file, its line and column (or key path), and
/// for a rule finding the rule and the checker's fix-it.
struct CheckFinding {
    var file: String
    var severity: Diagnostic.Severity
    var message: String
    var line: Int?
    var column: Int?
    var keyPath: String?
    var subject: String?
    var rule: String?
    var ruleFinding: RuleFinding?

    init(file: String, _ finding: InfoPlistFinding) {
        self.file = file
        severity = finding.severity
        message = finding.message
        line = finding.location.line
        column = finding.location.column
        keyPath = finding.location.keyPath
        subject = finding.subject
        rule = finding.rule
        ruleFinding = finding.ruleFinding
    }

    /// A finding of a rule given on the command line, positioned in the rule itself.
    init(rule: String, _ finding: RuleFinding) {
        file = "<rule>"
        severity = finding.severity
        message = finding.message
        line = finding.diagnostic.location.line
        column = finding.diagnostic.location.column
        self.rule = rule
        ruleFinding = finding
    }

    /// `file:line:column`, or `file` alone when the file has no lines.
    var position: String {
        guard let line, let column else { return file }
        return "\(file):\(line):\(column)"
    }

    /// The key path, for a message whose file has no lines (a binary property list).
    var keyPathSuffix: String {
        guard line == nil, let keyPath, !keyPath.isEmpty else { return "" }
        return " (at \(keyPath))"
    }

    /// The fix-it as one phrase, `replace 'a' with 'b': <the fixed rule>`.
    var fixItDescription: String? {
        guard let finding = ruleFinding, let fixIt = finding.fixIt, let rule else { return nil }
        let what: String
        if fixIt.range.lowerBound == fixIt.range.upperBound {
            what = "insert '\(fixIt.replacement)'"
        } else {
            let original =
                finding.diagnostic.range == fixIt.range
                ? finding.diagnostic.offendingText : Self.text(rule, fixIt.range)
            what = "replace '\(original)' with '\(fixIt.replacement)'"
        }
        return "\(what): \(fixIt.applied(to: rule))"
    }

    static func text(_ rule: String, _ range: SourceRange) -> String {
        let bytes = Array(rule.utf8)
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }
}
