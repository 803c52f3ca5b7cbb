import PredicateActions
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// A rule over a selection of items (`SELF` is `{key: [items]}`), such as a File Provider
/// action's activation rule, compiled once for `Item`; the selection is read in place.
///
/// ```swift
/// let rule = try ActivationRule("SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0")
/// let shown = rule.isEnabled(for: selectedItems)
/// ```
public struct SelectionRule<Item: KeyValueCoding>: Sendable {
    let compiled: CompiledRule
    /// The key the selection is under (`fileproviderItems` for activation rules).
    public let key: String

    /// The format string the rule was made from.
    public var format: String { compiled.format }
    /// The parser's warnings.
    public var warnings: [Diagnostic] { compiled.warnings }
    /// The compiled program.
    public var program: Program { compiled.program }

    /// Compiles `format` for selections of `Item` under `key`; arguments and variables as for
    /// `Rule.init(_:_:substitutionVariables:environment:options:)`.
    ///
    /// - Throws: A `Diagnostic` at the place the rule is wrong.
    public init(
        _ format: String, _ arguments: any ValueConvertible..., key: String = FileProviderContext.selectionKey,
        substitutionVariables: [String: any ValueConvertible] = [:],
        environment: EvaluationEnvironment = EvaluationEnvironment(), options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) {
        let elementType: ValueType = Item.sharedSchema.map { .object(SchemaReference($0)) } ?? .any
        compiled = try CompiledRule(
            format: format, arguments: arguments.map(\.predicateValue),
            variables: substitutionVariables.mapValues(\.predicateValue), selfType: .record([key: .array(elementType)]),
            schema: Item.sharedSchema,
            environment: environment, options: options)
        self.key = key
    }

    /// The rule's answer for `selection`.
    ///
    /// - Throws: The `EvaluationError` the rule raised (``diagnostic(for:)`` renders it).
    public func evaluate(selection: [Item]) throws(EvaluationError) -> Bool {
        try compiled.machines.withMachine { (machine) throws(EvaluationError) in
            try selection.withUnsafeBufferPointer { (items) throws(EvaluationError) in
                try machine.evaluate(selection: items, key: key)
            }
        }
    }

    /// Why the rule gives its answer for `selection` (the interpreter's context, items boxed).
    public func explain(selection: [Item]) -> Explanation {
        compiled.explain(.dictionary([key: .array(selection.map { .object($0) })]))
    }

    /// Whether the action is shown for `selection`, by Apple's policy: an error hides it.
    public func isEnabled(for selection: [Item]) -> Bool { (try? evaluate(selection: selection)) == true }

    /// An evaluation error as a diagnostic over the rule's text.
    public func diagnostic(for error: EvaluationError) -> Diagnostic { error.diagnostic(source: format) }
}

/// A File Provider context-menu action's activation rule over the selected items.
public typealias ActivationRule = SelectionRule<FileProviderItem>

extension RuleSet {
    /// Parses, prepares against `Item`'s schema and compiles `rules` into one program; rule `r`
    /// is bit `r` of an answer's `RuleSetAnswer.mask`.
    ///
    /// - Throws: `CompileError` when the rules together exceed what one program can address.
    public init<Item: KeyValueCoding>(_ rules: [String], for type: Item.Type) throws(CompileError) {
        try self.init(rules: rules, selfType: Item.sharedSchema.map { .object(SchemaReference($0)) })
    }

    /// Loads a rule set `serialized()` from rules prepared against `Item`'s schema.
    ///
    /// - Throws: `RuleSetLoadError` naming what is wrong.
    public init<Item: KeyValueCoding>(serialized bytes: [UInt8], for type: Item.Type) throws(RuleSetLoadError) {
        try self.init(serialized: bytes, schemas: Item.sharedSchema.map { [$0] } ?? [])
    }

    /// Every rule's answer for `item` in one pass (`RuleSetAnswer.mask`,
    /// `RuleSetAnswer.isSatisfied(_:)`, `RuleSetAnswer.problems`).
    public func evaluate<Item: KeyValueCoding>(with item: Item) -> RuleSetAnswer { evaluate(on: .object(item)) }
}
