import Foundation

/// One entry of `NSFileProviderUserInteractions` (SPEC §5.4): a rule evaluated against the
/// user-interaction context (`action`, `sourceItem`, `destinationItem`, `sourceItemsCount`,
/// `domainUserInfo`), the alert it shows, and its sub-interactions.
///
/// The dictionary keys read are `ActivationRule`, `Alert` (its `LocalizedTitle`) and
/// `SubInteractions`, as `NSFileProviderItem.h` describes them.
public struct FileProviderUserInteraction: Hashable, Sendable {
    /// Where the entry sits, for messages: `1`, `2`, `2.1` (sub-interaction 1 of entry 2), ….
    public let position: String
    /// `ActivationRule`, or `nil` when the entry has none.
    public let activationRule: String?
    /// The alert's `LocalizedTitle`, when given.
    public let title: String?
    /// `SubInteractions`, evaluated only when this rule matched.
    public let subInteractions: [FileProviderUserInteraction]

    /// Creates an entry.
    public init(
        position: String, activationRule: String?, title: String? = nil,
        subInteractions: [FileProviderUserInteraction] = []
    ) {
        self.position = position
        self.activationRule = activationRule
        self.title = title
        self.subInteractions = subInteractions
    }

    /// This entry and all its sub-interactions, depth first.
    public var flattened: [FileProviderUserInteraction] {
        [self] + subInteractions.flatMap(\.flattened)
    }

    /// The `NSFileProviderUserInteractions` of an `Info.plist` (XML or binary), found anywhere under
    /// `NSExtension`; an empty array when there are none.
    ///
    /// - Throws: ``ActionListError`` when the data is not a property list with an `NSExtension`
    ///   dictionary, or the interactions are not arrays of dictionaries with string rules.
    public static func interactions(
        inPropertyListBytes bytes: [UInt8]
    ) throws(ActionListError)
        -> [FileProviderUserInteraction]
    {
        let extensionDictionary = try FileProviderActionList.extensionDictionary(inPropertyList: Data(bytes))
        guard
            let list = FileProviderActionList.find("NSFileProviderUserInteractions", in: extensionDictionary, depth: 0)
        else { return [] }
        return try entries(list, prefix: "", depth: 0)
    }

    private static func entries(
        _ list: Any, prefix: String, depth: Int
    ) throws(ActionListError)
        -> [FileProviderUserInteraction]
    {
        let name = prefix.isEmpty ? "NSFileProviderUserInteractions" : "SubInteractions of interaction \(prefix)"
        guard let array = list as? [Any] else { throw ActionListError("\(name) is not an array") }
        guard depth < 16 else { throw ActionListError("\(name) are nested too deeply") }
        var result: [FileProviderUserInteraction] = []
        for (index, entry) in array.enumerated() {
            let position = prefix.isEmpty ? "\(index + 1)" : "\(prefix).\(index + 1)"
            guard let dictionary = entry as? [String: Any] else {
                throw ActionListError("interaction \(position) is not a dictionary")
            }
            var rule: String?
            if let value = dictionary["ActivationRule"] {
                guard let text = value as? String else {
                    throw ActionListError("interaction \(position): ActivationRule is not a string")
                }
                rule = text
            }
            let title = (dictionary["Alert"] as? [String: Any])?["LocalizedTitle"] as? String
            var children: [FileProviderUserInteraction] = []
            if let sub = dictionary["SubInteractions"] {
                children = try entries(sub, prefix: position, depth: depth + 1)
            }
            result.append(
                FileProviderUserInteraction(
                    position: position, activationRule: rule, title: title, subInteractions: children))
        }
        return result
    }
}
