import PredicateFileProvider
import PredicateSyntax

/// Everything wrong with the File Provider declarations of one `Info.plist`, found in one pass
/// and each at the file's own line and column: XML that does not parse, missing or misspelt keys,
/// duplicate identifiers, interactions that show nothing, and every rule's findings.
///
/// Unlike ``FileProviderActionList``, which needs a usable list to evaluate, this keeps going
/// after a problem, so that one run reports them all.
///
/// ```swift
/// let check = InfoPlistCheck(propertyListBytes: Array(data))
/// for finding in check.findings { print(finding.location, finding.message) }
/// ```
public struct InfoPlistCheck: Sendable {
    /// One declared context-menu action and its findings.
    public struct Action: Hashable, Sendable {
        /// `NSExtensionFileProviderActionIdentifier`, when it is a string.
        public let identifier: String?
        /// `NSExtensionFileProviderActionName`, when it is a string.
        public let name: String?
        /// The activation rule, when it is a string.
        public let rule: String?
        /// Where the action's dictionary starts.
        public let location: PropertyListLocation
        /// The action's structural and rule findings, in file order.
        public let findings: [InfoPlistFinding]
    }

    /// One entry of `NSFileProviderUserInteractions` (sub-interactions are entries of their own).
    public struct Interaction: Hashable, Sendable {
        /// `1`, `2.1`, …, as ``FileProviderUserInteraction/position``.
        public let position: String
        /// The alert's `LocalizedTitle`.
        public let title: String?
        /// `ActivationRule`, when it is a string.
        public let rule: String?
        /// Where the entry's dictionary starts.
        public let location: PropertyListLocation
        /// The entry's structural and rule findings, in file order.
        public let findings: [InfoPlistFinding]
    }

    /// The actions, in declared order.
    public private(set) var actions: [Action] = []
    /// The user interactions, depth first.
    public private(set) var interactions: [Interaction] = []
    /// Findings about the file as a whole (it does not parse, has no `NSExtension`, …).
    public private(set) var fileFindings: [InfoPlistFinding] = []
    /// Whether the file declares File Provider actions or user interactions at all; a directory
    /// scan skips the `Info.plist` files that do not.
    public private(set) var declaresFileProviderRules = false

    /// Every finding of the file, in file order (structural findings before rule findings on the
    /// same line).
    public var findings: [InfoPlistFinding] {
        let all = fileFindings + actions.flatMap(\.findings) + interactions.flatMap(\.findings)
        return all.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.location.line ?? 0, lhs.element.location.column ?? 0, lhs.offset)
            let right = (rhs.element.location.line ?? 0, rhs.element.location.column ?? 0, rhs.offset)
            return left < right
        }.map(\.element)
    }

    /// Checks the bytes of an `Info.plist` (XML or binary).
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - activationChecker: The checker for action rules.
    ///   - interactionChecker: The checker for user-interaction rules.
    public init(
        propertyListBytes bytes: [UInt8], activationChecker: RuleChecker = RuleChecker(),
        interactionChecker: RuleChecker = RuleChecker(selfType: RuleChecker.fileProviderUserInteraction)
    ) {
        let document: PropertyListDocument
        do throws(PropertyListError) {
            document = try PropertyListDocument(bytes: bytes)
        } catch {
            let location = error.location ?? PropertyListLocation(line: nil, column: nil, keyPath: "")
            fileFindings = [InfoPlistFinding(.error, error.message, at: location, subject: nil)]
            declaresFileProviderRules = true
            return
        }
        var walk = InfoPlistWalk(document: document)
        let root = document.root
        guard let rootEntries = root.entries else {
            walk.report(.error, "the property list is \(root.kindName), not a dictionary", root.offset, "")
            fileFindings = walk.findings
            declaresFileProviderRules = true
            return
        }
        walk.checkKeys(rootEntries, known: ["NSExtension"], path: "")
        guard let extensionNode = root["NSExtension"], let extensionEntries = extensionNode.entries else {
            let message =
                root["NSExtension"] == nil
                ? "the property list has no NSExtension dictionary"
                : "NSExtension is \(root["NSExtension"]?.kindName ?? "missing"), not a dictionary"
            walk.report(.error, message, root["NSExtension"]?.offset ?? root.offset, "NSExtension")
            fileFindings = walk.findings
            return
        }
        walk.checkKeys(extensionEntries, known: InfoPlistKeys.extensionKeys, path: "NSExtension")
        if let attributes = extensionNode["NSExtensionAttributes"]?.entries {
            walk.checkKeys(
                attributes, known: InfoPlistKeys.extensionKeys, path: "NSExtension.NSExtensionAttributes")
        }
        let actionList = Self.find(InfoPlistKeys.actions, in: extensionNode, path: "NSExtension", depth: 0)
        let interactionList = Self.find(InfoPlistKeys.interactions, in: extensionNode, path: "NSExtension", depth: 0)
        declaresFileProviderRules = actionList != nil || interactionList != nil || !walk.findings.isEmpty
        if actionList == nil, interactionList == nil {
            walk.report(
                .error, "no \(InfoPlistKeys.actions) or \(InfoPlistKeys.interactions) under NSExtension",
                extensionNode.offset, "NSExtension")
        }
        fileFindings = walk.findings
        if let (list, path) = actionList {
            actions = ActionWalk.actions(list, path: path, document: document, checker: activationChecker)
        }
        if let (list, path) = interactionList {
            var interactionWalk = InteractionWalk(document: document, checker: interactionChecker)
            interactionWalk.walkList(list, path: path, prefix: "", depth: 0)
            interactions = interactionWalk.interactions
            fileFindings += interactionWalk.listFindings
        }
    }

    /// `key` in `node` or a dictionary nested in it (keys in file order), with its key path.
    static func find(
        _ key: String, in node: PropertyListNode, path: String, depth: Int
    ) -> (PropertyListNode, String)? {
        guard let entries = node.entries else { return nil }
        if let found = node[key] { return (found, path + "." + key) }
        guard depth < 8 else { return nil }
        for entry in entries {
            if let found = find(key, in: entry.value, path: path + "." + entry.key, depth: depth + 1) {
                return found
            }
        }
        return nil
    }
}

