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
    /// For each comparison site, its string field stored in items of ``hostType``, when its key
    /// path is one and its prepared comparison decides strings; made again with ``storedSites``.
    var stringSites = PlainStorage<StringSite>([])
    /// For each comparison site, its dictionary field stored in items of ``hostType`` and the key
    /// it looks up, when its key path is those two; made again with ``storedSites``.
    var dictionarySites = PlainStorage<DictionarySite>([])
    /// For each comparison site whose key path is a bound field and one key (`userInfo.rank`),
    /// that key: what ``dictionarySites`` borrow.
    let dictionaryKeys: [DictionaryKey?]
    /// For each comparison site, how it is decided over a selection of items of ``hostType``
    /// (``SelectionSite``); made again with ``storedSites``.
    var selectionSites = PlainStorage<SelectionSite>([])
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
    /// For each comparison site testing `UTI-CONFORMS-TO` a type identifier, that type's ID in
    /// the environment's type table, looked up once.
    let conformanceTargets: [UniformTypeID?]
    /// Answers of those sites for short identifiers, found once each.
    var conformanceMemo = ConformanceMemo()
    /// ``EvaluationLimits/maximumSteps`` of the environment, read once.
    let maximumSteps: Int
    /// The program's instructions where the loop reads them without touching a reference count.
    let instructions: PlainStorage<Instruction>
    /// How the loop runs each instruction (``MachineWord``): made again with ``storedSites``,
    /// whose typed tests of `SELF`'s fields it names.
    var machineCode: PlainStorage<MachineWord>
    /// The machine code's ``DecisionTable``: made again with it.
    var decisionTable = DecisionTable.none
    /// The program as a ``SiteTable`` for the adopted type, when it is one; read by the inlined
    /// ``evaluate(items:variables:into:)``.
    @usableFromInline var siteTable: SiteTable?
    /// The ``CountLoop`` of each instruction: made again with ``storedSites``.
    var countLoops = PlainStorage<CountLoop>([])
    /// The ``WholeSelectionCount`` the program is, if it is one: made again with ``countLoops``.
    var wholeSelectionCount: WholeSelectionCount?
    /// ``EvaluationLimits/maximumCollectionCount`` of the environment, read once.
    let maximumCollection: Int

    var stack: [Value] = []
    /// Steps left, and the Booleans on top of ``stack`` (top in bit 0: the logical stack is
    /// ``stack`` followed by ``bitCount`` of these): what the instruction loop keeps in registers.
    var registers = Registers()
    var bits: UInt64 {
        @inline(__always) get { registers.bits }
        @inline(__always) set { registers.bits = newValue }
    }
    var bitCount: Int {
        @inline(__always) get { registers.bitCount }
        @inline(__always) set { registers.bitCount = newValue }
    }
    var slots: [Value?] = []
    /// For each variable slot, the selected item a `SUBQUERY` over items bound it to (the slot's
    /// value is then that item, boxed only when an instruction needs it whole).
    var slotItems: [ItemReader?] = []
    var savedSlots: [(values: [Value?], items: [ItemReader?])] = []
    var frames: [SubqueryFrame] = []
    /// The reference-holding state of the `SUBQUERY` loops in ``frames`` that have one, in the
    /// same order.
    var valueLoops: [ValueLoop] = []
    /// The selection `SELF` stands for during ``evaluate(selection:key:variables:)``.
    var selection: ItemSelection?
    /// The key of the last selection evaluated (callers pass the same one every time, so it is
    /// kept rather than stored and released on every evaluation), and its index in
    /// ``selectionKeys`` (-1 when no key path of the program names it).
    var selectionName: String?
    var selectionKey = -1
    /// Rule sets: memo slot values, valid when their stamp is this evaluation's.
    var memoValues: [Value] = []
    var memoStamps: [UInt64] = []
    var evaluationStamp: UInt64 = 0
    /// Rule sets: the results `RULE_END` records, 64 rules a word, and the errors.
    var ruleBits: [UInt64] = []
    var ruleErrors: [RuleFailure] = []
    var initialSlots: [Value?] = []
    /// Steps left in this evaluation before ``EvaluationLimits/maximumSteps`` is spent.
    var steps: Int {
        @inline(__always) get { registers.steps }
        @inline(__always) set { registers.steps = newValue }
    }
    /// Steps left after the last evaluation returned or threw: what the batch engine charges a
    /// row for a clause it ran here (``EvaluationLimits/maximumSteps`` minus this).
    package var remainingSteps: Int { steps }
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
        machineCode = MachineWord.lower(program.code) { _ in nil }
        let fields: [BoundField?] = program.keyPaths.map { components in
            // A path reading `@distinct…` charges for what it reaches, which needs the whole walk.
            guard case .field(let field)? = components.first,
                !components.contains(where: { $0.key?.hasPrefix("@distinct") == true })
            else { return nil }
            let declared =
                field.slot < field.schema.schema.fields.count ? field.schema.schema.fields[field.slot].type : .any
            return BoundField(
                schema: ObjectIdentifier(field.schema.schema), slot: field.slot, rest: Array(components.dropFirst()),
                holdsString: declared == .string || declared == .optional(.string),
                holdsDictionary: declared.isDictionary)
        }
        boundFields = fields
        maximumSteps = max(0, environment.limits.maximumSteps)
        maximumCollection = environment.limits.maximumCollectionCount
        comparisons = program.prepared.sites.map { $0.map(Unmanaged.passUnretained) }
        conformanceTargets = program.prepared.sites.map { prepared in
            prepared?.conformanceType.flatMap(environment.uniformTypes.typeID(for:))
        }
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
                cost: (variable < 0 ? 2 : 3) + prepared.scalarCost, decision: prepared.scalar,
                readsValue: field.holdsString)
        }
        scalarSites = PlainStorage(sites)
        dictionaryKeys = zip(program.comparisons, program.prepared.sites).map { site, prepared -> DictionaryKey? in
            guard let prepared, prepared.quantifier == .direct, Int(site.keyPath) < fields.count,
                let field = fields[Int(site.keyPath)], field.rest.count == 1, case .key(let key) = field.rest[0],
                key.utf8.first != UInt8(ascii: "@")
            else { return nil }
            return DictionaryKey(key)
        }
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
}
