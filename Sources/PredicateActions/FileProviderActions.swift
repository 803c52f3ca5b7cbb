import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Why an `Info.plist` could not be read as a list of File Provider actions.
public struct ActionListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for a developer.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// ``message``.
    public var description: String { message }
}

/// One context-menu action declared in `NSExtensionFileProviderActions` (SPEC §5.1).
public struct FileProviderAction: Hashable, Sendable {
    /// `NSExtensionFileProviderActionIdentifier`.
    public let identifier: String
    /// `NSExtensionFileProviderActionName` (the localisable title).
    public let name: String
    /// `NSExtensionFileProviderActionActivationRule`, or `nil` when the action has none (it is then
    /// never shown).
    public let activationRule: String?

    /// Creates an action.
    public init(identifier: String, name: String, activationRule: String?) {
        self.identifier = identifier
        self.name = name
        self.activationRule = activationRule
    }
}

/// Whether one action is shown for a selection, and why not when it is hidden by a problem.
public struct ActionOutcome: Hashable, Sendable {
    /// The action.
    public let action: FileProviderAction
    /// Whether the action is shown.
    public let isEnabled: Bool
    /// Why the action is hidden when its rule is missing, does not parse or failed to evaluate
    /// (an error is treated as false, SPEC §4.10.3); `nil` when the rule simply answered.
    public let problem: Diagnostic?
}

/// The File Provider actions of an extension, each rule parsed and compiled once, ready to be asked
/// which actions a selection enables.
///
/// ```swift
/// let actions = try FileProviderActionList(propertyList: Data(contentsOf: url))
/// let shown = actions.enabledActions(selectedItems: items).map(\.identifier)
/// ```
public struct FileProviderActionList: Sendable {
    /// The actions in declared order.
    public var actions: [FileProviderAction] { compiled.map(\.action) }

    private let compiled: [CompiledAction]

    private struct CompiledAction: Sendable {
        let action: FileProviderAction
        let program: Program?
        let problem: Diagnostic?
    }

    /// The activation-context type rules are bound against: `{fileproviderItems: [FileProviderItem]}`.
    public static let activationContextType = ValueType.record([
        FileProviderContext.selectionKey: .array(.object(SchemaReference(FileProviderItem.schema)))
    ])

    /// Compiles `actions` (a rule that does not parse or compile hides its action and is kept as
    /// its problem).
    public init(actions: [FileProviderAction]) {
        compiled = actions.map { action in
            guard let rule = action.activationRule else {
                let diagnostic = Diagnostic(
                    .ruleCheck("the action has no NSExtensionFileProviderActionActivationRule, so it is never shown"),
                    severity: .warning, range: SourceRange(0, 0), source: "")
                return CompiledAction(action: action, program: nil, problem: diagnostic)
            }
            do {
                let parsed = try PredicateParser.parsePredicate(rule)
                let bound = Binder.bind(parsed.predicate, selfType: Self.activationContextType)
                let program = try Compiler.compile(bound, source: rule)
                return CompiledAction(action: action, program: program, problem: nil)
            } catch let diagnostic as Diagnostic {
                return CompiledAction(action: action, program: nil, problem: diagnostic)
            } catch {
                let diagnostic = Diagnostic(
                    .evaluationFailed("the rule does not compile: \(error)"), range: SourceRange(0, rule.utf8.count),
                    source: rule)
                return CompiledAction(action: action, program: nil, problem: diagnostic)
            }
        }
    }

    /// Reads the actions from an `Info.plist` in XML or binary form.
    ///
    /// `NSExtensionFileProviderActions` is looked for anywhere under the top-level `NSExtension`
    /// dictionary (directly, or in `NSExtensionAttributes`).
    ///
    /// - Throws: ``ActionListError`` when the data is not a property list, has no `NSExtension`
    ///   dictionary or no actions array, or an action lacks its identifier or name.
    public init(propertyList data: Data) throws(ActionListError) {
        self.init(actions: try Self.actions(inPropertyList: data))
    }

    /// Reads the actions from the bytes of an `Info.plist` in XML or binary form.
    ///
    /// - Throws: ``ActionListError`` as ``init(propertyList:)`` does.
    public init(propertyListBytes bytes: [UInt8]) throws(ActionListError) {
        try self.init(propertyList: Data(bytes))
    }

