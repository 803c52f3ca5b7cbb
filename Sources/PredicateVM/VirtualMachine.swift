import PredicateBytecode
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Runs a compiled ``Program`` against one object at a time.
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
/// Two tiers run a program. A rule made only of comparison sites of `SELF` (`TEST`, `TEST_AND`,
/// `TEST_OR`), `NOT`, `AND`/`OR` jumps and Boolean constants runs first on the Boolean tier: its
/// stack is the bits of one integer, fields are read through the item's pointer
/// (``evaluate(item:variables:)``) and the comparisons are decided from plain copies of their
/// prepared constants, so nothing is allocated, copied or reference-counted. Anything that tier
/// does not decide (an error, a value of an unprepared kind, the step budget) goes to the
/// general loop, which runs the rule from the start on the language's values.
public struct VirtualMachine: Sendable {
    /// The program this machine runs.
    public let program: Program
    /// What operators need beyond their operands.
    public let environment: EvaluationEnvironment

    /// For each key path of the program that is one bound field, the field's schema and slot:
    /// read directly when the receiver is an object of that schema.
    private let boundFields: [BoundField?]

    /// The prepared comparison of each site, borrowed: ``program`` keeps them alive, and reading
    /// one must not touch a reference count that every thread running the program shares.
    private let comparisons: [Unmanaged<PreparedComparison>?]
    /// What the Boolean tier needs of each site, as plain values (no reference counting when read).
    private let fastSites: [FastSite?]
    /// Whether the program only moves Booleans (comparison sites of `SELF`, `NOT`, `AND`/`OR`
    /// jumps, Boolean constants): it then runs first on ``runBoolean(_:)``, whose stack is the
    /// bits of one integer.
    private let isBooleanProgram: Bool
    /// ``EvaluationLimits/maximumSteps`` of the environment, read once.
    private let maximumSteps: Int

    private var stack: [Value] = []
    private var slots: [Value?] = []
    private var savedSlots: [[Value?]] = []
    private var frames: [SubqueryFrame] = []
    /// Rule sets: memo slot values, valid when their stamp is this evaluation's.
    private var memoValues: [Value] = []
    private var memoStamps: [UInt64] = []
    private var evaluationStamp: UInt64 = 0
    /// Rule sets: the results `RULE_END` records, 64 rules a word, and the errors.
    private var ruleBits: [UInt64] = []
    private var ruleErrors: [(rule: Int, error: EvaluationError)] = []
    private var initialSlots: [Value?] = []
    /// Steps left in this evaluation before ``EvaluationLimits/maximumSteps`` is spent.
    private var steps = 0

    private static let operators = ComparisonOperator.allCases
    private static let quantifiers = Quantifier.allCases
    private static let setOperators = SetOperator.allCases

