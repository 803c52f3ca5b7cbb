/// The keys Apple documents for File Provider declarations, so that a near miss gets a
/// did-you-mean. A key far from all of them is left alone: other extension points and tools add
/// keys of their own.
enum InfoPlistKeys {
    static let actions = "NSExtensionFileProviderActions"
    static let interactions = "NSFileProviderUserInteractions"
    static let actionIdentifier = "NSExtensionFileProviderActionIdentifier"
    static let actionName = "NSExtensionFileProviderActionName"
    static let actionRule = "NSExtensionFileProviderActionActivationRule"
    static let interactionRule = "ActivationRule"
    static let alert = "Alert"
    static let subInteractions = "SubInteractions"
    static let localizedTitle = "LocalizedTitle"

    /// Keys of one action dictionary.
    static let action = [actionIdentifier, actionName, actionRule]

    /// Keys of `NSExtension` and `NSExtensionAttributes` that concern File Provider extensions.
    static let extensionKeys = [
        "NSExtensionPointIdentifier", "NSExtensionPrincipalClass", "NSExtensionAttributes", actions, interactions,
        "NSExtensionFileProviderDocumentGroup", "NSExtensionFileProviderSupportsEnumeration",
        "NSExtensionFileProviderSupportsPickingFolders", "NSExtensionMainStoryboard",
    ]

    /// Keys of one user-interaction dictionary.
    static let interaction = [interactionRule, alert, subInteractions]

    /// Keys of an interaction's `Alert`.
    static let alertKeys = [localizedTitle, "LocalizedSubTitle", "LocalizedRecoveryOptions", "RecoveryOptions"]
}