/// Reporting with positions, shared by the walks over the file, its actions and its interactions.
struct InfoPlistWalk {
    let document: PropertyListDocument
    var findings: [InfoPlistFinding] = []
    var subject: String?

    mutating func report(_ severity: Diagnostic.Severity, _ message: String, _ offset: Int?, _ keyPath: String) {
        findings.append(
            InfoPlistFinding(severity, message, at: document.location(offset, keyPath: keyPath), subject: subject))
    }

    /// Duplicate keys, and keys one or two edits from a documented one; returns the documented
    /// keys suggested, so that the missing-key finding for them is not reported a second time.
    @discardableResult
    mutating func checkKeys(_ entries: [PropertyListNode.Entry], known: [String], path: String) -> Set<String> {
        var suggested: Set<String> = []
        var seen: [String: Int?] = [:]
        for entry in entries {
            let keyPath = path.isEmpty ? entry.key : path + "." + entry.key
            if let first = seen[entry.key] {
                let earlier = document.location(first, keyPath: keyPath)
                let at = earlier.line == nil ? "" : " at \(earlier)"
                report(
                    .warning, "the key '\(entry.key)' appears twice in this dictionary (first\(at)); only one is kept",
                    entry.keyOffset, keyPath)
            } else {
                seen[entry.key] = entry.keyOffset
            }
            guard !known.contains(entry.key),
                let suggestion = DidYouMean.suggestion(for: entry.key, among: known, maximumDistance: 2),
                suggestion.count > 6, !entries.contains(where: { $0.key == suggestion })
            else { continue }
            report(
                .error, "unknown key '\(entry.key)'; did you mean '\(suggestion)'? Apple ignores the key as written",
                entry.keyOffset, keyPath)
            suggested.insert(suggestion)
        }
        return suggested
    }

    /// The findings in file order, for one declaration.
    var sortedFindings: [InfoPlistFinding] {
        findings.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.location.line ?? 0, lhs.element.location.column ?? 0, lhs.offset)
            let right = (rhs.element.location.line ?? 0, rhs.element.location.column ?? 0, rhs.offset)
            return left < right
        }.map(\.element)
    }

    /// The string value of `key` in an entry dictionary; reports a non-string.
    mutating func string(_ node: PropertyListNode, _ key: String, path: String) -> (String, PropertyListNode)? {
        guard let value = node[key] else { return nil }
        guard let text = value.string else {
            report(.error, "\(key) is \(value.kindName), not a string", value.offset, path + "." + key)
            return nil
        }
        return (text, value)
    }

    /// The checker's findings for `rule`, each at the file position of its first byte.
    mutating func ruleFindings(
        _ rule: String, node: PropertyListNode, keyPath: String, checker: RuleChecker
    ) {
        for finding in checker.check(rule) {
            let location = document.location(
                ofStringByte: finding.diagnostic.range.lowerBound, in: node, keyPath: keyPath)
            findings.append(
                InfoPlistFinding(
                    finding.severity, finding.message, at: location, subject: subject, rule: rule, ruleFinding: finding)
            )
        }
    }
}
