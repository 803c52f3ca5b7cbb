import PredicateSyntax

/// One problem in an `Info.plist`, at the file's own line and column: a structural one (a missing
/// key, a duplicate identifier, a misspelt key, XML that does not parse) or a finding inside one
/// of its rules.
public struct InfoPlistFinding: Hashable, Sendable {
    /// Error or warning.
    public let severity: Diagnostic.Severity
    /// What is wrong, for a developer.
    public let message: String
    /// Where in the file: line and column in XML, the key path always.
    public let location: PropertyListLocation
    /// The declaration it is about, for grouping: `action 'com.example.share'`, `interaction 1.2`,
    /// or `nil` for the file as a whole.
    public let subject: String?
    /// For a finding inside a rule: the rule's text and the checker's finding, whose range and
    /// fix-it are offsets in that text.
    public let rule: String?
    /// The checker's finding for a rule finding; `nil` for a structural one.
    public let ruleFinding: RuleFinding?

    /// Creates a finding.
    public init(
        _ severity: Diagnostic.Severity, _ message: String, at location: PropertyListLocation, subject: String?,
        rule: String? = nil, ruleFinding: RuleFinding? = nil
    ) {
        self.severity = severity
        self.message = message
        self.location = location
        self.subject = subject
        self.rule = rule
        self.ruleFinding = ruleFinding
    }
}
