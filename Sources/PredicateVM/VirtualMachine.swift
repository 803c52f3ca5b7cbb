import PredicateBytecode
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Runs a compiled ``Program`` against one object, one item or one selection of items at a time.
///
/// A machine owns its scratch space (value stack, variable slots, `SUBQUERY` frames) and reuses
/// it from one evaluation to the next, so a machine kept per thread evaluates without allocating
/// scratch space. The program itself is shared and immutable: give each thread its own machine
/// for the same program.
///
/// Every operator calls the same semantic functions as the reference interpreter, and each
/// instruction knows the source range of the syntax node it evaluates, so results and errors
/// (kind and position) are the interpreter's.
///
/// One loop runs every program. Its stack keeps the Booleans that comparisons produce as bits of
/// one integer above the stack of the language's values, so a rule made of comparisons, `NOT`,
/// `AND` and `OR` never builds a ``Value`` for them. A comparison site of a field that the host
/// type reads as a plain ``Scalar`` (Booleans, numbers, dates, nil) is decided from the field's
/// bits and the prepared constant; anything else takes the general path, on the language's
/// values, in the same loop. Items held by the caller are read in place through their pointer
/// (``evaluate(item:variables:)``), and so are selected items (``evaluate(selection:key:variables:)``):
/// a `SUBQUERY` over them binds its variable to each item's address, not to a boxed copy.
public struct VirtualMachine: Sendable {
    /// The program this machine runs.
    public let program: Program
    /// What operators need beyond their operands.
    public let environment: EvaluationEnvironment

    /// For each key path of the program whose first component is a bound field, the field's
    /// schema and slot: read directly when the receiver is an object of that schema.
    let boundFields: [BoundField?]
    /// The prepared comparison of each site, borrowed: ``program`` keeps them alive, and reading
    /// one must not touch a reference count that every thread running the program shares.
    let comparisons: [Unmanaged<PreparedComparison>?]
    /// For each comparison site, what decides it from the field's ``Scalar`` when its key path
    /// is one bound field read directly (no quantifier; ``ScalarSite/isPresent``).
    let scalarSites: PlainStorage<ScalarSite>
    /// For each comparison site, its test on the field stored in items of ``hostType``, when the
    /// field is stored there and the test decides every value. Owned by this machine alone
    /// before it is rewritten (a copy of the machine shares it until then).
    var storedSites: PlainStorage<StoredSite>
    /// The type of the items last evaluated in place, and its shared schema.
    var hostType: ObjectIdentifier?
    var hostSchema: ObjectIdentifier?
    /// For each key path, what it reads from a selection's context (``ItemSelection``).
    let selectionPaths: [SelectionPath]
    /// The keys ``selectionPaths`` name.
    let selectionKeys: [String]
    /// For each instruction, whether it is a `SUBQUERY_NEXT` whose exit is `KEYPATH @count`: the
    /// loop then counts the elements it collects instead of building their array.
    let countingExits: [Bool]
    /// For each counting `SUBQUERY_NEXT` whose `@count` is then compared with a number
    /// (`SUBQUERY(…).@count > 0`), that comparison as an integer test: the loop's exit answers
    /// the comparison itself.
    let countTests: [IntegerTest?]
    /// For each counting `SUBQUERY_NEXT` whose loop body is one `TEST` of the loop's variable
    /// (`SUBQUERY(items, $i, $i.isUploaded == YES).@count`), that test's site: the loop runs
    /// to its end inside the `SUBQUERY_NEXT`, charging what its instructions would.
    let loopTests: [Int?]
    /// ``EvaluationLimits/maximumSteps`` of the environment, read once.
    let maximumSteps: Int
    /// The program's instructions where the loop reads them without touching a reference count.
    let instructions: PlainStorage<Instruction>
    /// How the loop runs each instruction (``MachineWord``): made again with ``storedSites``,
    /// whose typed tests of `SELF`'s fields it names.
    var machineCode: PlainStorage<MachineWord>

