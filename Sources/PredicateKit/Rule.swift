import Dispatch
import PredicateBatch
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// A rule for items of type `Item`, from a format string: parsed, prepared against `Item`'s
/// schema and compiled once; `Sendable`, and cheap to evaluate from many threads at once.
///
/// ```swift
/// let rule = try Rule<FileProviderItem>("isUploaded == NO AND documentSize > %d", 1_000_000)
/// let pending = items.filter(rule)          // or rule.filter(items)
/// let one = try rule.evaluate(with: items[0])
/// ```
///
/// `Item` is a `KeyValueCoding` type (fields read in place, no copies) or `Value` (any
/// value: a dictionary from JSON, a `Codable` struct, a `[String: Any]`).
public struct Rule<Item>: Sendable {
    let compiled: CompiledRule
    let batch: BatchProgram

    /// The format string the rule was made from.
    public var format: String { compiled.format }
    /// The parser's warnings (`AND` and `OR` mixed without parentheses, ignored options, …).
    public var warnings: [Diagnostic] { compiled.warnings }
    /// The compiled program, for the lower-level engines and for serialising.
    public var program: Program { compiled.program }

    /// Collections with fewer items than this are filtered on the scalar VM in place on the
    /// calling thread; larger ones on all cores, on the batch engine or the VM in place,
    /// whichever decides the rule's key paths faster: the VM when the rule compares stored
    /// Booleans and numbers or a key of a stored dictionary, the batch engine when it compares
    /// strings, arrays or other key paths. Below it, starting threads (and building columns)
    /// costs more than the extra cores save (measured with `predicate-bench`'s `one_line_filter`
    /// engine; see README, Embedding).
    public static var batchThreshold: Int { 4096 }

    init(compiled: CompiledRule) {
        self.compiled = compiled
        batch = BatchProgram(compiled.program, environment: compiled.environment)
    }

    /// An evaluation error as a diagnostic over the rule's text: print its
    /// `rendered(colored:)` for `line:column`, the line and a caret.
    public func diagnostic(for error: EvaluationError) -> Diagnostic { error.diagnostic(source: format) }
}

extension Rule where Item: KeyValueCoding {
    /// Compiles `format` for `Item`, as `NSPredicate(format:_:)` parses it.
    ///
    /// - Parameters:
    ///   - format: The rule, in the format-string language.
    ///   - arguments: The values of `%@`, `%d`, `%f`, `%K` (a key) …, left to right.
    ///   - substitutionVariables: Values for `$name`s, fixed now (as
    ///     `withSubstitutionVariables(_:)` fixes them), so they run as fast as arguments.
    ///   - environment: Limits and registries for evaluation.
    ///   - options: Parser strictness and limits.
    /// - Throws: A `Diagnostic` at the place the rule is wrong.
    public init(
        _ format: String, _ arguments: any ValueConvertible...,
        substitutionVariables: [String: any ValueConvertible] = [:],
        environment: EvaluationEnvironment = EvaluationEnvironment(), options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) {
        try self.init(
            format: format, argumentArray: arguments.map(\.predicateValue),
            substitutionVariables: substitutionVariables.mapValues(\.predicateValue), environment: environment,
            options: options)
    }

    /// Compiles `format` for `Item` with its arguments in an array, as
    /// `NSPredicate(format:argumentArray:)` does; see `init(_:_:substitutionVariables:environment:options:)`.
    public init(
        format: String, argumentArray: [Value], substitutionVariables: [String: Value] = [:],
        environment: EvaluationEnvironment = EvaluationEnvironment(), options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) {
        let selfType: ValueType = Item.sharedSchema.map { .object(SchemaReference($0)) } ?? .any
        self.init(
            compiled: try CompiledRule(
                format: format, arguments: argumentArray, variables: substitutionVariables, selfType: selfType,
                schema: Item.sharedSchema,
                environment: environment, options: options))
    }

    /// Whether `item` satisfies the rule (`NSPredicate.evaluate(with:)`), reading it in place.
    ///
    /// - Throws: The `EvaluationError` the rule raised, at its place in ``format``
    ///   (``diagnostic(for:)`` renders it).
    public func evaluate(with item: Item) throws(EvaluationError) -> Bool {
        try compiled.machines.withMachine { (machine) throws(EvaluationError) in
            try withUnsafePointer(to: item) { (pointer) throws(EvaluationError) in try machine.evaluate(item: pointer) }
        }
    }

    /// Why the rule gives its answer for `item`: print
    /// `rule.explain(item).text(source: rule.format)`.
    public func explain(_ item: Item) -> Explanation { compiled.explain(.object(item)) }

