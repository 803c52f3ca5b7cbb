import PredicateActions
import PredicateSyntax
import Testing

/// What a finding should look like: severity, the text it points at, part of its message and the
/// rule after its fix-it (if any).
struct ExpectedFinding: Sendable, CustomStringConvertible {
    let rule: String
    let severity: Diagnostic.Severity
    let pointsAt: String
    let message: String
    let fixed: String?

    init(
        _ rule: String, _ severity: Diagnostic.Severity, at pointsAt: String, _ message: String, fixed: String? = nil
    ) {
        self.rule = rule
        self.severity = severity
        self.pointsAt = pointsAt
        self.message = message
        self.fixed = fixed
    }

    var description: String { rule }
}

private let findingCases: [ExpectedFinding] = [
    ExpectedFinding(
        "fileproviderItems.count > 1", .error, at: "count", "'@count'", fixed: "fileproviderItems.@count > 1"),
    ExpectedFinding(
        "fileproviderItems.sum > 1", .error, at: "sum", "the collection's sum is '@sum'",
        fixed: "fileproviderItems.@sum > 1"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.isShared == YES AND $i.isShared == NO).@count > 0", .warning,
        at: "$i.isShared == NO", "'$i.isShared == YES' and '$i.isShared == NO' can never both be true"),
    ExpectedFinding(
        "fileproviderItems.@count > 0 AND fileproviderItems.@count == 0", .warning, at: "fileproviderItems.@count == 0",
        "can never both be true, so this AND is always false"),
    ExpectedFinding(
        "fileproviderItems.@count >= 2 AND fileproviderItems.@count < 2", .warning, at: "fileproviderItems.@count < 2",
        "can never both be true"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, ($i.capabilities & 0) != 0).@count > 0", .warning,
        at: "($i.capabilities & 0) != 0",
        "is always 0 (a mask of 0 selects no bit), so this comparison is always false",
        fixed: "SUBQUERY(fileproviderItems, $i, FALSEPREDICATE).@count > 0"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, ($i.capabilities & 256) == 0).@count > 0", .warning,
        at: "($i.capabilities & 256) == 0", "256 has none of the capability bits",
        fixed: "SUBQUERY(fileproviderItems, $i, TRUEPREDICATE).@count > 0"),
    ExpectedFinding(
        #"SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO "public.foldr").@count > 0"#,
        .warning, at: #""public.foldr""#, "did you mean 'public.folder'?",
        fixed: #"SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO "public.folder").@count > 0"#
    ),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploadded == YES).@count > 0", .error,
        at: "uploadded", "did you mean 'uploaded' (or 'isUploaded')?",
        fixed: "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploaded == YES).@count > 0"),
    ExpectedFinding(
        "fileProviderItems.@count == 1", .warning, at: "fileProviderItems", "did you mean 'fileproviderItems'?",
        fixed: "fileproviderItems.@count == 1"),
    ExpectedFinding(
        "SUBQUERY($fileproviderItems, $i, $i.isShared == YES).@count > 0", .error, at: "$fileproviderItems",
        "never bound", fixed: "SUBQUERY(fileproviderItems, $i, $i.isShared == YES).@count > 0"),
    ExpectedFinding(
        "ANY fileproviderItems.filename == 3", .warning, at: "ANY fileproviderItems.filename == 3", "always false"),
    ExpectedFinding(
        "ANY fileproviderItems.documentSize > 'big'", .error, at: "ANY fileproviderItems.documentSize > 'big'",
        "cannot order"),
    ExpectedFinding(
        "ANY fileproviderItems.contentType UTI-CONFORMS-TO 'public.image'", .error, at: "fileproviderItems.contentType",
        "use 'fileproviderItems.contentType.identifier'",
        fixed: "ANY fileproviderItems.contentType.identifier UTI-CONFORMS-TO 'public.image'"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.contentType UTI-CONFORMS-TO 'public.folder').@count > 0", .error,
        at: "$i.contentType", "type object",
        fixed: "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count > 0"),
    ExpectedFinding(
        "ANY fileproviderItems.documentSize BETWEEN {1, 2, 3}", .error, at: "{1, 2, 3}", "exactly two bounds"),
    ExpectedFinding("ANY fileproviderItems.documentSize BETWEEN 5", .error, at: "5", "two bounds"),
    ExpectedFinding(
        "ANY fileproviderItems.filename MATCHES '(unclosed'", .error, at: "'(unclosed'", "does not compile"),
    ExpectedFinding(#"ANY fileproviderItems.filename LIKE 'abc\\'"#, .error, at: #"'abc\\'"#, "ends with a backslash"),
    ExpectedFinding("ANY fileproviderItems.filename == $name", .error, at: "$name", "never bound"),
    ExpectedFinding(
        "fileproviderItems.@count == 1 OR fileproviderItems.@count == 2 AND TRUEPREDICATE", .warning,
        at: "fileproviderItems.@count == 1 OR fileproviderItems.@count == 2 AND TRUEPREDICATE", "AND and OR mixed"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, isShared == YES).@count > 0", .warning, at: "isShared == YES",
        "never uses $i"),
    ExpectedFinding(
        "ANY fileproviderItems.documentSize == nil", .warning, at: "ANY fileproviderItems.documentSize == nil",
        "NSNull"),
    ExpectedFinding("1 == 2", .warning, at: "1 == 2", "always false", fixed: "FALSEPREDICATE"),
    ExpectedFinding("'a' == 'a'", .warning, at: "'a' == 'a'", "always true", fixed: "TRUEPREDICATE"),
    ExpectedFinding("FALSEPREDICATE", .warning, at: "FALSEPREDICATE", "never true"),
    ExpectedFinding(
        "ANY fileproviderItems.userInfo.rank != nil", .warning, at: "rank", "through an optional value"),
    ExpectedFinding("fileproviderItems.filename.@sum > 3", .error, at: "@sum", "adds numbers"),
    ExpectedFinding("fileproviderItems.@count == AND", .error, at: "AND", "expected"),
    ExpectedFinding(
        "ANY fileproviderItems.documentSize > 1000", .warning, at: "ANY fileproviderItems.documentSize > 1000",
        "ordering NSNull fails"),
    ExpectedFinding(
        "ANY fileproviderItems.capabilities & 8 != 0", .error, at: "fileproviderItems.capabilities",
        "bitwise operators need integers"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.filename + 1 > 2).@count > 0", .error, at: "$i.filename",
        "arithmetic needs numbers"),
    ExpectedFinding(
        "fileproviderItems.@count >= 0", .warning, at: "fileproviderItems.@count >= 0", "never negative",
        fixed: "TRUEPREDICATE"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.isShared == YES).@count < 0", .warning,
        at: "SUBQUERY(fileproviderItems, $i, $i.isShared == YES).@count < 0", "always false", fixed: "FALSEPREDICATE"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.filename == nil).@count > 0", .warning, at: "$i.filename == nil",
        "never nil, so this comparison is always false"),
    ExpectedFinding("ANY fileproviderItems.@count == 1", .error, at: "fileproviderItems.@count", "needs a collection"),
    ExpectedFinding(
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == 'YES').@count > 0", .warning,
        at: "$i.isUploaded == 'YES'", "a Boolean compared with a string"),
]

