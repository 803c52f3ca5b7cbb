import PredicateValue

/// The objects File Provider rules are evaluated against (SPEC §5.1, §5.4).
public enum FileProviderContext {
    /// The key of the selection in an activation context. Spelled with a lower-case `p`: Apple's
    /// key; `fileProviderItems` silently never matches on a device.
    public static let selectionKey = "fileproviderItems"

    /// `SELF` for a context-menu action's activation rule: `{fileproviderItems: [items]}`.
    public static func activation(selectedItems: [FileProviderItem]) -> Value {
        .dictionary([selectionKey: .array(selectedItems.map { .object($0) })])
    }

    /// `SELF` for an `NSFileProviderUserInteractions` activation rule (SPEC §5.4). Keys that are
    /// absent for an action are left out, so they read as `nil`.
    public static func userInteraction(
        action: UserInteractionAction, sourceItem: FileProviderItem? = nil, destinationItem: FileProviderItem? = nil,
        sourceItemsCount: Int, domainUserInfo: [String: Value] = [:]
    ) -> Value {
        var context: [String: Value] = [
            "action": .string(action.rawValue),
            "sourceItemsCount": .int(Int64(sourceItemsCount)),
            "domainUserInfo": .dictionary(domainUserInfo),
        ]
        if let sourceItem { context["sourceItem"] = .object(sourceItem) }
        if let destinationItem { context["destinationItem"] = .object(destinationItem) }
        return .dictionary(context)
    }
}

/// The `action` of a user-interaction context.
public enum UserInteractionAction: String, Hashable, Sendable, CaseIterable {
    /// A move within the domain.
    case move = "Move"
    /// A move out of the domain.
    case moveOut = "MoveOut"
    /// A move into the domain.
    case moveIn = "MoveIn"
    /// A copy within the domain.
    case copy = "Copy"
    /// A copy out of the domain.
    case copyOut = "CopyOut"
    /// A copy into the domain.
    case copyIn = "CopyIn"
    /// Moving to the trash.
    case trash = "Trash"
    /// Deleting.
    case delete = "Delete"
    /// Renaming (macOS 11.3).
    case rename = "Rename"
    /// Creating an item (macOS 12).
    case create = "Create"
    /// Excluding from sync (macOS 12).
    case excludeFromSync = "ExcludeFromSync"
}
