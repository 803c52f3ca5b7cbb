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
public struct VirtualMachine: Sendable {
    /// The program this machine runs.
    public let program: Program
    /// What operators need beyond their operands.
    public let environment: EvaluationEnvironment

    /// For each key path of the program that is one bound field, the field's schema and slot:
    /// read directly when the receiver is an object of that schema.
    private let boundFields: [BoundField?]

    /// For each instruction that starts the sequence `SELF_KEYPATH p; PUSH_CONST k; CMP op` of a
    /// relational operator without a quantifier: the operator and constant `k`, so that the
    /// comparison can be decided without the stack when ``ComparisonOperators/scalar(_:_:_:)``
    /// decides it.
    private let fusedComparisons: [FusedComparison?]

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
            guard components.count == 1, case .field(let field) = components[0] else { return nil }
            return BoundField(schema: ObjectIdentifier(field.schema.schema), slot: field.slot)
        }
        let code = program.code
        fusedComparisons = code.indices.map { pc in
            guard pc + 2 < code.count, case .loadSelfKeyPath = code[pc],
                case .pushConstant(let index) = code[pc + 1], Int(index) < program.constants.count,
                case .compare(let op, _, 0) = code[pc + 2], Int(op) < Self.operators.count
            else { return nil }
            var branch: FusedComparison.Branch?
            if pc + 3 < code.count {
                switch code[pc + 3] {
                case .jumpIfFalseOrPop(let offset): branch = FusedComparison.Branch(onTrue: false, offset: Int(offset))
                case .jumpIfTrueOrPop(let offset): branch = FusedComparison.Branch(onTrue: true, offset: Int(offset))
                default: break
                }
            }
            return FusedComparison(
                op: Self.operators[Int(op)], constant: ScalarOperand(program.constants[Int(index)]), branch: branch)
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

    /// Evaluates the expression program with `object` as `SELF`.
    public mutating func evaluateExpression(
        on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        try run(on: object, variables: variables)
    }

    /// A field's schema (by identity: the program's key-path table keeps it alive) and slot.
    private struct BoundField {
        let schema: ObjectIdentifier
        let slot: Int
    }

    private struct FusedComparison {
        /// A `JUMP_IF_FALSE_OR_POP` (`AND`) or `JUMP_IF_TRUE_OR_POP` (`OR`) right after the `CMP`.
        struct Branch {
            /// Whether the jump is taken on true (`OR`) or on false (`AND`).
            let onTrue: Bool
            let offset: Int
        }

        let op: ComparisonOperator
        /// Constant `k`, classified once.
        let constant: ScalarOperand
        let branch: Branch?
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
        // Scratch space is empty after an evaluation that returned; clearing an empty array
        // still costs a call each, so only an evaluation that threw leaves work here.
        if !stack.isEmpty { stack.removeAll(keepingCapacity: true) }
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !savedSlots.isEmpty { savedSlots.removeAll(keepingCapacity: true) }
        if !slots.isEmpty { slots.removeAll(keepingCapacity: true) }
        for name in program.variables { slots.append(variables[name]) }
        if !memoStamps.isEmpty { evaluationStamp &+= 1 }
        if program.kind == .ruleSet { initialSlots = slots }
        steps = max(0, environment.limits.maximumSteps)

        // `SELF` as an object, opened once into a generic parameter: bound fields of its schema
        // are then read in place, without copying the value out of the enum at every key path.
        if case .object(let host) = object {
            return try run(on: object, host: host, schema: ObjectIdentifier(host.schema))
        }
        return try run(on: object, host: NoObject(), schema: nil)
    }

    /// Stands for `SELF` when it is not an object (`schema` is then nil, so it is never read).
    private struct NoObject: KeyValueCoding {
        static let schema = Schema(typeName: "", fields: [])
        var schema: Schema { NoObject.schema }
        func value(atSlot slot: Int) -> Value { .nil }
    }

    /// The instruction loop, with `SELF` and, when it is an object, `host` and its schema's identity.
    private mutating func run<Host: KeyValueCoding>(
        on object: Value, host: Host, schema hostSchema: ObjectIdentifier?
    ) throws(EvaluationError) -> Value {
        let code = program.code
        var pc = 0
        while pc < code.count {
            let instruction = code[pc]
            pc += 1
            steps -= 1
            do {
                if steps < 0 { try charge(0) }
                if try execute(instruction, &pc, object, host, hostSchema) { return pop() }
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
    private mutating func execute<Host: KeyValueCoding>(
        _ instruction: Instruction, _ pc: inout Int, _ object: Value, _ host: Host, _ hostSchema: ObjectIdentifier?
    ) throws(EvaluationError) -> Bool {
        switch instruction {
        case .pushConstant(let index):
            stack.append(constant(index))
        case .pushSelf:
            stack.append(object)
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
            let value: Value
            if let hostSchema, Int(index) < boundFields.count, let field = boundFields[Int(index)],
                field.schema == hostSchema
            {
                value = host.value(atSlot: field.slot)
            } else {
                value = try keyPath(index, from: object)
            }
            // `PUSH_CONST k; CMP op` would push the constant and call `ComparisonOperators.evaluate`,
            // whose first step is `scalar`: when that decides, skip both instructions.
            if let fused = fusedComparisons[pc - 1],
                let result = ComparisonOperators.scalar(fused.op, ScalarOperand(value), fused.constant)
            {
                pc += 2
                if let branch = fused.branch {
                    // The `AND`/`OR` jump that follows: it keeps the bool and jumps when the result
                    // decides the chain, and pops it otherwise.
                    pc += 1
                    if result == branch.onTrue {
                        stack.append(.bool(result))
                        pc += branch.offset
                    }
                } else {
                    stack.append(.bool(result))
                }
            } else {
                stack.append(value)
            }
        case .compare(let op, let options, let quantifier):
            let rhs = pop()
            let lhs = pop()
            guard Int(op) < Self.operators.count, Int(quantifier) < Self.quantifiers.count else {
                throw malformed("no comparison operator \(op)")
            }
            try charge(EvaluationCost.comparison(lhs, rhs))
            var budget = steps
            let result: Bool
            do {
                result = try ComparisonOperators.evaluate(
                    Self.operators[Int(op)], lhs, rhs, quantifier: Self.quantifiers[Int(quantifier)],
                    options: ComparisonOptions(rawValue: options), environment: environment, steps: &budget)
            } catch {
                // `LIKE`/`MATCHES` spent the rest of the budget: the rule's error, as in the interpreter.
                steps = budget
                if steps < 0 { try charge(0) }
                throw error
            }
            steps = budget
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
        if let field = boundFields[index], case .object(let object) = receiver,
            ObjectIdentifier(object.schema) == field.schema
        {
            return object.value(atSlot: field.slot)
        }
        try charge(EvaluationCost.keyPath(program.keyPaths[index], from: receiver))
        return try KeyValueAccess.value(along: program.keyPaths[index], from: receiver) {
            name throws(EvaluationError) in
            guard let slot = program.variables.firstIndex(of: name) else {
                throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
            }
            return try variable(slot)
        }
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