    var stack: [Value] = []
    /// The Booleans on top of ``stack``, top in bit 0: the logical stack is ``stack`` followed by
    /// ``bitCount`` of these.
    var bits: UInt64 = 0
    var bitCount = 0
    var slots: [Value?] = []
    /// For each variable slot, the selected item a `SUBQUERY` over items bound it to (the slot's
    /// value is then that item, boxed only when an instruction needs it whole).
    var slotItems: [ItemReader?] = []
    var savedSlots: [(values: [Value?], items: [ItemReader?])] = []
    var frames: [SubqueryFrame] = []
    /// The reference-holding state of the `SUBQUERY` loops in ``frames`` that have one, in the
    /// same order.
    var valueLoops: [ValueLoop] = []
    /// The selection `SELF` stands for during ``evaluate(selection:key:variables:)``, its key,
    /// and the key's index in ``selectionKeys`` (-1 when no key path of the program names it).
    var selection: ItemSelection?
    var selectionName: String?
    var selectionKey = -1
    var lastSelectionKey: (name: String, index: Int)?
    /// Rule sets: memo slot values, valid when their stamp is this evaluation's.
    var memoValues: [Value] = []
    var memoStamps: [UInt64] = []
    var evaluationStamp: UInt64 = 0
    /// Rule sets: the results `RULE_END` records, 64 rules a word, and the errors.
    var ruleBits: [UInt64] = []
    var ruleErrors: [(rule: Int, error: EvaluationError)] = []
    var initialSlots: [Value?] = []
    /// Steps left in this evaluation before ``EvaluationLimits/maximumSteps`` is spent.
    var steps = 0
    /// Whether an evaluation has begun and not returned: one that threw may have left values,
    /// frames or saved variables behind, which the next evaluation clears.
    var scratchInUse = false
    /// Whether every evaluation must reset variables, memo stamps or rule-set state: a rule that
    /// assigns variables (`$x := …`), keeps memo slots or is a rule set. A `SUBQUERY` restores
    /// its variable when it ends, so the variables of a rule without assignments are unbound
    /// again after every evaluation that returned.
    let hasEvaluationState: Bool
    /// Whether the variable slots hold what the caller of the last evaluation bound.
    var slotsHoldCallerVariables = false
    /// `SELF` as a value, once an instruction has needed it whole or the caller passed one; kept
    /// in the machine (with a flag) so that an evaluation that never boxes `SELF` never destroys
    /// an optional value either.
    var selfValue: Value = .nil
    var hasSelfValue = false