    /// A machine for `program`, which must have been compiled or verified.
    public init(program: Program, environment: EvaluationEnvironment = EvaluationEnvironment()) {
        self.program = program
        self.environment = environment
        boundFields = program.keyPaths.map { components in
            // A path reading `@distinct…` charges for what it reaches, which needs the whole walk.
            guard case .field(let field)? = components.first,
                !components.contains(where: { $0.key?.hasPrefix("@distinct") == true })
            else { return nil }
            return BoundField(
                schema: ObjectIdentifier(field.schema.schema), slot: field.slot, rest: Array(components.dropFirst()))
        }
        let code = program.code
        maximumSteps = max(0, environment.limits.maximumSteps)
        comparisons = program.prepared.sites.map { $0.map(Unmanaged.passUnretained) }
        let fields = boundFields
        let fast: [FastSite?] = zip(program.comparisons, program.prepared.sites).map { site, prepared in
            guard let prepared, case .evaluatedObject = site.receiver, Int(site.keyPath) < fields.count,
                let field = fields[Int(site.keyPath)], !field.readsVariables, prepared.quantifier == .direct
            else { return nil }
            return FastSite(
                keyPath: Int(site.keyPath), schema: field.schema, slot: field.slot, isField: field.rest.isEmpty,
                scalarCost: prepared.scalarCost, scalar: prepared.scalar)
        }
        fastSites = fast
        isBooleanProgram =
            program.kind == .predicate && program.maximumStackDepth <= 64
            && program.code.allSatisfy { instruction in
                if let site = instruction.comparisonSite {
                    // Every site must be one the tier can usually decide, or it would mostly hand
                    // the evaluation back to the general loop, which then starts again.
                    return site < fast.count && fast[site] != nil
                        && program.prepared.sites[site]?.decidesValues == true
                }
                switch instruction {
                case .pushConstant(let index):
                    guard Int(index) < program.constants.count, case .bool = program.constants[Int(index)] else {
                        return false
                    }
                    return true
                case .not, .jumpIfFalse, .jumpIfFalseOrPop, .jumpIfTrueOrPop, .returnBool:
                    return true
                default:
                    return false
                }
            }
        stack.reserveCapacity(program.maximumStackDepth)
        frames.reserveCapacity(program.maximumSubqueryDepth)
        var memoCount = 0
        var ruleCount = 0
        for instruction in code {
            switch instruction {
            case .memoLoad(_, let slot): memoCount = max(memoCount, Int(slot) + 1)
            case .memoStore(let slot): memoCount = max(memoCount, Int(slot) + 1)
            case .ruleEnd(let rule): ruleCount = max(ruleCount, Int(rule) + 1)
            default: break
            }
        }
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
            _ = try run(on: object, variables: variables)
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
        guard case .bool(let result) = try run(on: object, variables: variables) else {
            throw malformed("a predicate program must end with a Boolean")
        }
        return result
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
        let reader = ItemReader(item)
        if isBooleanProgram, let result = runBoolean(reader) { return result }
        prepare(variables: variables)
        var boxed: Value?
        guard case .bool(let result) = try run(reader, &boxed) else {
            throw malformed("a predicate program must end with a Boolean")
        }
        return result
    }

    /// Evaluates the expression program with `object` as `SELF`.
    public mutating func evaluateExpression(
        on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        try run(on: object, variables: variables)
    }

    /// Key path `index` of `SELF`: a leading field of the item's schema is read in place, the
    /// rest of the path from its value; anything else from `SELF` as a value.
    @inline(__always)
    private mutating func selfKeyPath(
        _ index: Int, _ item: ItemReader?, _ boxed: inout Value?
    ) throws(EvaluationError) -> Value {
        if let item, index < boundFields.count, let field = boundFields[index], item.schema == field.schema {
            let head = item.value(atSlot: field.slot)
            if field.rest.isEmpty { return head }
            return try KeyValueAccess.value(along: field.rest, from: head) { name throws(EvaluationError) in
                try variable(named: name)
            }
        }
        return try keyPath(UInt16(truncatingIfNeeded: index), from: Self.evaluatedObject(item, &boxed))
    }

    /// `SELF` as a value: the item is boxed once per evaluation, and only when an instruction
    /// needs it whole.
    private static func evaluatedObject(_ item: ItemReader?, _ boxed: inout Value?) -> Value {
        if let boxed { return boxed }
        guard let item else { return .nil }
        let object = item.boxed()
        boxed = object
        return object
    }

    /// A direct comparison site of a leading field of `SELF`, as the Boolean tier reads it.
    private struct FastSite {
        let keyPath: Int
        let schema: ObjectIdentifier
        let slot: Int
        /// Whether the key path is the field alone (else the rest is read from its value).
        let isField: Bool
        let scalarCost: Int
        let scalar: ScalarDecision
    }

    /// A field's schema (by identity: the program's key-path table keeps it alive) and slot.
    private struct BoundField {
        let schema: ObjectIdentifier
        let slot: Int
        /// The components after the field (`rank` of `userInfo.rank`), read from the field's value
        /// as ``KeyValueAccess/value(along:from:variable:)`` would after reading the field.
        let rest: [KeyComponent]
        /// Whether ``rest`` has `$variable` keys (which the Boolean tier leaves to the general loop,
        /// since it does not bind variables).
        let readsVariables: Bool

        init(schema: ObjectIdentifier, slot: Int, rest: [KeyComponent]) {
            self.schema = schema
            self.slot = slot
            self.rest = rest
            readsVariables = rest.contains { component in
                if case .variable = component { return true }
                return false
            }
        }
    }

