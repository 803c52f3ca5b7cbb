import PredicateValue

/// An `NSError` as rules read it: `uploadingError.code == -1009`.
public struct FileProviderError: Hashable, Sendable, KeyValueCoding {
    /// `domain`, for example `NSCocoaErrorDomain`.
    public var domain: String
    /// `code`.
    public var code: Int64
    /// `localizedDescription`.
    public var localizedDescription: String
    /// `userInfo`.
    public var userInfo: [String: Value]

    /// Creates an error.
    public init(domain: String, code: Int64, localizedDescription: String = "", userInfo: [String: Value] = [:]) {
        self.domain = domain
        self.code = code
        self.localizedDescription = localizedDescription
        self.userInfo = userInfo
    }

    /// The keys of an error.
    public static let schema = Schema(
        typeName: "NSError",
        fields: [
            .init("domain", .string), .init("code", .integer), .init("localizedDescription", .string),
            .init("userInfo", .dictionary(.any)),
        ])

    /// ``FileProviderError/schema``.
    public var schema: Schema { FileProviderError.schema }

    /// The value of the field at `slot`.
    public func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(domain)
        case 1: return .int(code)
        case 2: return .string(localizedDescription)
        case 3: return .dictionary(userInfo)
        default: return .nil
        }
    }
}

/// `NSPersonNameComponents`, for `ownerNameComponents` and `mostRecentEditorNameComponents`.
public struct FileProviderNameComponents: Hashable, Sendable, KeyValueCoding {
    /// `givenName`.
    public var givenName: String?
    /// `familyName`.
    public var familyName: String?
    /// `middleName`.
    public var middleName: String?
    /// `namePrefix`.
    public var namePrefix: String?
    /// `nameSuffix`.
    public var nameSuffix: String?
    /// `nickname`.
    public var nickname: String?

    /// Creates name components.
    public init(
        givenName: String? = nil, familyName: String? = nil, middleName: String? = nil, namePrefix: String? = nil,
        nameSuffix: String? = nil, nickname: String? = nil
    ) {
        self.givenName = givenName
        self.familyName = familyName
        self.middleName = middleName
        self.namePrefix = namePrefix
        self.nameSuffix = nameSuffix
        self.nickname = nickname
    }

    /// The keys of name components (`phoneticRepresentation` is always nil here).
    public static let schema = Schema(
        typeName: "NSPersonNameComponents",
        fields: [
            "givenName", "familyName", "middleName", "namePrefix", "nameSuffix", "nickname", "phoneticRepresentation",
        ].map { Schema.Field($0, .optional(.string)) })

    /// ``FileProviderNameComponents/schema``.
    public var schema: Schema { FileProviderNameComponents.schema }

    /// The value of the field at `slot`.
    public func value(atSlot slot: Int) -> Value {
        let fields = [givenName, familyName, middleName, namePrefix, nameSuffix, nickname]
        guard slot < fields.count, let text = fields[slot] else { return .nil }
        return .string(text)
    }
}

/// `NSFileProviderItemVersion`: opaque content and metadata version blobs.
public struct FileProviderItemVersion: Hashable, Sendable, KeyValueCoding {
    /// `contentVersion`.
    public var contentVersion: [UInt8]
    /// `metadataVersion`.
    public var metadataVersion: [UInt8]

    /// Creates a version.
    public init(contentVersion: [UInt8], metadataVersion: [UInt8]) {
        self.contentVersion = contentVersion
        self.metadataVersion = metadataVersion
    }

    /// The keys of a version.
    public static let schema = Schema(
        typeName: "NSFileProviderItemVersion",
        fields: [.init("contentVersion", .data), .init("metadataVersion", .data)])

    /// ``FileProviderItemVersion/schema``.
    public var schema: Schema { FileProviderItemVersion.schema }

    /// The value of the field at `slot`.
    public func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .data(contentVersion)
        case 1: return .data(metadataVersion)
        default: return .nil
        }
    }
}