    /// A machine for `program`, which must have been compiled or verified.
    public init(program: Program, environment: EvaluationEnvironment = EvaluationEnvironment()) {
        self.program = program
        self.environment = environment
        instructions = PlainStorage(program.code)
        machineCode = MachineWord.lower(program.code) { _ in false }
        let fields: [BoundField?] = program.keyPaths.map { components in
            // A path reading `@distinct…` charges for what it reaches, which needs the whole walk.
            guard case .field(let field)? = components.first,
                !components.contains(where: { $0.key?.hasPrefix("@distinct") == true })
            else { return nil }
            return BoundField(
                schema: ObjectIdentifier(field.schema.schema), slot: field.slot, rest: Array(components.dropFirst()))
        }
        boundFields = fields
        maximumSteps = max(0, environment.limits.maximumSteps)
        comparisons = program.prepared.sites.map { $0.map(Unmanaged.passUnretained) }
        let sites = zip(program.comparisons, program.prepared.sites).map { site, prepared -> ScalarSite in
            guard let prepared, prepared.quantifier == .direct, Int(site.keyPath) < fields.count,
                let field = fields[Int(site.keyPath)], field.rest.isEmpty
            else { return .absent }
            let variable: Int
            switch site.receiver {
            case .evaluatedObject: variable = -1
            case .variable(let slot): variable = Int(slot)
            }
            return ScalarSite(
                schema: field.schema, slot: field.slot, variable: variable,
                cost: (variable < 0 ? 2 : 3) + prepared.scalarCost, decision: prepared.scalar)
        }
        scalarSites = PlainStorage(sites)
        storedSites = PlainStorage(Array(repeating: StoredSite.absent, count: sites.count))
        var keys: [String] = []
        selectionPaths = program.keyPaths.map { SelectionPath($0, keys: &keys) }
        selectionKeys = keys
        let code = program.code
        countingExits = code.indices.map { pc in
            guard case .subqueryNext(let exit) = code[pc] else { return false }
            let target = pc + 1 + Int(exit)
            guard target >= 0, target < code.count, case .loadKeyPath(let path) = code[target],
                Int(path) < program.keyPaths.count, program.keyPaths[Int(path)] == [.key("@count")]
            else { return false }
            return true
        }
        let exits = countingExits
        countTests = code.indices.map { pc in
            guard exits[pc], case .subqueryNext(let exit) = code[pc] else { return nil }
            let target = pc + 1 + Int(exit)
            guard target + 2 < code.count, case .pushConstant(let index) = code[target + 1],
                case .compare(let op, let options, .direct) = code[target + 2], options.isEmpty, op != .between,
                Int(index) < program.constants.count
            else { return nil }
            let constant = program.constants[Int(index)]
            switch constant {
            case .int, .uint, .double, .bool: return IntegerTest(op, constant)
            default: return nil
            }
        }
        loopTests = code.indices.map { pc in
            guard exits[pc], pc >= 1, pc + 2 < code.count, case .subqueryBegin(_, let variable) = code[pc - 1],
                case .test(let site) = code[pc + 1], case .subqueryCollect(let back) = code[pc + 2],
                pc + 3 + Int(back) == pc, Int(site) < program.comparisons.count,
                program.comparisons[Int(site)].receiver == .variable(UInt16(variable))
            else { return nil }
            return Int(site)
        }
        stack.reserveCapacity(program.maximumStackDepth)
        frames.reserveCapacity(program.maximumSubqueryDepth)
        valueLoops.reserveCapacity(program.maximumSubqueryDepth)
        var memoCount = 0
        var ruleCount = 0
        for instruction in code {
            let facts = instruction.facts
            let values = instruction.operandValues
            if let slot = facts.position(of: .memoSlot) { memoCount = max(memoCount, values[slot] + 1) }
            if let rule = facts.position(of: .rule) { ruleCount = max(ruleCount, values[rule] + 1) }
        }
        hasEvaluationState =
            memoCount > 0 || program.kind == .ruleSet
            || code.contains { if case .storeVariable = $0 { return true } else { return false } }
        // Unbound until an evaluation binds them (``reset(variables:)``).
        slots = Array(repeating: nil, count: program.variables.count)
        slotItems = Array(repeating: nil, count: program.variables.count)
        memoValues = Array(repeating: .nil, count: memoCount)
        memoStamps = Array(repeating: 0, count: memoCount)
        ruleBits = Array(repeating: 0, count: (ruleCount + 63) / 64)
    }

    /// Evaluates every rule of a rule-set program (``Compiler/compileRuleSet(_:)``) with
    /// `object` as `SELF`, in one pass.
    ///
    /// An error in one rule makes that rule false and is reported in the result's `errors`; the
    /// other rules carry on.
    public mutating func evaluateRules(
        on object: Value, variables: [String: Value] = [:]
    ) -> RuleSetResult {
        for index in ruleBits.indices { ruleBits[index] = 0 }
        if !ruleErrors.isEmpty { ruleErrors.removeAll(keepingCapacity: true) }
        do throws(EvaluationError) {
            guard program.kind == .ruleSet else { throw malformed("not a rule set") }
            try run(on: object, variables: variables)
        } catch {
            ruleErrors.append((rule: -1, error: error))
        }
        return RuleSetResult(bits: ruleBits, errors: ruleErrors)
    }