    private struct SubqueryFrame {
        var elements: [Value]
        var next: Int
        var slot: Int
        var saved: Value?
        var results: [Value]
        var current: Value
    }

    private func malformed(_ what: String) -> EvaluationError {
        EvaluationError(.unsupported, "malformed program: \(what)")
    }

    private mutating func pop() -> Value { stack.popLast() ?? .nil }

    private mutating func popBool() throws(EvaluationError) -> Bool {
        guard case .bool(let flag) = pop() else { throw malformed("a Boolean was expected on the stack") }
        return flag
    }

    private func constant(_ index: UInt16) -> Value {
        let index = Int(index)
        return index < program.constants.count ? program.constants[index] : .nil
    }

    private func string(_ index: UInt16) -> String { constant(index).stringValue ?? "" }

    private mutating func run(on object: Value, variables: [String: Value]) throws(EvaluationError) -> Value {
        prepare(variables: variables)
        // `SELF` as an object, opened once into a generic parameter: bound fields of its schema
        // are then read in place, without copying the value out of the enum at every key path.
        if case .object(let host) = object { return try run(opened: host, object) }
        var boxed: Value? = object
        return try run(nil, &boxed)
    }

    private mutating func run<Host: KeyValueCoding>(opened host: Host, _ object: Value) throws(EvaluationError) -> Value
    {
        try withUnsafePointer(to: host) { (pointer) throws(EvaluationError) -> Value in
            var boxed: Value? = object
            return try run(ItemReader(pointer), &boxed)
        }
    }

    /// Resets the scratch space for an evaluation with `variables`.
    private mutating func prepare(variables: [String: Value]) {
        // Scratch space is empty after an evaluation that returned; clearing an empty array
        // still costs a call each, so only an evaluation that threw leaves work here.
        if !stack.isEmpty { stack.removeAll(keepingCapacity: true) }
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !savedSlots.isEmpty { savedSlots.removeAll(keepingCapacity: true) }
        if !slots.isEmpty { slots.removeAll(keepingCapacity: true) }
        if !program.variables.isEmpty {
            for name in program.variables { slots.append(variables[name]) }
        }
        if !memoStamps.isEmpty { evaluationStamp &+= 1 }
        if program.kind == .ruleSet { initialSlots = slots }
        steps = maximumSteps
    }

    /// The instruction loop, with `SELF` behind `object`.
    private mutating func run(_ item: ItemReader?, _ boxed: inout Value?) throws(EvaluationError) -> Value {
        if isBooleanProgram, let item, let result = runBoolean(item) { return .bool(result) }
        var pc = 0
        while pc < program.code.count {
            let instruction = program.code[pc]
            pc += 1
            steps -= 1
            do {
                if steps < 0 { try charge(0) }
                if try execute(instruction, &pc, item, &boxed) { return pop() }
            } catch {
                let site = pc - 1
                let located = site < program.sourceRanges.count ? error.at(program.sourceRanges[site]) : error
                guard program.kind == .ruleSet, let resume = recover(after: site, located) else { throw located }
                pc = resume
            }
        }
        throw malformed("ran past the end of the code")
    }

