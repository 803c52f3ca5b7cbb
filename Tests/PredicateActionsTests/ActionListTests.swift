import Foundation
import PredicateActions
import PredicateFileProvider
import PredicateSemantics
import PredicateValue
import Testing

/// The repository's `Examples/FileProvider` directory.
let examplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples/FileProvider")

private func plist(_ actions: [[String: Any]], attributes: Bool = false) throws -> [String: Any] {
    let list: [String: Any] = ["NSExtensionFileProviderActions": actions]
    let nested: [String: Any] = attributes ? ["NSExtensionAttributes": list] : list
    return ["NSExtension": nested]
}

private func action(_ identifier: String, _ rule: String?) -> [String: Any] {
    var entry: [String: Any] = [
        "NSExtensionFileProviderActionIdentifier": identifier,
        "NSExtensionFileProviderActionName": identifier.uppercased(),
    ]
    if let rule { entry["NSExtensionFileProviderActionActivationRule"] = rule }
    return entry
}

private func item(_ name: String, uploaded: Bool = true, type: String = "public.plain-text") -> FileProviderItem {
    var item = FileProviderItem(itemIdentifier: name, parentItemIdentifier: "root", filename: name)
    item.isUploaded = uploaded
    item.contentType = UniformType(type)
    return item
}

@Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary], [false, true])
func actionsLoadFromEitherFormatAndPlace(format: PropertyListSerialization.PropertyListFormat, nested: Bool) throws {
    let root = try plist(
        [
            action("one", "fileproviderItems.@count == 1"),
            action("uploaded", "ALL fileproviderItems.isUploaded == YES"),
            action("none", nil), action("broken", "fileproviderItems.@count =="),
            action("typo", "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0"),
        ], attributes: nested)
    let data = try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0)
    let list = try FileProviderActionList(propertyList: data)
    #expect(list.actions.map(\.identifier) == ["one", "uploaded", "none", "broken", "typo"])
    #expect(list.actions[0].name == "ONE")
    var problems: [String] = []
    let enabled = list.enabledActions(selectedItems: [item("a.txt")]) { action, _ in problems.append(action.identifier)
    }
    #expect(enabled.map(\.identifier) == ["one", "uploaded"])
    #expect(problems == ["none", "broken", "typo"])
    let two = list.enabledActions(selectedItems: [item("a.txt"), item("b.txt", uploaded: false)])
    #expect(two.isEmpty)
}

@Test func evaluationErrorHidesTheActionAndSaysWhere() throws {
    let list = FileProviderActionList(actions: [
        FileProviderAction(
            identifier: "typo", name: "Typo",
            activationRule: "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0")
    ])
    let outcome = try #require(list.outcomes(selectedItems: [item("a")]).first)
    #expect(!outcome.isEnabled)
    #expect(outcome.problem?.offendingText.contains("uploadded") == true)
}

private let badPropertyLists: [(String, String)] = [
    ("not a plist at all", "not a property list"),
    ("<plist version=\"1.0\"><array/></plist>", "not a dictionary"),
    ("<plist version=\"1.0\"><dict/></plist>", "no NSExtension dictionary"),
    ("<plist version=\"1.0\"><dict><key>NSExtension</key><string>x</string></dict></plist>", "not a dictionary"),
    ("<plist version=\"1.0\"><dict><key>NSExtension</key><dict/></dict></plist>", "no NSExtensionFileProviderActions"),
    (
        "<plist version=\"1.0\"><dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key>"
            + "<string>x</string></dict></dict></plist>", "not an array"
    ),
    (
        "<plist version=\"1.0\"><dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key>"
            + "<array><dict/></array></dict></dict></plist>", "has no NSExtensionFileProviderActionIdentifier"
    ),
    (
        "<plist version=\"1.0\"><dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key>"
            + "<array><string>x</string></array></dict></dict></plist>", "action 1 is not a dictionary"
    ),
]

@Test(arguments: badPropertyLists)
func badPropertyListsAreClearErrors(_ text: String, _ message: String) {
    #expect {
        _ = try FileProviderActionList(propertyList: Data(text.utf8))
    } throws: { error in
        (error as? ActionListError)?.message.contains(message) == true
    }
}

@Test func sampleInfoPlistLoads() throws {
    let list = try FileProviderActionList(contentsOfFile: examplesDirectory.appendingPathComponent("Info.plist").path)
    #expect(list.actions.count == 6)
    let enabled = list.enabledActions(selectedItems: [item("Notes.txt")])
    #expect(
        enabled.map(\.identifier) == [
            "com.example.action.publish", "com.example.action.rename", "com.example.action.preview",
        ])
}

@Test func userInteractionsLoadWithTheirSubInteractions() throws {
    let path = examplesDirectory.appendingPathComponent("Extension-Info.plist").path
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let interactions = try FileProviderUserInteraction.interactions(inPropertyListBytes: bytes)
    #expect(interactions.map(\.position) == ["1", "2"])
    #expect(interactions.flatMap(\.flattened).map(\.position) == ["1", "1.1", "2"])
    #expect(interactions[0].subInteractions.first?.title == "Share this item?")
    #expect(interactions[1].activationRule == #"action == "Trash" AND sourceItemsCount > 10"#)
    // The actions sit in NSExtensionAttributes in this file.
    let actions = try FileProviderActionList.actions(inPropertyListBytes: bytes)
    #expect(actions.map(\.identifier) == ["com.example.action.pin"])
    // A UI extension's Info.plist has no interactions.
    let uiPlist = try [UInt8](Data(contentsOf: examplesDirectory.appendingPathComponent("Info.plist")))
    #expect(try FileProviderUserInteraction.interactions(inPropertyListBytes: uiPlist).isEmpty)
}

@Test func malformedUserInteractionsAreClearErrors() {
    let text =
        "<plist version=\"1.0\"><dict><key>NSExtension</key><dict><key>NSFileProviderUserInteractions</key>"
        + "<array><dict><key>ActivationRule</key><integer>1</integer></dict></array></dict></dict></plist>"
    #expect {
        _ = try FileProviderUserInteraction.interactions(inPropertyListBytes: Array(text.utf8))
    } throws: { error in
        (error as? ActionListError)?.message == "interaction 1: ActivationRule is not a string"
    }
}