    /// The items that satisfy the rule, in order. An item whose evaluation fails is left out, as
    /// an error hides an action; ``evaluate(_:)`` reports them. Arrays and array slices are read
    /// where they are; other sequences are copied into an array first.
    public func filter<Items: Sequence>(_ items: Items) -> [Item] where Items.Element == Item {
        let slice = items as? ArraySlice<Item> ?? (items as? [Item] ?? Array(items))[...]
        return matchingRows(slice).map { slice[slice.startIndex + $0] }
    }

    /// The positions of the items that satisfy the rule, in order, choosing the engine as
    /// ``filter(_:)->[Item]`` does: what to use over many large structs, whose copies cost more than
    /// deciding the rule (a `FileProviderItem` holds dozens of references).
    public func matchingIndices(in items: ArraySlice<Item>) -> [Int] {
        matchingRows(items).map { items.startIndex + $0 }
    }

    /// The positions of the items that satisfy the rule, in order (see
    /// the slice overload).
    public func matchingIndices(in items: [Item]) -> [Int] { matchingRows(items[...]) }

    /// Each item's answer, in order, and the items whose evaluation failed (their answer is
    /// `false`), from the engine ``filter(_:)->[Item]`` chooses.
    public func evaluate(_ items: [Item]) -> (answers: [Bool], failures: [ItemFailure]) {
        guard items.count >= Self.batchThreshold else {
            let (answers, failures) = compiled.machines.withMachine { machine in machine.evaluate(items: items) }
            return (answers, Array(failures))
        }
        guard prefersColumns else { return answersOnAllCores(items[...]) }
        let result = batchResult(items[...])
        var answers = [Bool](repeating: false, count: items.count)
        for row in result.matchingRows { answers[row] = true }
        return (answers, result.errors.map { ItemFailure(index: $0.row, error: $0.error) })
    }

    /// The batch engine over columns built for this rule, on all cores.
    private func batchResult(_ items: ArraySlice<Item>) -> BatchResult {
        batch.evaluate(ColumnBatch(items: items, keyPaths: batch.columnKeyPaths), threads: BatchProgram.allCores)
    }

    /// Whether the batch engine, over columns built for the rule, beats the scalar VM reading
    /// the items in place.
    ///
    /// The VM decides a Boolean or number that `Item` stores (``KeyValueCoding/storedScalar(atSlot:)``)
    /// by one typed load: a column of those costs as much to build as the VM spends deciding the
    /// rule. Other key paths (strings, a struct's string, arrays, keys of a dictionary `Item`
    /// stores) are decided faster by the batch engine: it reads stored strings where they lie,
    /// decides each distinct value of a coded column once, and loads a dictionary key
    /// (`userInfo.rank`) on all cores into a typed column for less than the VM's look-ups cost.
    /// So the batch engine is chosen when the rule reads such a key path.
    var prefersColumns: Bool {
        guard let schema = Item.sharedSchema else { return true }
        var needsKernels = false
        for path in batch.columnKeyPaths {
            guard case .field(let field)? = path.first, field.schema.schema === schema else {
                needsKernels = true
                continue
            }
            let type = ObjectIdentifier(Item.self)
            if path.count == 1, let stored = Item.storedScalar(atSlot: field.slot), stored.root == type { continue }
            needsKernels = true
        }
        return needsKernels
    }

    /// The rows (offsets from the slice's start) that satisfy the rule: on the scalar VM in
    /// place on this thread for fewer than ``batchThreshold`` items; else on all cores, on the
    /// batch engine when it ``prefersColumns``, else on the VM in place, a share of the items
    /// per core.
    func matchingRows(_ items: ArraySlice<Item>) -> [Int] {
        guard items.count >= Self.batchThreshold else {
            var answers = [Bool](repeating: false, count: items.count)
            compiled.machines.withMachine { machine in
                items.withUnsafeBufferPointer { buffer in
                    answers.withUnsafeMutableBufferPointer { out in _ = machine.evaluate(items: buffer, into: out) }
                }
            }
            return Self.positions(of: answers)
        }
        if prefersColumns { return batchResult(items).matchingRows }
        return Self.positions(of: answersOnAllCores(items).answers)
    }

    /// The positions of the true answers, in order.
    private static func positions(of answers: [Bool]) -> [Int] {
        answers.withUnsafeBufferPointer { answers in
            var count = 0
            for answer in answers where answer { count &+= 1 }
            var rows: [Int] = []
            rows.reserveCapacity(count)
            for index in answers.indices where answers[index] { rows.append(index) }
            return rows
        }
    }