    /// Executes one instruction; returns whether the program ended, leaving its result on the
    /// stack (a `Value?` result costs an outlined destroy per instruction).
    @inline(__always)
    private mutating func execute(
        _ instruction: Instruction, _ pc: inout Int, _ item: ItemReader?, _ boxed: inout Value?
    ) throws(EvaluationError) -> Bool {
        switch instruction {
        case .pushConstant(let index):
            stack.append(constant(index))
        case .pushSelf:
            stack.append(Self.evaluatedObject(item, &boxed))
        case .loadVariable(let slot):
            stack.append(try variable(Int(slot)))
        case .storeVariable(let slot):
            let slot = Int(slot)
            guard slot < slots.count else { throw malformed("no variable \(slot)") }
            slots[slot] = stack.last ?? .nil
        case .loadKeyPath(let index):
            let receiver = pop()
            stack.append(try keyPath(index, from: receiver))
        case .loadSelfKeyPath(let index):
            stack.append(try selfKeyPath(Int(index), item, &boxed))
        case .compare(let op, let options, let quantifier):
            let rhs = pop()
            let lhs = pop()
            guard Int(op) < Self.operators.count, Int(quantifier) < Self.quantifiers.count else {
                throw malformed("no comparison operator \(op)")
            }
            let result = try compare(
                Self.operators[Int(op)], lhs, rhs, Self.quantifiers[Int(quantifier)],
                ComparisonOptions(rawValue: options))
            stack.append(.bool(result))
        case .callFunction(let selector, let arity):
            let arguments = popArguments(Int(arity))
            try charge(EvaluationCost.call(arguments))
            stack.append(try BuiltinFunctions.call(string(selector), arguments))
        case .invoke(let selector, let arity):
            let arguments = popArguments(Int(arity))
            let receiver = pop()
            try charge(EvaluationCost.call(arguments))
            stack.append(try MethodInvocation.invoke(string(selector), on: receiver, arguments: arguments))
        case .makeArray(let count):
            let elements = popArguments(Int(count))
            try environment.limits.checkCollection(count: elements.count)
            stack.append(.array(elements.map(\.asCollectionElement)))
        case .indexSymbol(let symbol):
            let receiver = pop()
            let spec: CollectionOperations.IndexValue = symbol == 0 ? .first : symbol == 1 ? .last : .size
            stack.append(try CollectionOperations.index(receiver, spec))
        case .index:
            let index = pop()
            let receiver = pop()
            stack.append(try CollectionOperations.index(receiver, .value(index)))
        case .cast:
            let type = pop()
            let value = pop()
            stack.append(try Cast.cast(value, to: type))
        case .setOperation(let op):
            let rhs = pop()
            let lhs = pop()
            guard Int(op) < Self.setOperators.count else { throw malformed("no set operator \(op)") }
            try charge(EvaluationCost.setOperation(lhs, rhs))
            let result = try CollectionOperations.setOperation(Self.setOperators[Int(op)], lhs, rhs)
            if case .set(let members) = result { try environment.limits.checkCollection(count: members.count) }
            stack.append(result)
        case .not:
            stack.append(.bool(!(try popBool())))
        case .test(let site):
            stack.append(.bool(try test(Int(site), item, &boxed)))
        case .testAnd(let offset, let site):
            steps -= 1
            if !(try test(Int(site), item, &boxed)) {
                stack.append(.bool(false))
                pc += Int(offset)
            }
        case .testOr(let offset, let site):
            steps -= 1
            if try test(Int(site), item, &boxed) {
                stack.append(.bool(true))
                pc += Int(offset)
            }
        case .jump(let offset):
            pc += Int(offset)
        case .jumpIfFalse(let offset):
            if !(try popBool()) { pc += Int(offset) }
        case .jumpIfFalseOrPop(let offset):
            guard case .bool(let flag) = stack.last else { throw malformed("a Boolean was expected on the stack") }
            if flag { _ = pop() } else { pc += Int(offset) }
        case .jumpIfTrueOrPop(let offset):
            guard case .bool(let flag) = stack.last else { throw malformed("a Boolean was expected on the stack") }
            if flag { pc += Int(offset) } else { _ = pop() }
        case .jumpIfNil(let offset):
            if let top = stack.last, top.isNil { pc += Int(offset) }
        case .saveVariables:
            savedSlots.append(slots)
        case .restoreVariables:
            if let saved = savedSlots.popLast() { slots = saved }
        case .subqueryBegin(let exit, let slot):
            let collection = pop()
            let elements: [Value]
            switch collection {
            case .nil:
                stack.append(.nil)
                pc += Int(exit)
                return false
            case .array(let values), .set(let values):
                elements = values
            default:
                throw EvaluationError(
                    .notACollection, "SUBQUERY needs an array or a set, got \(ValueComparison.describe(collection))")
            }
            let slot = Int(slot)
            guard slot < slots.count else { throw malformed("no variable \(slot)") }
            try charge(elements.count)
            frames.append(
                SubqueryFrame(elements: elements, next: 0, slot: slot, saved: slots[slot], results: [], current: .nil))
        case .subqueryNext(let exit):
            guard var frame = frames.popLast() else { throw malformed("SUBQUERY_NEXT outside a subquery") }
            if frame.next < frame.elements.count {
                frame.current = frame.elements[frame.next]
                frame.next += 1
                slots[frame.slot] = frame.current
                frames.append(frame)
            } else {
                slots[frame.slot] = frame.saved
                try environment.limits.checkCollection(count: frame.results.count)
                stack.append(.array(frame.results))
                pc += Int(exit)
            }
        case .subqueryCollect(let offset):
            let matched = try popBool()
            guard !frames.isEmpty else { throw malformed("SUBQUERY_COLLECT outside a subquery") }
            if matched { frames[frames.count - 1].results.append(frames[frames.count - 1].current) }
            pc += Int(offset)
        case .returnBool:
            guard case .bool = stack.last else { throw malformed("a Boolean was expected on the stack") }
            return true
        case .returnValue:
            return true
        case .fail(let message):
            throw EvaluationError(.unsupported, string(message))
        case .memoLoad(let skip, let slot):
            let slot = Int(slot)
            if slot < memoStamps.count, memoStamps[slot] == evaluationStamp {
                stack.append(memoValues[slot])
                pc += Int(skip)
            }
        case .memoStore(let slot):
            let slot = Int(slot)
            if slot < memoStamps.count {
                memoValues[slot] = stack.last ?? .nil
                memoStamps[slot] = evaluationStamp
            }
        case .ruleEnd(let rule):
            if try popBool() {
                let rule = Int(rule)
                if rule >> 6 < ruleBits.count { ruleBits[rule >> 6] |= 1 << UInt64(rule & 63) }
            }
        case .returnRules:
            stack.append(.nil)
            return true
        }
        return false
    }