    /// Evaluates the predicate program with `object` as `SELF`.
    ///
    /// - Throws: The interpreter's ``EvaluationError`` for the same rule and input, with the same
    ///   source range. A rule that spends the environment's ``EvaluationLimits/maximumSteps``
    ///   fails with `limitExceeded` at the range of the whole rule, as in the interpreter; the VM
    ///   charges one step per instruction executed (plus ``EvaluationCost``), the interpreter one
    ///   per node, so near the limit the two can differ on whether it was reached.
    public mutating func evaluate(on object: Value, variables: [String: Value] = [:]) throws(EvaluationError) -> Bool {
        try run(on: object, variables: variables)
        return try predicateResult()
    }

    /// Evaluates the predicate program with the item at `item` as `SELF`, reading its fields in
    /// place.
    ///
    /// This is the fast way to run one rule over many items held in memory (an array's
    /// `withUnsafeBufferPointer`): the item is neither copied nor boxed into a ``Value``, and a
    /// rule whose key paths are fields of the item's schema reads them through the pointer. The
    /// pointer must stay valid for the call. Results and errors are those of
    /// ``evaluate(on:variables:)`` with `.object(item.pointee)`.
    public mutating func evaluate<Item: KeyValueCoding>(
        item: UnsafePointer<Item>, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        prepare(variables: variables)
        defer { if hasSelfValue { dropSelfValue() } }
        try run(reader(item))
        return try predicateResult()
    }

    /// Evaluates the predicate program with `SELF` the activation context `{key: items}`: the
    /// selected items, read in place.
    ///
    /// This is how an activation rule runs on a selection the caller holds
    /// (`SUBQUERY(fileproviderItems, $i, …).@count > 0`, `fileproviderItems.@count`): no context
    /// dictionary is built and no item is boxed; a `SUBQUERY` over `key` binds its variable to
    /// each item in turn and reads fields through the item's pointer. Anything that needs the
    /// context or an item whole (a `SELF` comparison, an item returned by a key path) builds it
    /// then. The items must stay valid for the call. Results and errors are those of
    /// ``evaluate(on:variables:)`` with `.dictionary([key: .array(items.map { .object($0) })])`.
    public mutating func evaluate<Item: KeyValueCoding>(
        selection items: UnsafeBufferPointer<Item>, key: String, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        prepare(variables: variables)
        selection = ItemSelection(items, schema: adopt(Item.self))
        selectionName = key
        // The caller passes the same key every time: compared with the last one (at once when
        // it is the same string) instead of searching the program's keys.
        if let last = lastSelectionKey, last.name == key {
            selectionKey = last.index
        } else {
            selectionKey = selectionKeys.firstIndex(of: key) ?? -1
            lastSelectionKey = (key, selectionKey)
        }
        defer {
            selection = nil
            selectionName = nil
            if hasSelfValue { dropSelfValue() }
        }
        try run(nil)
        return try predicateResult()
    }

    /// Evaluates the expression program with `object` as `SELF`.
    public mutating func evaluateExpression(
        on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        try run(on: object, variables: variables)
        let result = pop()
        scratchInUse = false
        return result
    }

    /// The predicate's result, left on the stack by `RETURN_BOOL`.
    @inline(__always)
    private mutating func predicateResult() throws(EvaluationError) -> Bool {
        if bitCount == 1, program.kind == .predicate {
            bitCount = 0
            scratchInUse = false
            return bits & 1 == 1
        }
        guard program.kind == .predicate else { throw malformed("a predicate program must end with a Boolean") }
        let result = try popBool()
        scratchInUse = false
        return result
    }

    private mutating func run(on object: Value, variables: [String: Value]) throws(EvaluationError) {
        prepare(variables: variables)
        selfValue = object
        hasSelfValue = true
        defer { dropSelfValue() }
        // `SELF` as an object, opened once into a generic parameter: bound fields of its schema
        // are then read in place, without copying the value out of the enum at every key path.
        if case .object(let host) = object { return try run(opened: host) }
        try run(nil)
    }

    private mutating func run<Host: KeyValueCoding>(opened host: Host) throws(EvaluationError) {
        try withUnsafePointer(to: host) { (pointer) throws(EvaluationError) in try run(reader(pointer)) }
    }

