import PredicateSemantics
import PredicateValue

/// Why a dictionary of properties could not become a ``FileProviderItem``.
public struct FileProviderItemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The property at fault.
    public let key: String
    /// What is wrong with it.
    public let message: String

    /// `key: message`.
    public var description: String { "\(key): \(message)" }
}

extension FileProviderItem {
    /// An item from its properties under Apple's key names or their aliases, for example decoded
    /// from JSON: `{"itemIdentifier": "1", "filename": "a.txt", "isUploaded": false,
    /// "contentType": "public.plain-text", "userInfo": {"rank": 2}}`.
    ///
    /// `contentType` is given as its identifier string. Dates are dates, ISO 8601 strings, or
    /// numbers of seconds since 2001-01-01. `capabilities` is a bit mask, a capability name
    /// (`allowsRenaming`) or an array of them. `parentItemIdentifier` defaults to the root container, `itemIdentifier` to
    /// the filename. Unknown keys and values of the wrong type are errors, so a typo in a test
    /// fixture cannot silently become a default.
    ///
    /// - Throws: ``FileProviderItemError`` naming the first bad property.
    public init(properties: [String: Value]) throws(FileProviderItemError) {
        let filename = try Self.string(properties["filename"], "filename") ?? ""
        self.init(
            itemIdentifier: try Self.string(properties["itemIdentifier"], "itemIdentifier") ?? filename,
            parentItemIdentifier: try Self.string(properties["parentItemIdentifier"], "parentItemIdentifier")
                ?? FileProviderItemIdentifier.rootContainer,
            filename: filename)
        for key in properties.keys.sorted() {
            guard let value = properties[key], value != .nil, value != .null else { continue }
            guard let slot = FileProviderItem.schema.slot(forKey: key) else {
                let suggestion = DidYouMean.suggestion(for: key, among: FileProviderItem.schema.keys)
                throw FileProviderItemError(
                    key: key,
                    message: "not a property of a File Provider item"
                        + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
            }
            try set(slot: slot, key: key, to: value)
        }
    }

    private mutating func set(slot: Int, key: String, to value: Value) throws(FileProviderItemError) {
        switch slot {
        case 0, 1, 2: break
        case 3: contentType = UniformType(try Self.string(value, key) ?? "")
        case 4: typeIdentifier = try Self.string(value, key)
        case 5:
            guard case .dictionary(let pair) = value else {
                throw Self.wrongType(key, "a dictionary {type, creator}", value)
            }
            typeAndCreator = (
                UInt32(truncatingIfNeeded: try Self.integer(pair["type"] ?? .int(0), key)),
                UInt32(truncatingIfNeeded: try Self.integer(pair["creator"] ?? .int(0), key))
            )
        case 6: capabilities = try Self.capabilities(value, key)
        case 7: fileSystemFlags = FileProviderFileSystemFlags(rawValue: try Self.integer(value, key))
        case 8: documentSize = try Self.integer(value, key)
        case 9: childItemCount = try Self.integer(value, key)
        case 10: creationDate = try Self.date(value, key)
        case 11: contentModificationDate = try Self.date(value, key)
        case 12:
            guard case .dictionary(let attributes) = value else { throw Self.wrongType(key, "a dictionary", value) }
            var bytes: [String: [UInt8]] = [:]
            for (name, attribute) in attributes { bytes[name] = try Self.data(attribute, key) }
            extendedAttributes = bytes
        case 13: lastUsedDate = try Self.date(value, key)
        case 14: tagData = try Self.data(value, key)
        case 15:
            switch value {
            case .uint(let rank): favoriteRank = rank
            case .int(let rank) where rank >= 0: favoriteRank = UInt64(rank)
            default: throw Self.wrongType(key, "a non-negative integer", value)
            }
        case 16: isTrashed = try Self.bool(value, key)
        case 17: isUploaded = try Self.bool(value, key)
        case 18: isUploading = try Self.bool(value, key)
        case 19: uploadingError = try Self.error(value, key)
        case 20: isDownloaded = try Self.bool(value, key)
        case 21: isDownloading = try Self.bool(value, key)
        case 22: downloadingError = try Self.error(value, key)
        case 23: isMostRecentVersionDownloaded = try Self.bool(value, key)
        case 24: isShared = try Self.bool(value, key)
        case 25: isSharedByCurrentUser = try Self.bool(value, key)
        case 26: ownerNameComponents = try Self.name(value, key)
        case 27: mostRecentEditorNameComponents = try Self.name(value, key)
        case 28: versionIdentifier = try Self.data(value, key)
        case 29:
            guard case .dictionary(let version) = value else { throw Self.wrongType(key, "a dictionary", value) }
            itemVersion = FileProviderItemVersion(
                contentVersion: try Self.data(version["contentVersion"] ?? .data([]), key),
                metadataVersion: try Self.data(version["metadataVersion"] ?? .data([]), key))
        case 30: symlinkTargetPath = try Self.string(value, key)
        case 31, 32:
            guard case .dictionary(let entries) = value else { throw Self.wrongType(key, "a dictionary", value) }
            if slot == 31 { userInfo = entries } else { inheritedUserInfo = entries }
        case 33:
            throw FileProviderItemError(key: key, message: "is computed from inheritedUserInfo and userInfo; set those")
        default:
            let raw = try Self.integer(value, key)
            guard let policy = FileProviderContentPolicy(rawValue: raw) else {
                throw FileProviderItemError(key: key, message: "\(raw) is not a content policy (0 to 3)")
            }
            contentPolicy = policy
        }
    }

    // MARK: - Conversions

    private static func wrongType(_ key: String, _ expected: String, _ value: Value) -> FileProviderItemError {
        FileProviderItemError(key: key, message: "needs \(expected), got \(ValueComparison.describe(value))")
    }

    private static func string(_ value: Value?, _ key: String) throws(FileProviderItemError) -> String? {
        guard let value, value != .nil, value != .null else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    private static func integer(_ value: Value, _ key: String) throws(FileProviderItemError) -> Int64 {
        switch value {
        case .int(let number): return number
        case .uint(let number) where number <= UInt64(Int64.max): return Int64(number)
        case .double(let number) where number == number.rounded() && Swift.abs(number) < 0x1p63: return Int64(number)
        default: throw wrongType(key, "an integer", value)
        }
    }

    private static func bool(_ value: Value, _ key: String) throws(FileProviderItemError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .int(let number) where number == 0 || number == 1: return number == 1
        default: throw wrongType(key, "a boolean", value)
        }
    }

    private static func date(_ value: Value, _ key: String) throws(FileProviderItemError) -> Double {
        switch value {
        case .date(let seconds): return seconds
        case .int(let seconds): return Double(seconds)
        case .uint(let seconds): return Double(seconds)
        case .double(let seconds): return seconds
        case .string(let text):
            guard let seconds = ISO8601Date.seconds(text) else {
                throw FileProviderItemError(
                    key: key, message: "'\(text)' is not an ISO 8601 date such as 2026-12-02 or 2026-12-02T09:30:00Z")
            }
            return seconds
        default: throw wrongType(key, "a date (an ISO 8601 string, or a number of seconds since 2001-01-01)", value)
        }
    }

    /// The capability names items may give instead of the bit mask, with their bits (Apple's
    /// `NSFileProviderItemCapabilities` names).
    public static let capabilityNames: [(name: String, bits: FileProviderCapabilities)] = [
        ("allowsReading", .allowsReading), ("allowsContentEnumerating", .allowsContentEnumerating),
        ("allowsWriting", .allowsWriting), ("allowsAddingSubItems", .allowsAddingSubItems),
        ("allowsReparenting", .allowsReparenting), ("allowsRenaming", .allowsRenaming),
        ("allowsTrashing", .allowsTrashing), ("allowsDeleting", .allowsDeleting), ("allowsEvicting", .allowsEvicting),
        ("allowsExcludingFromSync", .allowsExcludingFromSync), ("allowsAll", .allowsAll),
    ]

    /// A bit mask, a capability name, or an array of names and masks.
    private static func capabilities(
        _ value: Value, _ key: String
    ) throws(FileProviderItemError) -> FileProviderCapabilities {
        switch value {
        case .string(let name):
            guard let bits = capabilityNames.first(where: { $0.name == name })?.bits else {
                // Apple's names all start with `allows`: `reading` and `Writing` mean those.
                let prefixed = "allows" + name.prefix(1).uppercased() + name.dropFirst()
                let suggestion =
                    capabilityNames.first { $0.name.lowercased() == prefixed.lowercased() }?.name
                    ?? DidYouMean.suggestion(for: name, among: capabilityNames.map(\.name))
                throw FileProviderItemError(
                    key: key,
                    message: "'\(name)' is not a capability" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
            }
            return bits
        case .array(let elements):
            var union: FileProviderCapabilities = []
            for element in elements { union.formUnion(try capabilities(element, key)) }
            return union
        default:
            return FileProviderCapabilities(rawValue: try integer(value, key))
        }
    }

    private static func data(_ value: Value, _ key: String) throws(FileProviderItemError) -> [UInt8] {
        switch value {
        case .data(let bytes): return bytes
        case .string(let text): return Array(text.utf8)
        case .array(let elements):
            var bytes: [UInt8] = []
            for element in elements {
                guard case .int(let byte) = element, (0...255).contains(byte) else {
                    throw wrongType(key, "bytes (integers from 0 to 255)", element)
                }
                bytes.append(UInt8(byte))
            }
            return bytes
        default: throw wrongType(key, "data (a string or an array of bytes)", value)
        }
    }

    private static func error(_ value: Value, _ key: String) throws(FileProviderItemError) -> FileProviderError {
        guard case .dictionary(let entries) = value else { throw wrongType(key, "a dictionary {domain, code}", value) }
        var userInfo: [String: Value] = [:]
        if case .dictionary(let info) = entries["userInfo"] ?? .nil { userInfo = info }
        return FileProviderError(
            domain: try string(entries["domain"], key) ?? "",
            code: try integer(entries["code"] ?? .int(0), key),
            localizedDescription: try string(entries["localizedDescription"], key) ?? "",
            userInfo: userInfo)
    }

    private static func name(_ value: Value, _ key: String) throws(FileProviderItemError) -> FileProviderNameComponents
    {
        guard case .dictionary(let entries) = value else { throw wrongType(key, "a dictionary of name parts", value) }
        return FileProviderNameComponents(
            givenName: try string(entries["givenName"], key), familyName: try string(entries["familyName"], key),
            middleName: try string(entries["middleName"], key), namePrefix: try string(entries["namePrefix"], key),
            nameSuffix: try string(entries["nameSuffix"], key), nickname: try string(entries["nickname"], key))
    }
}