    /// The Boolean tier: the program's instructions with a stack of Booleans kept in the bits of
    /// one integer (top in bit 0), no ``Value`` on it, and steps counted as ``run(_:_:)`` counts
    /// them. It answers `nil` at anything out of the ordinary (a comparison the prepared
    /// constant does not decide, an error, the step budget spent); evaluation is free of side
    /// effects, so the general loop then runs the rule from the start and gives the answer, or
    /// the error, with its position.
    private func runBoolean(_ item: ItemReader) -> Bool? {
        var bits: UInt64 = 0
        var budget = maximumSteps
        var pc = 0
        while pc < program.code.count {
            let instruction = program.code[pc]
            pc += 1
            budget -= 1
            switch instruction {
            case .test(let site):
                guard let result = decide(Int(site), item, &budget) else { return nil }
                bits = bits << 1 | (result ? 1 : 0)
            case .testAnd(let offset, let site):
                budget -= 1
                guard let result = decide(Int(site), item, &budget) else { return nil }
                if !result {
                    bits <<= 1
                    pc += Int(offset)
                }
            case .testOr(let offset, let site):
                budget -= 1
                guard let result = decide(Int(site), item, &budget) else { return nil }
                if result {
                    bits = bits << 1 | 1
                    pc += Int(offset)
                }
            case .not:
                bits ^= 1
            case .jumpIfFalse(let offset):
                let top = bits & 1
                bits >>= 1
                if top == 0 { pc += Int(offset) }
            case .jumpIfFalseOrPop(let offset):
                if bits & 1 == 0 { pc += Int(offset) } else { bits >>= 1 }
            case .jumpIfTrueOrPop(let offset):
                if bits & 1 == 1 { pc += Int(offset) } else { bits >>= 1 }
            case .pushConstant(let index):
                guard Int(index) < program.constants.count, case .bool(let flag) = program.constants[Int(index)] else {
                    return nil
                }
                bits = bits << 1 | (flag ? 1 : 0)
            case .returnBool:
                guard budget >= 0 else { return nil }
                return bits & 1 == 1
            default:
                return nil
            }
            if budget < 0 { return nil }
        }
        return nil
    }