    /// Reads the actions from the `Info.plist` at `path`.
    ///
    /// - Throws: ``ActionListError`` when the file cannot be read or is not a valid action list.
    public init(contentsOfFile path: String) throws(ActionListError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ActionListError("cannot read '\(path)'")
        }
        try self.init(propertyList: data)
    }

    /// The declared actions of an `Info.plist`, without compiling their rules.
    ///
    /// - Throws: ``ActionListError`` as ``init(propertyList:)`` does.
    public static func actions(inPropertyList data: Data) throws(ActionListError) -> [FileProviderAction] {
        let extensionDictionary = try extensionDictionary(inPropertyList: data)
        guard let list = find("NSExtensionFileProviderActions", in: extensionDictionary, depth: 0) else {
            throw ActionListError("no NSExtensionFileProviderActions under NSExtension")
        }
        guard let entries = list as? [Any] else {
            throw ActionListError("NSExtensionFileProviderActions is not an array")
        }
        var actions: [FileProviderAction] = []
        for (index, entry) in entries.enumerated() {
            guard let dictionary = entry as? [String: Any] else {
                throw ActionListError("action \(index + 1) is not a dictionary")
            }
            func string(_ key: String, required: Bool) throws(ActionListError) -> String? {
                guard let value = dictionary[key] else {
                    if required { throw ActionListError("action \(index + 1) has no \(key)") }
                    return nil
                }
                guard let text = value as? String else {
                    throw ActionListError("action \(index + 1): \(key) is not a string")
                }
                return text
            }
            let identifier = try string("NSExtensionFileProviderActionIdentifier", required: true) ?? ""
            let name = try string("NSExtensionFileProviderActionName", required: true) ?? ""
            let rule = try string("NSExtensionFileProviderActionActivationRule", required: false)
            actions.append(FileProviderAction(identifier: identifier, name: name, activationRule: rule))
        }
        return actions
    }

    /// The declared actions of an `Info.plist` given as bytes, without compiling their rules.
    ///
    /// - Throws: ``ActionListError`` as ``init(propertyList:)`` does.
    public static func actions(inPropertyListBytes bytes: [UInt8]) throws(ActionListError) -> [FileProviderAction] {
        try actions(inPropertyList: Data(bytes))
    }

    /// The top-level `NSExtension` dictionary of a property list.
    static func extensionDictionary(inPropertyList data: Data) throws(ActionListError) -> [String: Any] {
        let root: Any
        do throws(PropertyListError) {
            root = try PropertyListDocument(bytes: Array(data)).root.foundationValue
        } catch {
            throw ActionListError(error.description)
        }
        guard let top = root as? [String: Any] else {
            throw ActionListError("the property list is not a dictionary")
        }
        guard let extensionEntry = top["NSExtension"] else {
            throw ActionListError("the property list has no NSExtension dictionary")
        }
        guard let extensionDictionary = extensionEntry as? [String: Any] else {
            throw ActionListError("NSExtension is not a dictionary")
        }
        return extensionDictionary
    }

    /// The value of `key` in `dictionary` or a dictionary nested in it (breadth of keys sorted).
    static func find(_ key: String, in dictionary: [String: Any], depth: Int) -> Any? {
        if let found = dictionary[key] { return found }
        guard depth < 8 else { return nil }
        for name in dictionary.keys.sorted() {
            if let nested = dictionary[name] as? [String: Any], let found = find(key, in: nested, depth: depth + 1) {
                return found
            }
        }
        return nil
    }

    /// Whether each action is shown for `selectedItems`, in declared order.
    ///
    /// - Parameters:
    ///   - selectedItems: The selection.
    ///   - limits: How much work each rule may do; a rule over a huge selection (a million items)
    ///     may need more steps than the default, and then reports the limit it reached.
    public func outcomes(
        selectedItems: [FileProviderItem], limits: EvaluationLimits = EvaluationLimits()
    ) -> [ActionOutcome] {
        let context = FileProviderContext.activation(selectedItems: selectedItems)
        let environment = EvaluationEnvironment(limits: limits)
        return compiled.map { entry in
            guard let program = entry.program, let rule = entry.action.activationRule else {
                return ActionOutcome(action: entry.action, isEnabled: false, problem: entry.problem)
            }
            do throws(EvaluationError) {
                let result = try program.evaluate(on: context, environment: environment)
                return ActionOutcome(action: entry.action, isEnabled: result, problem: nil)
            } catch {
                return ActionOutcome(action: entry.action, isEnabled: false, problem: error.diagnostic(source: rule))
            }
        }
    }

    /// The actions `selectedItems` enable, in declared order. An action whose rule fails is hidden
    /// and `onProblem` hears why.
    public func enabledActions(
        selectedItems: [FileProviderItem], onProblem: (FileProviderAction, Diagnostic) -> Void = { _, _ in }
    ) -> [FileProviderAction] {
        var enabled: [FileProviderAction] = []
        for outcome in outcomes(selectedItems: selectedItems) {
            if outcome.isEnabled { enabled.append(outcome.action) }
            if let problem = outcome.problem { onProblem(outcome.action, problem) }
        }
        return enabled
    }
}