    /// The item at `item`, read in place; its schema comes from its type when the type has a
    /// shared one.
    @inline(__always)
    private mutating func reader<Item: KeyValueCoding>(_ item: UnsafePointer<Item>) -> ItemReader {
        guard let schema = adopt(Item.self) else { return ItemReader(item) }
        return ItemReader(address: UnsafeRawPointer(item), type: Item.self, schema: schema)
    }

    /// Makes `Item` the type the scalar sites load fields of in place, once per change of type;
    /// returns its shared schema's identity.
    @inline(__always)
    private mutating func adopt<Item: KeyValueCoding>(_: Item.Type) -> ObjectIdentifier? {
        if hostType == ObjectIdentifier(Item.self) { return hostSchema }
        resolveStoredFields(of: Item.self)
        return hostSchema
    }

    @inline(never)
    private mutating func resolveStoredFields<Item: KeyValueCoding>(of _: Item.Type) {
        let type = ObjectIdentifier(Item.self)
        let schema = Item.sharedSchema.map(ObjectIdentifier.init)
        hostType = type
        hostSchema = schema
        var sites: [StoredSite] = []
        sites.reserveCapacity(scalarSites.count)
        for index in 0..<scalarSites.count {
            let site = scalarSites.base[index]
            var test: FieldTest?
            if site.isPresent, let schema, site.schema == schema, let stored = Item.storedScalar(atSlot: site.slot),
                stored.root == type
            {
                test = FieldTest(stored, site.decision)
            }
            sites.append(StoredSite(test: test, variable: site.variable, cost: site.cost))
        }
        // New tables rather than writing into the old ones: copies of this machine share them.
        storedSites = PlainStorage(sites)
        machineCode = MachineWord.lower(program.code) { site in
            site < sites.count && sites[site].test != nil && sites[site].variable < 0
        }
    }

    /// Forgets `SELF`'s value at the end of an evaluation, so the machine does not keep it alive.
    @inline(never)
    mutating func dropSelfValue() {
        selfValue = .nil
        hasSelfValue = false
    }

    /// Resets the scratch space for an evaluation with `variables`.
    @inline(__always)
    private mutating func prepare(variables: [String: Value]) {
        steps = maximumSteps
        bitCount = 0
        // Scratch space is empty after an evaluation that returned: a rule without variables
        // or memo slots then has nothing to reset.
        if scratchInUse || hasEvaluationState || slotsHoldCallerVariables || !variables.isEmpty {
            reset(variables: variables)
        }
        scratchInUse = true
    }

    /// Empties what an evaluation that threw left behind and binds `variables`.
    @inline(never)
    private mutating func reset(variables: [String: Value]) {
        if !stack.isEmpty { stack.removeAll(keepingCapacity: true) }
        bitCount = 0
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !valueLoops.isEmpty { valueLoops.removeAll(keepingCapacity: true) }
        if !savedSlots.isEmpty { savedSlots.removeAll(keepingCapacity: true) }
        if !program.variables.isEmpty {
            let count = program.variables.count
            if slots.count != count { slots = Array(repeating: nil, count: count) }
            if slotItems.count != count { slotItems = Array(repeating: nil, count: count) }
            for slot in 0..<count {
                // No lookup (a hash of the name) when the caller binds nothing.
                slots[slot] = variables.isEmpty ? nil : variables[program.variables[slot]]
                slotItems[slot] = nil
            }
        }
        if !memoStamps.isEmpty { evaluationStamp &+= 1 }
        slotsHoldCallerVariables = !variables.isEmpty
        if program.kind == .ruleSet { initialSlots = slots }
    }

    func malformed(_ what: String) -> EvaluationError {
        EvaluationError(.unsupported, "malformed program: \(what)")
    }
}

extension Program {
    /// Evaluates the predicate program once with a fresh machine (keep a ``VirtualMachine`` to
    /// evaluate many objects).
    public func evaluate(
        on object: Value, variables: [String: Value] = [:], environment: EvaluationEnvironment = EvaluationEnvironment()
    ) throws(EvaluationError) -> Bool {
        var machine = VirtualMachine(program: self, environment: environment)
        return try machine.evaluate(on: object, variables: variables)
    }
}
