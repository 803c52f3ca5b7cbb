/// A message about a rule's source text: a syntax error, or a warning about a legal but doubtful
/// construct. Errors are thrown; warnings are returned beside the syntax tree.
///
/// A diagnostic knows where it points (`line:column` and a byte range) and carries the text of
/// the source line, so it renders on its own:
///
/// ```
/// 1:10: error: expected an expression after '=='
/// name == AND x
///         ^~~
/// ```
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Hashable, Sendable {
        /// The rule cannot be used.
        case error
        /// The rule is legal but probably not what its author meant.
        case warning
    }

    /// Whether this is an error or a warning.
    public let severity: Severity
    /// What went wrong, as a value tests and tools can match on.
    public let kind: DiagnosticKind
    /// The source range the diagnostic points at.
    public let range: SourceRange
    /// The line and column of the start of ``range``.
    public let location: SourceLocation
    /// The full text of the source line holding the start of ``range``.
    public let sourceLine: String
    /// The source text covered by ``range`` (on its first line).
    public let offendingText: String
    /// Where the caret goes: the character offset of the range within ``sourceLine``, and how many
    /// characters to underline (at least one).
    let caretColumn: Int
    let caretWidth: Int

    /// The message a rule author reads, for example `expected ')' to close '(' at 1:3`.
    public var message: String { kind.message }

    /// Creates a diagnostic about `range` of the rule `source`, for stages after parsing (an
    /// evaluation error, a checker's finding) that want the same rendering.
    public init(_ kind: DiagnosticKind, severity: Severity = .error, range: SourceRange, source: String) {
        self.init(kind, severity: severity, range: range, in: SourceText(source))
    }

    init(_ kind: DiagnosticKind, severity: Severity = .error, range: SourceRange, in source: SourceText) {
        self.kind = kind
        self.severity = severity
        self.range = range
        self.location = source.location(of: range.lowerBound)
        self.sourceLine = source.lineText(containing: range.lowerBound)
        let lineEnd = source.lineEnd(containing: range.lowerBound)
        let firstLine = SourceRange(range.lowerBound, min(range.upperBound, lineEnd))
        self.offendingText = source.text(in: firstLine)
        self.caretColumn = location.column - 1
        self.caretWidth = max(1, offendingText.count)
    }

    /// `line:column: severity: message`, on one line.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }

    /// The diagnostic on three lines: the summary, the source line, and a caret under the
    /// offending text. With `colored`, the severity and caret use ANSI colours.
    public func rendered(colored: Bool = false) -> String {
        var caretLine = ""
        for (index, character) in sourceLine.enumerated() where index < caretColumn {
            caretLine.append(character == "\t" ? "\t" : " ")
        }
        caretLine += "^" + String(repeating: "~", count: caretWidth - 1)
        let label = severity.rawValue
        guard colored else { return "\(location): \(label): \(message)\n\(sourceLine)\n\(caretLine)" }
        let color = severity == .error ? "\u{1B}[1;31m" : "\u{1B}[1;35m"
        let reset = "\u{1B}[0m"
        return "\(location): \(color)\(label):\(reset) \u{1B}[1m\(message)\(reset)\n\(sourceLine)\n"
            + "\u{1B}[1;32m\(caretLine)\(reset)"
    }
}