    /// Each item's answer from the scalar VM, in place, the items split evenly across the cores,
    /// and the items whose evaluation failed, in order.
    private func answersOnAllCores(_ items: ArraySlice<Item>) -> (answers: [Bool], failures: [ItemFailure]) {
        var answers = [Bool](repeating: false, count: items.count)
        let parts = BatchProgram.allCores
        let share = (items.count + parts - 1) / parts
        var failures = [[ItemFailure]](repeating: [], count: parts)
        items.withUnsafeBufferPointer { buffer in
            answers.withUnsafeMutableBufferPointer { out in
                failures.withUnsafeMutableBufferPointer { failed in
                    // Each part reads and writes only its own range of the buffers, which outlive
                    // `concurrentPerform`.
                    nonisolated(unsafe) let source = buffer
                    nonisolated(unsafe) let target = out
                    nonisolated(unsafe) let failedParts = failed
                    DispatchQueue.concurrentPerform(iterations: parts) { part in
                        let range = min(part * share, source.count)..<min((part + 1) * share, source.count)
                        guard !range.isEmpty else { return }
                        let found = compiled.machines.withMachine { machine in
                            machine.evaluate(
                                items: UnsafeBufferPointer(rebasing: source[range]),
                                into: UnsafeMutableBufferPointer(rebasing: target[range]))
                        }
                        failedParts[part] = found.map {
                            ItemFailure(index: range.lowerBound + $0.index, error: $0.error)
                        }
                    }
                }
            }
        }
        return (answers, failures.flatMap { $0 })
    }
}

extension Rule where Item == Value {
    /// Compiles `format` for any value (`SELF` of no fixed type): dictionaries from JSON,
    /// `Value(encoding:)` of a `Codable` value, `Value(_:)` of a `[String: Any]`; see the
    /// initializer for `KeyValueCoding` items, `init(_:_:substitutionVariables:environment:options:)`.
    public init(
        _ format: String, _ arguments: any ValueConvertible...,
        substitutionVariables: [String: any ValueConvertible] = [:],
        environment: EvaluationEnvironment = EvaluationEnvironment(), options: ParseOptions = ParseOptions()
    ) throws(Diagnostic) {
        self.init(
            compiled: try CompiledRule(
                format: format, arguments: arguments.map(\.predicateValue),
                variables: substitutionVariables.mapValues(\.predicateValue), selfType: .any, schema: nil,
                environment: environment,
                options: options))
    }

    /// Whether `value` satisfies the rule.
    ///
    /// - Throws: The `EvaluationError` the rule raised, at its place in ``format``.
    public func evaluate(with value: Value) throws(EvaluationError) -> Bool {
        try compiled.machines.withMachine { (machine) throws(EvaluationError) in try machine.evaluate(on: value) }
    }

    /// Why the rule gives its answer for `value`.
    public func explain(_ value: Value) -> Explanation { compiled.explain(value) }

    /// Whether a `Codable` value satisfies the rule (dates stay dates: `Value(encoding:)`).
    ///
    /// - Throws: The encoder's error, or the rule's `EvaluationError`.
    public func evaluate(with value: some Encodable) throws -> Bool {
        try evaluate(with: Value(encoding: value))
    }

    /// Whether a Foundation dictionary satisfies the rule (`NSNumber` Booleans stay Booleans:
    /// `Value(_:)`).
    ///
    /// - Throws: `ValueConversionError` for a value of no predicate type, or the rule's
    ///   `EvaluationError`.
    public func evaluate(with dictionary: [String: Any]) throws -> Bool {
        try evaluate(with: Value(dictionary))
    }

    /// The values that satisfy the rule, in order (failed evaluations left out).
    public func filter<Values: Sequence>(_ values: Values) -> [Value] where Values.Element == Value {
        let rows = Array(values)
        guard rows.count >= Rule.batchThreshold else { return rows.filter { (try? evaluate(with: $0)) == true } }
        let result = batch.evaluate(rows, threads: BatchProgram.allCores)
        return result.matchingRows.map { rows[$0] }
    }
}

extension Sequence {
    /// The elements that satisfy `rule`, in order: ``Rule/filter(_:)->[Item]``.
    public func filter(_ rule: Rule<Element>) -> [Element] where Element: KeyValueCoding { rule.filter(self) }

    /// The values that satisfy `rule`, in order: ``Rule/filter(_:)->[Value]``.
    public func filter(_ rule: Rule<Value>) -> [Value] where Element == Value { rule.filter(self) }
}
