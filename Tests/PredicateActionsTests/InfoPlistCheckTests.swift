import Foundation
import PredicateActions
import PredicateSyntax
import Testing

/// An Info.plist whose `NSExtension` dictionary holds `body`, one element a line after the
/// prolog: line 5 is the first line of `body`.
private func plist(_ body: String) -> [UInt8] {
    Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict><key>NSExtension</key><dict>
        \(body)
        </dict></dict>
        </plist>
        """.utf8)
}

/// One action with the given rule text (as written in the XML), on line 5.
private func action(rule: String, identifier: String = "a") -> String {
    "<key>NSExtensionFileProviderActions</key><array><dict>"
        + "<key>NSExtensionFileProviderActionIdentifier</key><string>\(identifier)</string>"
        + "<key>NSExtensionFileProviderActionName</key><string>A</string>"
        + "<key>NSExtensionFileProviderActionActivationRule</key><string>\(rule)</string></dict></array>"
}

/// Column of the rule's first byte on line 5 in ``action(rule:identifier:)`` with identifier `a`.
private let ruleColumn = action(rule: "").utf8.count - "</string></dict></array>".utf8.count + 1

/// Where the first finding lands, and part of its message.
private let positionCases: [(name: String, bytes: [UInt8], line: Int?, column: Int?, message: String)] = [
    (
        "a typo in the rule", plist(action(rule: "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count &gt; 0")),
        5, ruleColumn + 35, "no key 'uploadded'"
    ),
    (
        "after entities, the file's column", plist(action(rule: "fileproviderItems.@count &gt; 0 AND $x == 1")),
        5, ruleColumn + 36, "never bound"
    ),
    (
        "inside CDATA", plist(action(rule: "<![CDATA[fileproviderItems.@count > 0 && $x == 1]]>")),
        5, ruleColumn + 9 + 32, "never bound"
    ),
    (
        "on a later line of a multi-line rule", plist(action(rule: "fileproviderItems.@count &gt; 0\n  AND $x == 1")),
        6, 7, "never bound"
    ),
    (
        "a raw && in the XML", plist(action(rule: "fileproviderItems.@count > 0 && TRUEPREDICATE")),
        5, ruleColumn + 29, "a raw '&&' is not valid XML: write '&amp;&amp;' or, better, AND"
    ),
    ("a raw & in the XML", plist("<key>A&B</key><string/>"), 5, 7, "a raw '&' is not valid XML: write '&amp;'"),
    ("a raw < in a string", plist("<key>A</key><string>a < b</string>"), 5, 23, "'<' must be written '&lt;'"),
    (
        "an unclosed string", plist("<key>A</key><string>abc</dict>"), 5, 24,
        "expected </string> to close the <string> at 5:13, found </dict>"
    ),
    ("a value without a key", plist("<string>x</string>"), 5, 1, "expected <key> in <dict>"),
    ("an unknown entity", plist("<key>A</key><string>&nbsp;</string>"), 5, 21, "unknown entity '&nbsp;'"),
    ("the file is empty", [], nil, nil, "the file is empty"),
    ("a truncated binary plist", Array("bplist00".utf8) + [0xD1, 0x01], nil, nil, "truncated or corrupt"),
    (
        "not UTF-8", Array("<plist><dict><key>".utf8) + [0xFF] + Array("</key></dict></plist>".utf8), 1, 19,
        "not valid UTF-8"
    ),
]

@Test(arguments: positionCases)
func findingsCarryTheFilesLineAndColumn(
    _ name: String, _ bytes: [UInt8], _ line: Int?, _ column: Int?, _ message: String
) throws {
    let finding = try #require(InfoPlistCheck(propertyListBytes: bytes).findings.first, "\(name)")
    #expect(finding.location.line == line, "\(name)")
    #expect(finding.location.column == column, "\(name)")
    #expect(finding.message.contains(message), "\(name): \(finding.message)")
}

/// Structural problems: every one in the file is reported, each with its severity and position.
private let structureCases: [(name: String, body: String, findings: [String])] = [
    (
        "missing identifier, name and rule",
        "<key>NSExtensionFileProviderActions</key><array><dict/></array>",
        [
            "5:49 error: action 1 has no NSExtensionFileProviderActionIdentifier",
            "5:49 error: action 1 has no NSExtensionFileProviderActionName, so its menu item has no title",
            "5:49 error: no NSExtensionFileProviderActionActivationRule, so the action is never shown",
        ]
    ),
    (
        "a misspelt rule key",
        "<key>NSExtensionFileProviderActions</key><array><dict>"
            + "<key>NSExtensionFileProviderActionIdentifier</key><string>a</string>"
            + "<key>NSExtensionFileProviderActionName</key><string>A</string>"
            + "<key>NSExtensionFileProviderActionActivationRules</key><string>TRUEPREDICATE</string></dict></array>",
        [
            "5:185 error: unknown key 'NSExtensionFileProviderActionActivationRules'; did you mean "
                + "'NSExtensionFileProviderActionActivationRule'? Apple ignores the key as written"
        ]
    ),
    (
        "a misspelt actions key", "<key>NSExtensionFileProviderAction</key><array/>",
        [
            "4:29 error: no NSExtensionFileProviderActions or NSFileProviderUserInteractions under NSExtension",
            "5:1 error: unknown key 'NSExtensionFileProviderAction'; did you mean 'NSExtensionFileProviderActions'? "
                + "Apple ignores the key as written",
        ]
    ),
    (
        "interactions without rule, alert or sub-interactions",
        "<key>NSFileProviderUserInteractions</key><array><dict/><dict><key>ActivationRule</key>"
            + "<string>action == 'Move'</string></dict></array>",
        [
            "5:49 error: interaction 1 has no ActivationRule, so it never applies",
            "5:49 error: interaction 1 has neither Alert nor SubInteractions: when its rule matches, nothing is shown",
            "5:56 error: interaction 2 has neither Alert nor SubInteractions: when its rule matches, nothing is shown",
        ]
    ),
    (
        "a near miss of a key that is present is left alone; an alert without title",
        "<key>NSFileProviderUserInteractions</key><array><dict><key>ActivationRule</key><string>TRUEPREDICATE"
            + "</string><key>Alerts</key><dict/><key>Alert</key><dict/></dict></array>",
        [
            "5:150 warning: the Alert has no LocalizedTitle"
        ]
    ),
    (
        "a duplicate key",
        action(rule: "TRUEPREDICATE") + "<key>NSExtensionPointIdentifier</key><string>a</string>"
            + "<key>NSExtensionPointIdentifier</key><string>b</string>",
        [
            "5:\(action(rule: "TRUEPREDICATE").utf8.count + 56) warning: the key 'NSExtensionPointIdentifier' appears "
                + "twice in this dictionary (first at 5:\(action(rule: "TRUEPREDICATE").utf8.count + 1)); only one is kept"
        ]
    ),
]

@Test(arguments: structureCases)
func structuralProblemsAreFindings(_ name: String, _ body: String, _ expected: [String]) {
    let findings = InfoPlistCheck(propertyListBytes: plist(body)).findings.map {
        "\($0.location) \($0.severity.rawValue): \($0.message)"
    }
    #expect(findings == expected, "\(name)")
}

/// Apple's other keys are not typos of the File Provider ones, however long a prefix they share.
@Test func realKeysAreNotNearMisses() {
    let body =
        "<key>NSExtensionFileProviderSupportsPickingFolders</key><true/>"
        + "<key>NSExtensionFileProviderSupportsEnumeration</key><true/>"
        + "<key>NSExtensionPointIdentifier</key><string>com.apple.fileprovider-nonui</string>"
        + "<key>NSExtensionPrincipalClass</key><string>X</string>"
        + "<key>NSExtensionServiceRoleType</key><string>NSExtensionServiceRoleTypeEditor</string>"
        + action(rule: "TRUEPREDICATE")
    #expect(InfoPlistCheck(propertyListBytes: plist(body)).findings.map(\.message) == [])
}

@Test func duplicateIdentifiersAreErrorsAtTheSecond() throws {
    let body =
        "<key>NSExtensionFileProviderActions</key><array>"
        + (1...2).map { _ in
            "<dict><key>NSExtensionFileProviderActionIdentifier</key><string>same</string>"
                + "<key>NSExtensionFileProviderActionName</key><string>A</string>"
                + "<key>NSExtensionFileProviderActionActivationRule</key><string>TRUEPREDICATE</string></dict>"
        }.joined() + "</array>"
    let check = InfoPlistCheck(propertyListBytes: plist(body))
    #expect(check.actions.count == 2)
    let finding = try #require(check.findings.first)
    #expect(finding.message == "duplicate action identifier 'same': action 1 (at 5:105) already uses it")
    #expect(finding.subject == "action 'same'")
    #expect(
        finding.location.keyPath
            == "NSExtension.NSExtensionFileProviderActions[1].NSExtensionFileProviderActionIdentifier")
}

/// A binary property list has no lines: findings carry the key path of the value.
@Test func binaryPropertyListFindingsCarryTheKeyPath() throws {
    let xml = plist(action(rule: "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count &gt; 0"))
    let value = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil)
    let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    let finding = try #require(InfoPlistCheck(propertyListBytes: Array(binary)).findings.first)
    #expect(finding.location.line == nil)
    #expect(
        finding.location.keyPath
            == "NSExtension.NSExtensionFileProviderActions[0].NSExtensionFileProviderActionActivationRule")
    #expect(finding.ruleFinding?.fixIt?.replacement == "uploaded")
}

/// A file that is not an extension's declares nothing: a directory scan skips it.
@Test func anAppInfoPlistDeclaresNoFileProviderRules() {
    let app = Array(
        #"<?xml version="1.0"?><plist><dict><key>CFBundleName</key><string>App</string></dict></plist>"#.utf8)
    let check = InfoPlistCheck(propertyListBytes: app)
    #expect(!check.declaresFileProviderRules)
    #expect(check.findings.map(\.message) == ["the property list has no NSExtension dictionary"])
}

/// The readers that evaluate rules say where the XML is broken, too.
@Test func actionListErrorsCarryTheLine() {
    #expect(
        throws: ActionListError(
            "line 5, column \(ruleColumn + 29): not a valid XML property list: a raw '&&' "
                + "is not valid XML: write '&amp;&amp;' or, better, AND")
    ) {
        try FileProviderActionList(
            propertyListBytes: plist(action(rule: "fileproviderItems.@count > 0 && TRUEPREDICATE")))
    }
}
