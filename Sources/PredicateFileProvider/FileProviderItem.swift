import PredicateSemantics
import PredicateValue

/// An item as File Provider rules see it: every property of `NSFileProviderItem` under Apple's
/// key names, with the `is…`/plain aliases key-value coding allows (SPEC §5.2).
///
/// Optional protocol members that an item does not provide read as `nil`, except the Boolean and
/// bit-mask properties, which take the defaults SPEC §5.2 gives (uploaded, downloaded and
/// most-recent-version-downloaded default to true). Tests and tools should set what they rely on.
public struct FileProviderItem: Hashable, Sendable {
    /// `itemIdentifier`.
    public var itemIdentifier: String
    /// `parentItemIdentifier`.
    public var parentItemIdentifier: String
    /// `filename`, with its extension.
    public var filename: String
    /// `contentType`: a type object; rules read `contentType.identifier`.
    public var contentType: UniformType?
    /// `typeIdentifier` (iOS, deprecated): the type as a string.
    public var typeIdentifier: String?
    /// `typeAndCreator` (macOS): the OSType pair, opaque to rules.
    public var typeAndCreator: (type: UInt32, creator: UInt32)? {
        get { typeAndCreatorCodes.map { ($0.type, $0.creator) } }
        set { typeAndCreatorCodes = newValue.map { OSTypePair($0.type, $0.creator) } }
    }
    private var typeAndCreatorCodes: OSTypePair?
    /// `capabilities`.
    public var capabilities: FileProviderCapabilities
    /// `fileSystemFlags` (macOS 11), `nil` when the item does not provide them.
    public var fileSystemFlags: FileProviderFileSystemFlags?
    /// `documentSize` in bytes.
    public var documentSize: Int64?
    /// `childItemCount`, for folders.
    public var childItemCount: Int64?
    /// `creationDate`, in seconds since 2001-01-01.
    public var creationDate: Double?
    /// `contentModificationDate`, in seconds since 2001-01-01.
    public var contentModificationDate: Double?
    /// `extendedAttributes`: names to bytes.
    public var extendedAttributes: [String: [UInt8]]?
    /// `lastUsedDate`, in seconds since 2001-01-01.
    public var lastUsedDate: Double?
    /// `tagData`: the opaque tag blob.
    public var tagData: [UInt8]?
    /// `favoriteRank`.
    public var favoriteRank: UInt64?
    /// `isTrashed` / `trashed`.
    public var isTrashed: Bool
    /// `isUploaded` / `uploaded`.
    public var isUploaded: Bool
    /// `isUploading` / `uploading`.
    public var isUploading: Bool
    /// `uploadingError`.
    public var uploadingError: FileProviderError?
    /// `isDownloaded` / `downloaded`.
    public var isDownloaded: Bool
    /// `isDownloading` / `downloading`.
    public var isDownloading: Bool
    /// `downloadingError`.
    public var downloadingError: FileProviderError?
    /// `isMostRecentVersionDownloaded` / `mostRecentVersionDownloaded`.
    public var isMostRecentVersionDownloaded: Bool
    /// `isShared` / `shared`.
    public var isShared: Bool
    /// `isSharedByCurrentUser` / `sharedByCurrentUser`.
    public var isSharedByCurrentUser: Bool
    /// `ownerNameComponents`.
    public var ownerNameComponents: FileProviderNameComponents?
    /// `mostRecentEditorNameComponents`.
    public var mostRecentEditorNameComponents: FileProviderNameComponents?
    /// `versionIdentifier` (iOS, deprecated).
    public var versionIdentifier: [UInt8]?
    /// `itemVersion`.
    public var itemVersion: FileProviderItemVersion?
    /// `symlinkTargetPath`.
    public var symlinkTargetPath: String?
    /// `userInfo`: the provider's own keys, the main hook for custom rules.
    public var userInfo: [String: Value]?
    /// `inheritedUserInfo`: the `*.inherited` keys of the item's ancestors, nearest ancestor
    /// first. Set it directly, or compute it for a tree of items with
    /// ``FileProviderItem/resolvingInheritedUserInfo(_:)``.
    public var inheritedUserInfo: [String: Value]
    /// `contentPolicy` (macOS 13).
    public var contentPolicy: FileProviderContentPolicy

    /// Creates an item with the three required properties; everything else takes its default.
    public init(itemIdentifier: String, parentItemIdentifier: String, filename: String) {
        self.itemIdentifier = itemIdentifier
        self.parentItemIdentifier = parentItemIdentifier
        self.filename = filename
        capabilities = []
        isTrashed = false
        isUploaded = true
        isUploading = false
        isDownloaded = true
        isDownloading = false
        isMostRecentVersionDownloaded = true
        isShared = false
        isSharedByCurrentUser = false
        inheritedUserInfo = [:]
        contentPolicy = .inherited
    }