@Test(arguments: findingCases)
func checkerReportsFinding(_ expected: ExpectedFinding) {
    let findings = RuleChecker().check(expected.rule)
    let matching = findings.filter { $0.message.contains(expected.message) }
    #expect(matching.count == 1, "findings: \(findings.map(\.message))")
    guard let finding = matching.first else { return }
    #expect(finding.severity == expected.severity)
    #expect(finding.diagnostic.offendingText == expected.pointsAt)
    #expect(finding.fixIt.map { $0.applied(to: expected.rule) } == expected.fixed)
}

/// SPEC §5.1's correct idioms, and a few more, draw no findings.
private let correctRules = [
    "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.isUploaded == YES).@count > 0",
    "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploaded == YES).@count > 0",
    #"SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.userInfo."com.example.testBit" == YES).@count > 0"#,
    "SUBQUERY ( fileproviderItems, $fileproviderItem, $fileproviderItem.userInfo.locked != nil ).@count > 0",
    "fileproviderItems.@count == 1",
    #"SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO "public.folder").@count == fileproviderItems.@count"#,
    "SUBQUERY(fileproviderItems, $i, $i.typeIdentifier UTI-CONFORMS-TO 'public.folder').@count > 0",
    "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank != nil).@count > 0",
    "ALL fileproviderItems.isDownloaded == YES",
    #"ANY fileproviderItems.filename ENDSWITH[c] ".txt""#,
    "TRUEPREDICATE",
    "SUBQUERY(fileproviderItems, $i, ($i.capabilities & 8) != 0).@count > 0",
    "SUBQUERY(fileproviderItems, $i, bitwiseAnd:with:($i.capabilities, 8) != 0).@count > 0",
    "SUBQUERY(fileproviderItems, $i, $i.documentSize BETWEEN {0, 1000}).@count > 0",
    "ANY fileproviderItems.filename BEGINSWITH 'Report'",
    "ALL fileproviderItems.capabilities > 0",
    "SUBQUERY(fileproviderItems, $i, $i.documentSize == nil).@count > 0",
    "fileproviderItems.@count > 0",
    "fileproviderItems.@count >= 1",
    "ANY fileproviderItems.filename MATCHES '.*\\\\.txt'",
    "ANY fileproviderItems.filename LIKE[c] '*.tx?'",
    "SUBQUERY(fileproviderItems, $i, $i.resolvedUserInfo.'a.inherited' == YES).@count > 0",
    "fileproviderItems.@count > 0 AND (ANY fileproviderItems.isShared == YES OR ALL fileproviderItems.isTrashed == NO)",
    "fileproviderItems.@count >= 1 AND fileproviderItems.@count <= 1",
    "SUBQUERY(fileproviderItems, $i, $i.isShared == YES OR $i.isShared == NO).@count > 0",
    "SUBQUERY(fileproviderItems, $i, $i.documentSize > 10 AND $i.documentSize < 100).@count > 0",
    "SUBQUERY(fileproviderItems, $i, ($i.capabilities & 128) != 0).@count > 0",
    #"ANY fileproviderItems.typeIdentifier UTI-CONFORMS-TO "com.example.custom-type""#,
    #"ANY fileproviderItems.typeIdentifier UTI-CONFORMS-TO "com.mycompany.doc""#,
    #"ANY fileproviderItems.typeIdentifier UTI-EQUALS "com.example.archive""#,
]

