import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// The File Provider item model (SPEC §5) as rules see it.
@Suite struct FileProviderTests {
    static func item(_ name: String, parent: String = FileProviderItemIdentifier.rootContainer) -> FileProviderItem {
        FileProviderItem(itemIdentifier: name, parentItemIdentifier: parent, filename: name)
    }

    static func evaluate(_ rule: String, on object: Value) throws -> Bool {
        try Interpreter().evaluate(try PredicateParser.parsePredicate(rule).predicate, on: object)
    }

    @Test(arguments: [
        ("isUploaded", "uploaded"), ("isTrashed", "trashed"), ("isDownloaded", "downloaded"),
        ("isDownloading", "downloading"), ("isUploading", "uploading"), ("isShared", "shared"),
        ("isSharedByCurrentUser", "sharedByCurrentUser"),
        ("isMostRecentVersionDownloaded", "mostRecentVersionDownloaded"),
    ])
    func booleanPropertiesAnswerToBothNames(_ name: String, _ alias: String) throws {
        let schema = FileProviderItem.schema
        let slot = try #require(schema.slot(forKey: name))
        #expect(schema.slot(forKey: alias) == slot)
        #expect(schema.fields[slot].type == .bool)
    }

    @Test func everyPropertyOfSpecSection52IsAKey() {
        let keys = [
            "itemIdentifier", "parentItemIdentifier", "filename", "contentType", "typeIdentifier", "typeAndCreator",
            "capabilities", "fileSystemFlags", "documentSize", "childItemCount", "creationDate",
            "contentModificationDate", "extendedAttributes", "lastUsedDate", "tagData", "favoriteRank", "trashed",
            "uploaded", "uploading", "uploadingError", "downloaded", "downloading", "downloadingError",
            "mostRecentVersionDownloaded", "shared", "sharedByCurrentUser", "ownerNameComponents",
            "mostRecentEditorNameComponents", "versionIdentifier", "itemVersion", "symlinkTargetPath", "userInfo",
            "inheritedUserInfo", "resolvedUserInfo", "contentPolicy",
        ]
        for key in keys { #expect(FileProviderItem.schema.slot(forKey: key) != nil, "\(key)") }
        #expect(FileProviderItem.schema.slot(forKey: "uploadded") == nil)
    }

    @Test func defaultsFollowSpec() {
        let plain = FileProviderTests.item("a")
        #expect(plain.value(forKey: "isUploaded") == .bool(true))
        #expect(plain.value(forKey: "isDownloaded") == .bool(true))
        #expect(plain.value(forKey: "isMostRecentVersionDownloaded") == .bool(true))
        #expect(plain.value(forKey: "isTrashed") == .bool(false))
        #expect(plain.value(forKey: "capabilities") == .int(0))
        #expect(plain.value(forKey: "documentSize") == .nil)
        #expect(plain.value(forKey: "userInfo") == .nil)
    }

    @Test func flagValuesFollowSpec() {
        #expect(FileProviderCapabilities.allowsRenaming.rawValue == 8)
        #expect(FileProviderCapabilities.allowsAll.rawValue == 63)
        #expect(FileProviderCapabilities.allowsExcludingFromSync.rawValue == 128)
        #expect(FileProviderFileSystemFlags.hidden.rawValue == 8)
        #expect(FileProviderContentPolicy.downloadEagerlyAndKeepDownloaded.rawValue == 3)
        #expect(FileProviderItemIdentifier.trashContainer == "NSFileProviderTrashContainerItemIdentifier")
    }

    /// SPEC §5.2's example: root → parent → child → grandchild.
    @Test func inheritedAndResolvedUserInfoFollowTheHeaderExample() throws {
        var parent = FileProviderTests.item("parent")
        parent.userInfo = ["a.inherited": .bool(true), "b.inherited": .bool(true)]
        var child = FileProviderTests.item("child", parent: "parent")
        child.userInfo = ["a.inherited": .bool(false), "c.inherited": .bool(false)]
        var grandchild = FileProviderTests.item("grandchild", parent: "child")
        grandchild.userInfo = [:]
        let items = FileProviderItem.resolvingInheritedUserInfo([parent, child, grandchild])
        let both: [String: Value] = [
            "a.inherited": .bool(false), "b.inherited": .bool(true), "c.inherited": .bool(false),
        ]
        #expect(items[0].inheritedUserInfo == [:])
        #expect(items[0].resolvedUserInfo == ["a.inherited": .bool(true), "b.inherited": .bool(true)])
        #expect(items[1].inheritedUserInfo == ["a.inherited": .bool(true), "b.inherited": .bool(true)])
        #expect(items[1].resolvedUserInfo == both)
        #expect(items[2].inheritedUserInfo == both)
        #expect(items[2].resolvedUserInfo == both)
        let context = FileProviderContext.activation(selectedItems: [items[2]])
        #expect(
            try FileProviderTests.evaluate(
                "SUBQUERY(fileproviderItems, $i, $i.inheritedUserInfo.\"b.inherited\" == YES).@count == 1", on: context)
        )
    }