    /// `resolvedUserInfo`: ``inheritedUserInfo`` overlaid with the item's own `*.inherited` keys.
    public var resolvedUserInfo: [String: Value] {
        var resolved = inheritedUserInfo
        for (key, value) in userInfo ?? [:] where key.hasSuffix(".inherited") { resolved[key] = value }
        return resolved
    }

    /// The items with ``inheritedUserInfo`` computed from their ancestors among `items` (linked by
    /// `parentItemIdentifier`): each item inherits its parent's ``resolvedUserInfo``.
    public static func resolvingInheritedUserInfo(_ items: [FileProviderItem]) -> [FileProviderItem] {
        var byIdentifier: [String: FileProviderItem] = [:]
        for item in items { byIdentifier[item.itemIdentifier] = item }
        var resolved: [String: [String: Value]] = [:]
        func resolvedUserInfo(of identifier: String, depth: Int) -> [String: Value] {
            if let known = resolved[identifier] { return known }
            guard var item = byIdentifier[identifier], depth < items.count, item.parentItemIdentifier != identifier
            else { return [:] }
            item.inheritedUserInfo = resolvedUserInfo(of: item.parentItemIdentifier, depth: depth + 1)
            let result = item.resolvedUserInfo
            resolved[identifier] = result
            return result
        }
        return items.map { item in
            var copy = item
            copy.inheritedUserInfo = resolvedUserInfo(of: item.parentItemIdentifier, depth: 0)
            return copy
        }
    }
}

/// A `typeAndCreator` pair kept hashable.
private struct OSTypePair: Hashable, Sendable {
    let type: UInt32
    let creator: UInt32
    init(_ type: UInt32, _ creator: UInt32) {
        self.type = type
        self.creator = creator
    }
}

extension FileProviderItem: KeyValueCoding {
    /// The keys of an item, in slot order, with their types.
    public static let schema = Schema(
        typeName: "FileProviderItem",
        fields: [
            .init("itemIdentifier", .string),
            .init("parentItemIdentifier", .string),
            .init("filename", .string),
            .init("contentType", .optional(.object(SchemaReference(UniformType.schema)))),
            .init("typeIdentifier", .optional(.string)),
            .init("typeAndCreator", .optional(.dictionary(.integer))),
            .init("capabilities", .integer),
            .init("fileSystemFlags", .optional(.integer)),
            .init("documentSize", .optional(.integer)),
            .init("childItemCount", .optional(.integer)),
            .init("creationDate", .optional(.date)),
            .init("contentModificationDate", .optional(.date)),
            .init("extendedAttributes", .optional(.dictionary(.data))),
            .init("lastUsedDate", .optional(.date)),
            .init("tagData", .optional(.data)),
            .init("favoriteRank", .optional(.integer)),
            .init("isTrashed", .bool),
            .init("isUploaded", .bool),
            .init("isUploading", .bool),
            .init("uploadingError", .optional(.object(SchemaReference(FileProviderError.schema)))),
            .init("isDownloaded", .bool),
            .init("isDownloading", .bool),
            .init("downloadingError", .optional(.object(SchemaReference(FileProviderError.schema)))),
            .init("isMostRecentVersionDownloaded", .bool),
            .init("isShared", .bool),
            .init("isSharedByCurrentUser", .bool),
            .init("ownerNameComponents", .optional(.object(SchemaReference(FileProviderNameComponents.schema)))),
            .init(
                "mostRecentEditorNameComponents", .optional(.object(SchemaReference(FileProviderNameComponents.schema)))
            ),
            .init("versionIdentifier", .optional(.data)),
            .init("itemVersion", .optional(.object(SchemaReference(FileProviderItemVersion.schema)))),
            .init("symlinkTargetPath", .optional(.string)),
            .init("userInfo", .optional(.dictionary(.any))),
            .init("inheritedUserInfo", .dictionary(.any)),
            .init("resolvedUserInfo", .dictionary(.any)),
            .init("contentPolicy", .integer),
        ])

    /// ``FileProviderItem/schema``.
    public var schema: Schema { FileProviderItem.schema }

    /// Every item has ``schema``.
    public static var sharedSchema: Schema? { schema }