    /// Site `index` of `SELF` decided without errors: a leading field of the item's schema read
    /// in place, then the prepared constant (numbers, dates and nil from a plain copy of it);
    /// `nil` when that does not decide it.
    @inline(__always)
    private func decide(_ index: Int, _ item: ItemReader, _ budget: inout Int) -> Bool? {
        guard index < fastSites.count, let site = fastSites[index], item.schema == site.schema else { return nil }
        budget -= 2 + site.scalarCost
        var value = item.value(atSlot: site.slot)
        if !site.isField {
            guard let rest = boundFields[site.keyPath]?.rest else { return nil }
            do throws(EvaluationError) {
                value = try KeyValueAccess.value(along: rest, from: value) { name throws(EvaluationError) in
                    throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
                }
            } catch {
                return nil
            }
        }
        if let result = site.scalar.decide(value) { return result }
        guard index < comparisons.count, let reference = comparisons[index] else { return nil }
        return reference._withUnsafeGuaranteedRef { prepared -> Bool? in
            if let result = prepared.decide(value) { return result }
            guard let pattern = prepared.pattern, case .string(let text) = value else { return nil }
            do throws(EvaluationError) {
                return try pattern.matches(text, environment: environment, steps: &budget)
            } catch {
                return nil
            }
        }
    }

    /// Comparison site `index`: its key path read (in place when it is a field of `SELF`'s
    /// schema), then decided by the prepared constant, or else by the general comparison, as
    /// `CMP` would. Charges what the instructions it stands for would.
    @inline(__always)
    private mutating func test(_ index: Int, _ item: ItemReader?, _ boxed: inout Value?) throws(EvaluationError) -> Bool
    {
        guard index < program.comparisons.count, index < comparisons.count, let reference = comparisons[index] else {
            throw malformed("no comparison site \(index)")
        }
        let site = program.comparisons[index]
        let value: Value
        switch site.receiver {
        case .evaluatedObject:
            steps -= 2
            do {
                value = try selfKeyPath(Int(site.keyPath), item, &boxed)
            } catch {
                throw error.at(site.keyPathRange)
            }
        case .variable(let slot):
            steps -= 3
            do {
                value = try keyPath(site.keyPath, from: try variable(Int(slot)))
            } catch {
                throw error.at(site.keyPathRange)
            }
        }
        let (decided, cost) = reference._withUnsafeGuaranteedRef { prepared in
            (prepared.quantifier == .direct ? prepared.decide(value) : nil, prepared.scalarCost)
        }
        if let decided {
            try charge(cost)
            return decided
        }
        let prepared = reference.takeUnretainedValue()
        if prepared.quantifier == .direct {
            if let pattern = prepared.pattern, case .string(let text) = value {
                try charge(prepared.scalarCost)
                var budget = steps
                defer { steps = budget }
                return try pattern.matches(text, environment: environment, steps: &budget)
            }
        }
        return try compare(prepared.op, value, prepared.constant, prepared.quantifier, prepared.options)
    }

    /// `CMP`: the general comparison, charging its cost first.
    private mutating func compare(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, _ quantifier: Quantifier, _ options: ComparisonOptions
    ) throws(EvaluationError) -> Bool {
        try charge(EvaluationCost.comparison(lhs, rhs))
        var budget = steps
        let result: Bool
        do {
            result = try ComparisonOperators.evaluate(
                op, lhs, rhs, quantifier: quantifier, options: options, environment: environment, steps: &budget)
        } catch {
            // `LIKE`/`MATCHES` spent the rest of the budget: the rule's error, as in the interpreter.
            steps = budget
            if steps < 0 { try charge(0) }
            throw error
        }
        steps = budget
        return result
    }

    /// A rule set's error at `site` hides the rule it happened in: records it, clears what the
    /// rule left behind (the verifier guarantees rules start with nothing open) and answers where
    /// the next rule starts.
    private mutating func recover(after site: Int, _ error: EvaluationError) -> Int? {
        let code = program.code
        var pc = site
        while pc < code.count {
            if case .ruleEnd(let rule) = code[pc] {
                ruleErrors.append((rule: Int(rule), error: error))
                stack.removeAll(keepingCapacity: true)
                frames.removeAll(keepingCapacity: true)
                savedSlots.removeAll(keepingCapacity: true)
                slots = initialSlots
                return pc + 1
            }
            pc += 1
        }
        return nil
    }

    /// Spends `cost` steps, failing once the budget is gone. The error names the whole rule
    /// (the last instruction's range), where the interpreter reports it too.
    private mutating func charge(_ cost: Int) throws(EvaluationError) {
        steps = steps < cost ? -1 : steps - cost
        guard steps < 0 else { return }
        let error = environment.limits.stepsExceeded()
        throw program.sourceRanges.last.map { error.at($0) } ?? error
    }