    @Test func inheritanceSurvivesCyclesInParentLinks() {
        var a = FileProviderTests.item("a", parent: "b")
        a.userInfo = ["x.inherited": .int(1)]
        let b = FileProviderTests.item("b", parent: "a")
        let items = FileProviderItem.resolvingInheritedUserInfo([a, b])
        #expect(items.count == 2)
    }

    /// SPEC §5.1: Apple's documented rule misspells `isUploaded`; on a real item that is an
    /// unknown-key error (the action stays hidden), never a silent false.
    @Test func theDocumentedTypoIsAnUnknownKeyError() throws {
        let context = FileProviderContext.activation(selectedItems: [FileProviderTests.item("a")])
        let rule = try PredicateParser.parsePredicate(
            "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploadded == YES).@count > 0")
        var reported: [EvaluationError] = []
        #expect(!Interpreter().isSatisfied(rule.predicate, by: context) { reported.append($0) })
        let error = try #require(reported.first)
        #expect(error.kind == .unknownKey)
        #expect(error.message == "FileProviderItem has no key 'uploadded'; did you mean 'uploaded'?")
        #expect(error.range == SourceRange(47, 74))
    }

    @Test func userInteractionContexts() throws {
        var source = FileProviderTests.item("s")
        source.isShared = false
        var destination = FileProviderTests.item("d")
        destination.isShared = true
        destination.isSharedByCurrentUser = true
        let move = FileProviderContext.userInteraction(
            action: .move, sourceItem: source, destinationItem: destination, sourceItemsCount: 3)
        let rule =
            "sourceItem.isShared == NO AND destinationItem.isShared == YES AND destinationItem.isSharedByCurrentUser == YES"
        #expect(try FileProviderTests.evaluate(rule, on: move))
        #expect(try FileProviderTests.evaluate("action == 'Move' AND sourceItemsCount == 3", on: move))
        let trash = FileProviderContext.userInteraction(action: .trash, sourceItem: source, sourceItemsCount: 1)
        #expect(try !FileProviderTests.evaluate("destinationItem.isShared == NO", on: trash))
    }

    @Test func itemsFromProperties() throws {
        let item = try FileProviderItem(properties: [
            "filename": .string("a.jpg"), "contentType": .string("public.jpeg"), "isUploaded": .bool(false),
            "capabilities": .int(9), "creationDate": .int(10), "favoriteRank": .int(3),
        ])
        #expect(item.itemIdentifier == "a.jpg")
        #expect(item.contentType?.identifier == "public.jpeg")
        #expect(item.capabilities == [.allowsReading, .allowsRenaming])
        #expect(item.creationDate == 10)
        #expect(throws: FileProviderItemError.self) { try FileProviderItem(properties: ["uploadded": .bool(true)]) }
        #expect(throws: FileProviderItemError.self) { try FileProviderItem(properties: ["isUploaded": .string("yes")]) }
    }
}