    /// The scalar fields stored in the item itself, by slot: each means what
    /// ``scalar(atSlot:of:)`` answers for its slot (a test checks every one).
    private static let storedScalars: [StoredScalar?] = {
        var fields = [StoredScalar?](repeating: nil, count: schema.fields.count)
        fields[6] = .int64(\FileProviderItem.capabilities.rawValue)
        fields[8] = .int64(\FileProviderItem.documentSize)
        fields[9] = .int64(\FileProviderItem.childItemCount)
        fields[10] = .date(secondsSinceReferenceDate: \FileProviderItem.creationDate)
        fields[11] = .date(secondsSinceReferenceDate: \FileProviderItem.contentModificationDate)
        fields[13] = .date(secondsSinceReferenceDate: \FileProviderItem.lastUsedDate)
        fields[15] = .uint64(\FileProviderItem.favoriteRank)
        fields[16] = .bool(\FileProviderItem.isTrashed)
        fields[17] = .bool(\FileProviderItem.isUploaded)
        fields[18] = .bool(\FileProviderItem.isUploading)
        fields[20] = .bool(\FileProviderItem.isDownloaded)
        fields[21] = .bool(\FileProviderItem.isDownloading)
        fields[23] = .bool(\FileProviderItem.isMostRecentVersionDownloaded)
        fields[24] = .bool(\FileProviderItem.isShared)
        fields[25] = .bool(\FileProviderItem.isSharedByCurrentUser)
        return fields
    }()

    /// Field `slot`'s place in the item, for the scalar fields stored in it.
    public static func storedScalar(atSlot slot: Int) -> StoredScalar? {
        slot >= 0 && slot < storedScalars.count ? storedScalars[slot] : nil
    }

    /// The string fields stored in the item itself, by slot: each means what
    /// ``value(atSlot:of:)`` answers for its slot (a test checks every one).
    private static let storedStrings: [StoredString?] = {
        var fields = [StoredString?](repeating: nil, count: schema.fields.count)
        fields[0] = .string(\FileProviderItem.itemIdentifier)
        fields[1] = .string(\FileProviderItem.parentItemIdentifier)
        fields[2] = .string(\FileProviderItem.filename)
        fields[4] = .string(\FileProviderItem.typeIdentifier)
        fields[30] = .string(\FileProviderItem.symlinkTargetPath)
        return fields
    }()

    /// Field `slot`'s place in the item, for the string fields stored in it.
    public static func storedString(atSlot slot: Int) -> StoredString? {
        slot >= 0 && slot < storedStrings.count ? storedStrings[slot] : nil
    }

    /// `contentType.identifier`: the identifier stored in the item's optional content type.
    public static func storedString(atSlot slot: Int, key: String) -> StoredString? {
        slot == 3 && key == "identifier" ? contentTypeIdentifier : nil
    }

    private static let contentTypeIdentifier = StoredString.string(
        \FileProviderItem.contentType, \UniformType.identifier)

    /// `userInfo` and `inheritedUserInfo`, stored in the item (`resolvedUserInfo` is computed).
    public static func storedDictionary(atSlot slot: Int) -> StoredDictionary? {
        switch slot {
        case 31: return userInfoField
        case 32: return inheritedUserInfoField
        default: return nil
        }
    }

    private static let userInfoField = StoredDictionary.dictionary(\FileProviderItem.userInfo)
    private static let inheritedUserInfoField = StoredDictionary.dictionary(\FileProviderItem.inheritedUserInfo)

    /// Every item has the one schema: its identity, computed once.
    private static let schemaIdentifier = ObjectIdentifier(schema)

    /// Reads field `slot` of each item in place.
    public static func forEachValue(
        atSlot slot: Int, of items: UnsafeBufferPointer<FileProviderItem>, _ body: (Value) -> Void
    ) {
        guard let base = items.baseAddress else { return }
        for index in items.indices { body(value(atSlot: slot, of: base + index)) }
    }

    /// The one schema's identity, without touching the item or retaining the schema.
    public static func schemaIdentity(of object: UnsafePointer<FileProviderItem>) -> ObjectIdentifier {
        schemaIdentifier
    }

    /// The value of the field at `slot`, boxed as rules see it (BOOL → bool, integers → int).
    ///
    /// Reads through ``value(atSlot:of:)``, the one table of fields.
    @inline(__always)
    public func value(atSlot slot: Int) -> Value {
        withUnsafePointer(to: self) { FileProviderItem.value(atSlot: slot, of: $0) }
    }