    private mutating func popArguments(_ count: Int) -> [Value] {
        let available = min(count, stack.count)
        let arguments = Array(stack.suffix(available))
        stack.removeLast(available)
        return arguments
    }

    /// `$name`: unbound is an error, `null` reads as nil (SPEC §4.9.7).
    private func variable(_ slot: Int) throws(EvaluationError) -> Value {
        guard slot < slots.count else { throw malformed("no variable \(slot)") }
        guard let value = slots[slot] else {
            throw EvaluationError(.unboundVariable, "the variable $\(program.variables[slot]) has no value")
        }
        return value.isNull ? .nil : value
    }

    private mutating func keyPath(_ index: UInt16, from receiver: Value) throws(EvaluationError) -> Value {
        let index = Int(index)
        guard index < program.keyPaths.count else { throw malformed("no key path \(index)") }
        // `KeyValueAccess.value(along:from:variable:)` for a single bound field reads the slot
        // and returns when the receiver is an object of the field's schema; that case, directly.
        if let field = boundFields[index], field.rest.isEmpty, case .object(let object) = receiver,
            ObjectIdentifier(object.schema) == field.schema
        {
            return object.value(atSlot: field.slot)
        }
        try charge(EvaluationCost.keyPath(program.keyPaths[index], from: receiver))
        return try KeyValueAccess.value(along: program.keyPaths[index], from: receiver) {
            name throws(EvaluationError) in try variable(named: name)
        }
    }

    private func variable(named name: String) throws(EvaluationError) -> Value {
        guard let slot = program.variables.firstIndex(of: name) else {
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
        return try variable(slot)
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

/// What a rule set answered for one input: which rules are true, and the errors that made others
/// false.
public struct RuleSetResult: Sendable {
    /// Rule `r` is true when bit `r % 64` of word `r / 64` is set.
    public let bits: [UInt64]
    /// The rules that failed, in the order they failed, each with its error (source ranges point
    /// into the rule set's source; rule -1 means the program itself could not run).
    public let errors: [(rule: Int, error: EvaluationError)]

    /// Creates a result.
    public init(bits: [UInt64], errors: [(rule: Int, error: EvaluationError)]) {
        self.bits = bits
        self.errors = errors
    }

    /// Whether rule `rule` is true.
    public func isSatisfied(_ rule: Int) -> Bool {
        guard rule >= 0, rule >> 6 < bits.count else { return false }
        return bits[rule >> 6] & (1 << UInt64(rule & 63)) != 0
    }

    /// Rules 0 to 63 as one mask: bit `r` for rule `r`.
    public var mask: UInt64 { bits.first ?? 0 }

    /// The error of rule `rule`, when it failed.
    public func error(of rule: Int) -> EvaluationError? {
        errors.first { $0.rule == rule }?.error
    }
}

/// An item the machine reads in place: its address and its type, opened only to read a field, so
/// that the instruction loop itself is not generic (unspecialised generic code would copy values
/// through their witnesses and look up generic metadata on every evaluation).
struct ItemReader {
    let address: UnsafeRawPointer
    let type: any KeyValueCoding.Type
    /// The item's schema identity, read once per evaluation.
    let schema: ObjectIdentifier

    init<Item: KeyValueCoding>(_ item: UnsafePointer<Item>) {
        address = UnsafeRawPointer(item)
        type = Item.self
        schema = Item.schemaIdentity(of: item)
    }

    /// Field `slot`, read in place.
    @inline(__always)
    func value(atSlot slot: Int) -> Value { type.value(atSlot: slot, at: address) }

    /// The item as a value.
    func boxed() -> Value { type.boxed(at: address) }
}

extension KeyValueCoding {
    /// Field `slot` of the object of this type at `address`.
    fileprivate static func value(atSlot slot: Int, at address: UnsafeRawPointer) -> Value {
        value(atSlot: slot, of: address.assumingMemoryBound(to: Self.self))
    }

    /// The object of this type at `address`, as a value.
    fileprivate static func boxed(at address: UnsafeRawPointer) -> Value {
        .object(address.assumingMemoryBound(to: Self.self).pointee)
    }
}