@Test(arguments: correctRules)
func checkerAcceptsCorrectIdiom(_ rule: String) {
    let findings = RuleChecker().check(rule)
    #expect(findings.isEmpty, "findings: \(findings.map { $0.diagnostic.rendered() })")
}

private let actionNames = "Move, MoveOut, MoveIn, Copy, CopyOut, CopyIn, Trash, Delete, Rename, Create, ExcludeFromSync"

@Test func checkerKnowsTheUserInteractionContext() {
    let checker = RuleChecker(selfType: RuleChecker.fileProviderUserInteraction)
    let rule =
        "sourceItem.isShared == NO AND destinationItem.isShared == YES AND destinationItem.isSharedByCurrentUser == YES"
    #expect(checker.check(rule).isEmpty)
    #expect(checker.check("action == 'Move' AND sourceItemsCount > 1").isEmpty)
    // sourceItem is absent for some actions, so its keys may read nil.
    #expect(checker.check("sourceItem.isShared == nil").isEmpty)
    #expect(checker.check("sourceItemsCount == nil").count == 1)
    #expect(checker.check("action ==[c] 'move' OR action IN {'Trash', 'Delete'}").isEmpty)
    let wrongCase = checker.check("action == 'move'")
    #expect(wrongCase.map(\.message) == ["'move' is not a value of action (\(actionNames)); did you mean 'Move'?"])
    #expect(wrongCase.first?.fixIt?.applied(to: "action == 'move'") == "action == 'Move'")
    #expect(checker.check("action IN {'Trash', 'Deleet'}").first?.fixIt?.replacement == "Delete")
    let findings = checker.check("sourceItem.isShard == NO")
    #expect(findings.map(\.fixIt?.replacement) == ["isShared"])
}

@Test func checkerUsesTheGivenSchema() {
    let checker = RuleChecker(selfType: .record(["action": .string, "sourceItemsCount": .integer]))
    #expect(checker.check("action == 'Move' AND sourceItemsCount > 1").isEmpty)
    let findings = checker.check("acton == 'Move'")
    #expect(findings.map(\.fixIt?.replacement) == ["action"])
}

@Test func checkerBoundsItsFindingsOnHugeRules() {
    let rule = Array(repeating: "1 == 2", count: 20_000).joined(separator: " OR ")
    let findings = RuleChecker().check(rule)
    #expect(findings.count <= 64 + 32)
    #expect(findings.allSatisfy { $0.message.contains("always false") })
}
