import PredicateSyntax

/// The actions of `NSExtensionFileProviderActions`, each with its structural and rule findings.
enum ActionWalk {
    static func actions(
        _ list: PropertyListNode, path: String, document: PropertyListDocument, checker: RuleChecker
    ) -> [InfoPlistCheck.Action] {
        guard let elements = list.elements else {
            var walk = InfoPlistWalk(document: document)
            walk.report(.error, "\(InfoPlistKeys.actions) is \(list.kindName), not an array", list.offset, path)
            return [
                InfoPlistCheck.Action(
                    identifier: nil, name: nil, rule: nil, location: document.location(list.offset, keyPath: path),
                    findings: walk.sortedFindings)
            ]
        }
        var actions: [InfoPlistCheck.Action] = []
        var identifiers: [String: (index: Int, location: PropertyListLocation)] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path)[\(index)]"
            var walk = InfoPlistWalk(document: document)
            let location = document.location(element.offset, keyPath: elementPath)
            guard let entries = element.entries else {
                walk.subject = "action \(index + 1)"
                walk.report(
                    .error, "action \(index + 1) is \(element.kindName), not a dictionary", element.offset, elementPath)
                actions.append(
                    InfoPlistCheck.Action(
                        identifier: nil, name: nil, rule: nil, location: location, findings: walk.sortedFindings))
                continue
            }
            let identifier = element[InfoPlistKeys.actionIdentifier]?.string
            walk.subject = identifier.map { "action '\($0)'" } ?? "action \(index + 1)"
            let misspelt = walk.checkKeys(entries, known: InfoPlistKeys.action, path: elementPath)
            let identifierValue = walk.string(element, InfoPlistKeys.actionIdentifier, path: elementPath)
            let name = walk.string(element, InfoPlistKeys.actionName, path: elementPath)
            let rule = walk.string(element, InfoPlistKeys.actionRule, path: elementPath)
            if element[InfoPlistKeys.actionIdentifier] == nil, !misspelt.contains(InfoPlistKeys.actionIdentifier) {
                walk.report(
                    .error, "action \(index + 1) has no \(InfoPlistKeys.actionIdentifier)", element.offset, elementPath)
            } else if let (text, node) = identifierValue {
                if text.isEmpty {
                    walk.report(.error, "the action identifier is empty", node.offset, elementPath)
                } else if let earlier = identifiers[text] {
                    let at = earlier.location.line == nil ? earlier.location.keyPath : "\(earlier.location)"
                    walk.report(
                        .error,
                        "duplicate action identifier '\(text)': action \(earlier.index + 1) (at \(at)) already uses it",
                        node.offset, elementPath + "." + InfoPlistKeys.actionIdentifier)
                } else {
                    identifiers[text] = (index, document.location(node.offset, keyPath: elementPath))
                }
            }
            if element[InfoPlistKeys.actionName] == nil, !misspelt.contains(InfoPlistKeys.actionName) {
                walk.report(
                    .error,
                    "\(walk.subject ?? "the action") has no \(InfoPlistKeys.actionName), so its menu item "
                        + "has no title", element.offset, elementPath)
            }
            let rulePath = elementPath + "." + InfoPlistKeys.actionRule
            if element[InfoPlistKeys.actionRule] == nil, !misspelt.contains(InfoPlistKeys.actionRule) {
                walk.report(
                    .error, "no \(InfoPlistKeys.actionRule), so the action is never shown", element.offset, elementPath)
            } else if let (text, node) = rule {
                walk.ruleFindings(text, node: node, keyPath: rulePath, checker: checker)
            }
            actions.append(
                InfoPlistCheck.Action(
                    identifier: identifier, name: name?.0, rule: rule?.0, location: location,
                    findings: walk.sortedFindings))
        }
        return actions
    }
}

/// The entries of `NSFileProviderUserInteractions` and their sub-interactions.
struct InteractionWalk {
    let document: PropertyListDocument
    let checker: RuleChecker
    var interactions: [InfoPlistCheck.Interaction] = []
    /// Findings about a list itself (not an array, nested too deeply).
    var listFindings: [InfoPlistFinding] = []

    init(document: PropertyListDocument, checker: RuleChecker) {
        self.document = document
        self.checker = checker
    }

    mutating func walkList(_ list: PropertyListNode, path: String, prefix: String, depth: Int) {
        var walk = InfoPlistWalk(document: document)
        let name = prefix.isEmpty ? InfoPlistKeys.interactions : "SubInteractions of interaction \(prefix)"
        guard let elements = list.elements else {
            walk.report(.error, "\(name) is \(list.kindName), not an array", list.offset, path)
            listFindings += walk.findings
            return
        }
        guard depth < 16 else {
            walk.report(.error, "\(name) are nested too deeply", list.offset, path)
            listFindings += walk.findings
            return
        }
        for (index, element) in elements.enumerated() {
            let position = prefix.isEmpty ? "\(index + 1)" : "\(prefix).\(index + 1)"
            let elementPath = "\(path)[\(index)]"
            var walk = InfoPlistWalk(document: document)
            walk.subject = "interaction \(position)"
            let location = document.location(element.offset, keyPath: elementPath)
            guard let entries = element.entries else {
                walk.report(
                    .error, "interaction \(position) is \(element.kindName), not a dictionary", element.offset,
                    elementPath)
                interactions.append(
                    InfoPlistCheck.Interaction(
                        position: position, title: nil, rule: nil, location: location, findings: walk.sortedFindings))
                continue
            }
            let misspelt = walk.checkKeys(entries, known: InfoPlistKeys.interaction, path: elementPath)
            let rule = walk.string(element, InfoPlistKeys.interactionRule, path: elementPath)
            var title: String?
            if let alert = element[InfoPlistKeys.alert] {
                let alertPath = elementPath + "." + InfoPlistKeys.alert
                if let alertEntries = alert.entries {
                    walk.checkKeys(alertEntries, known: InfoPlistKeys.alertKeys, path: alertPath)
                    title = walk.string(alert, InfoPlistKeys.localizedTitle, path: alertPath)?.0
                    if alert[InfoPlistKeys.localizedTitle] == nil {
                        walk.report(
                            .warning, "the Alert has no \(InfoPlistKeys.localizedTitle)", alert.offset, alertPath)
                    }
                } else {
                    walk.report(.error, "Alert is \(alert.kindName), not a dictionary", alert.offset, alertPath)
                }
            }
            if element[InfoPlistKeys.interactionRule] == nil, !misspelt.contains(InfoPlistKeys.interactionRule) {
                walk.report(
                    .error, "interaction \(position) has no \(InfoPlistKeys.interactionRule), so it never applies",
                    element.offset, elementPath)
            } else if let (text, node) = rule {
                walk.ruleFindings(
                    text, node: node, keyPath: elementPath + "." + InfoPlistKeys.interactionRule, checker: checker)
            }
            if element[InfoPlistKeys.alert] == nil, element[InfoPlistKeys.subInteractions] == nil {
                walk.report(
                    .error,
                    "interaction \(position) has neither Alert nor SubInteractions: when its rule matches, "
                        + "nothing is shown", element.offset, elementPath)
            }
            interactions.append(
                InfoPlistCheck.Interaction(
                    position: position, title: title, rule: rule?.0, location: location, findings: walk.sortedFindings))
            if let sub = element[InfoPlistKeys.subInteractions] {
                walkList(
                    sub, path: elementPath + "." + InfoPlistKeys.subInteractions, prefix: position, depth: depth + 1)
            }
        }
    }
}