    /// Field `slot` of the item at `item` as a plain scalar (Booleans, numbers, dates and their
    /// absence), read in place; ``Scalar/other`` for the other fields. Means what
    /// ``value(atSlot:of:)`` answers for the same slot.
    @inline(__always)
    public static func scalar(atSlot slot: Int, of item: UnsafePointer<FileProviderItem>) -> Scalar {
        func optional(_ number: Int64?) -> Scalar { number.map(Scalar.int) ?? .nil }
        func date(_ seconds: Double?) -> Scalar { seconds.map { .date(secondsSinceReferenceDate: $0) } ?? .nil }
        switch slot {
        case 6: return .int(item.pointee.capabilities.rawValue)
        case 7: return optional(item.pointee.fileSystemFlags?.rawValue)
        case 8: return optional(item.pointee.documentSize)
        case 9: return optional(item.pointee.childItemCount)
        case 10: return date(item.pointee.creationDate)
        case 11: return date(item.pointee.contentModificationDate)
        case 13: return date(item.pointee.lastUsedDate)
        case 15: return item.pointee.favoriteRank.map(Scalar.uint) ?? .nil
        case 16: return .bool(item.pointee.isTrashed)
        case 17: return .bool(item.pointee.isUploaded)
        case 18: return .bool(item.pointee.isUploading)
        case 20: return .bool(item.pointee.isDownloaded)
        case 21: return .bool(item.pointee.isDownloading)
        case 23: return .bool(item.pointee.isMostRecentVersionDownloaded)
        case 24: return .bool(item.pointee.isShared)
        case 25: return .bool(item.pointee.isSharedByCurrentUser)
        case 34: return .int(item.pointee.contentPolicy.rawValue)
        default: return .other
        }
    }

    /// Field `slot` of the item at `item`, read in place: each case reads its one field through
    /// the pointer, so no copy of the whole item is made to read it.
    @inline(__always)
    public static func value(atSlot slot: Int, of item: UnsafePointer<FileProviderItem>) -> Value {
        switch slot {
        case 0: return .string(item.pointee.itemIdentifier)
        case 1: return .string(item.pointee.parentItemIdentifier)
        case 2: return .string(item.pointee.filename)
        case 3: return item.pointee.contentType.map { .object($0) } ?? .nil
        case 4: return item.pointee.typeIdentifier.map(Value.string) ?? .nil
        case 5:
            return item.pointee.typeAndCreatorCodes.map {
                .dictionary(["type": .int(Int64($0.type)), "creator": .int(Int64($0.creator))])
            } ?? .nil
        case 6: return .int(item.pointee.capabilities.rawValue)
        case 7: return item.pointee.fileSystemFlags.map { .int($0.rawValue) } ?? .nil
        case 8: return item.pointee.documentSize.map(Value.int) ?? .nil
        case 9: return item.pointee.childItemCount.map(Value.int) ?? .nil
        case 10: return item.pointee.creationDate.map { .date(secondsSinceReferenceDate: $0) } ?? .nil
        case 11: return item.pointee.contentModificationDate.map { .date(secondsSinceReferenceDate: $0) } ?? .nil
        case 12: return item.pointee.extendedAttributes.map { .dictionary($0.mapValues(Value.data)) } ?? .nil
        case 13: return item.pointee.lastUsedDate.map { .date(secondsSinceReferenceDate: $0) } ?? .nil
        case 14: return item.pointee.tagData.map(Value.data) ?? .nil
        case 15: return item.pointee.favoriteRank.map(Value.uint) ?? .nil
        case 16: return .bool(item.pointee.isTrashed)
        case 17: return .bool(item.pointee.isUploaded)
        case 18: return .bool(item.pointee.isUploading)
        case 19: return item.pointee.uploadingError.map { .object($0) } ?? .nil
        case 20: return .bool(item.pointee.isDownloaded)
        case 21: return .bool(item.pointee.isDownloading)
        case 22: return item.pointee.downloadingError.map { .object($0) } ?? .nil
        case 23: return .bool(item.pointee.isMostRecentVersionDownloaded)
        case 24: return .bool(item.pointee.isShared)
        case 25: return .bool(item.pointee.isSharedByCurrentUser)
        case 26: return item.pointee.ownerNameComponents.map { .object($0) } ?? .nil
        case 27: return item.pointee.mostRecentEditorNameComponents.map { .object($0) } ?? .nil
        case 28: return item.pointee.versionIdentifier.map(Value.data) ?? .nil
        case 29: return item.pointee.itemVersion.map { .object($0) } ?? .nil
        case 30: return item.pointee.symlinkTargetPath.map(Value.string) ?? .nil
        case 31: return item.pointee.userInfo.map(Value.dictionary) ?? .nil
        case 32: return .dictionary(item.pointee.inheritedUserInfo)
        case 33: return .dictionary(item.pointee.resolvedUserInfo)
        case 34: return .int(item.pointee.contentPolicy.rawValue)
        default: return .nil
        }
    }
}
