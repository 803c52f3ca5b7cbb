import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension VirtualMachine {
    /// The instruction loop, with `SELF` the item at `item`, or the selection, or ``selfValue``.
    ///
    /// One switch over every word (``MachineWord``). The instructions a rule made of comparisons
    /// spends its time in (`TEST…`, `NOT`, the jumps, `RETURN_BOOL`) run here, on the Booleans
    /// held as bits; every other instruction runs in a function of its own, out of line, so that
    /// the loop itself stays small. The steps left and the Booleans are ``Registers`` held in a
    /// local copy, which the optimiser keeps in machine registers: written back to the machine
    /// before each call out of the loop (which reads and changes them there) and read again after.
    mutating func run(_ item: ItemReader?, from start: Int = 0) throws(EvaluationError) {
        // Plain pointers, read without retaining an array on every evaluation.
        let words = machineCode.base
        let count = machineCode.count
        // Where the tests of stored fields read `SELF`'s fields: its address, when it is an
        // item of the type the words were made for.
        let selfAddress = item.flatMap { ObjectIdentifier($0.type) == hostType ? $0.address : nil }
        var pc = start
        var r = registers
        while pc < count {
            let word = words + pc
            pc &+= 1
            // Steps count down from a non-negative budget by small amounts: they cannot wrap.
            r.steps &-= 1
            do throws(EvaluationError) {
                if r.steps < 0 {
                    registers = r
                    try charge(0)
                }
                switch word.pointee.operation {
                case .testSelfBool, .testSelfInt64, .testSelfOptionalInt64, .testSelfUInt64, .testSelfOptionalUInt64,
                    .testSelfDouble, .testSelfOptionalDouble:
                    let use = word.pointee.use
                    r.steps &-= Int(use.extraSteps)
                    let cost = Int(word.pointee.cost)
                    let decided: Bool
                    if let address = selfAddress, r.steps >= cost, let stored = word.pointee.field.decide(address) {
                        r.steps &-= cost
                        decided = stored
                    } else {
                        registers = r
                        decided = try testByScalar(Int(word.pointee.site), item)
                        r = registers
                    }
                    if use.pushes(decided) {
                        pushBool(decided, &r)
                        pc &+= Int(use.offset)
                    }
                case .test, .testSelfString, .testSelfDictionary, .testSelfScalar:
                    let use = word.pointee.use
                    r.steps &-= Int(use.extraSteps)
                    let site = Int(word.pointee.site)
                    let decided: Bool
                    if let stored = decideStored(site, item, steps: &r.steps) {
                        decided = stored
                    } else {
                        registers = r
                        decided = try testByScalar(site, item)
                        r = registers
                    }
                    if use.pushes(decided) {
                        pushBool(decided, &r)
                        pc &+= Int(use.offset)
                    }
                case .not:
                    if r.bitCount > 0 {
                        r.bits ^= 1
                    } else {
                        registers = r
                        pushBool(!(try popBool()))
                        r = registers
                    }
                case .jump:
                    pc &+= Int(word.pointee.offset)
                case .jumpIfFalse:
                    if !(try popBool(&r)) { pc &+= Int(word.pointee.offset) }
                case .jumpIfFalseOrPop:
                    if try peekBool(&r) { _ = try popBool(&r) } else { pc &+= Int(word.pointee.offset) }
                case .jumpIfTrueOrPop:
                    if try peekBool(&r) { pc &+= Int(word.pointee.offset) } else { _ = try popBool(&r) }
                case .returnBool:
                    registers = r
                    if r.bitCount == 0 { _ = try peekBool() }
                    return
                case .subqueryNext:
                    registers = r
                    try nextElement(exit: Int16(truncatingIfNeeded: word.pointee.offset), &pc)
                    r = registers
                case .general:
                    registers = r
                    let returns = try execute(pc - 1, &pc, item)
                    r = registers
                    if returns { return }
                }
            } catch {
                let site = pc - 1
                var located = error
                if located.range == nil, site < program.sourceRanges.count {
                    located.range = program.sourceRanges[site]
                }
                guard program.kind == .ruleSet, let end = ruleEnd(after: site) else { throw located }
                ruleErrors.append(RuleFailure(rule: end.rule, error: located))
                clearRule()
                pc = end.pc + 1
                r = registers
            }
        }
        registers = r
        throw malformed("ran past the end of the code")
    }

    /// Runs words from `pc` on, as ``run(_:from:)`` would, for as long as they are tests of
    /// fields stored in the item at `selfAddress` that their ``FieldTest`` decides, `NOT`, jumps
    /// and `RETURN_BOOL` on the Booleans held as bits, within the budget; stops before any other
    /// word, uncharged, with `pc` at it, for ``run(_:from:)`` to go on from there. Answers whether
    /// the evaluation returned.
    ///
    /// The same loop with nothing in it that can call out, fail or move the bits to the value
    /// stack: a rule made of comparisons of the item's own fields runs to its end here with the
    /// steps, the bits and `pc` in registers and no error handling to set up.
    ///
    /// `type` is the item's type and `schema` its schema identity when the type has a shared
    /// one (else the item is asked, when a test needs it).
    @inline(__always)
    mutating func runStraight(
        _ selfAddress: UnsafeRawPointer, type: any KeyValueCoding.Type, schema: ObjectIdentifier?, _ pc: inout Int
    ) -> Bool {
        if pc == 0, decideAtOnce(selfAddress) { return true }
        return runWords(StoredFields(address: selfAddress, type: type, schema: schema), &pc)
    }

    /// The straight loop of ``runStraight(_:_:)``, with `decider` answering the tests of fields
    /// stored in `SELF`: the item's fields, or a combination of answers when the
    /// ``DecisionTable`` is made.
    @inline(__always)
    mutating func runWords<Decider: StraightDecider>(_ decider: Decider, _ pc: inout Int) -> Bool {
        let words = machineCode.base
        let count = machineCode.count
        var r = registers
        var at = pc
        defer {
            registers = r
            pc = at
        }
        while at < count {
            let word = words + at
            // One dispatch: a test's case loads and tests its kind of field, then the tail
            // below charges and pushes; the other cases go on (or stop) from their own.
            let decided: Bool?
            var siteCost = Int(word.pointee.cost)
            switch word.pointee.operation {
            case .testSelfBool: decided = decider.decide(word, .bool, at: at)
            case .testSelfInt64: decided = decider.decide(word, .int64, at: at)
            case .testSelfOptionalInt64: decided = decider.decide(word, .optionalInt64, at: at)
            case .testSelfUInt64: decided = decider.decide(word, .uint64, at: at)
            case .testSelfOptionalUInt64: decided = decider.decide(word, .optionalUInt64, at: at)
            case .testSelfDouble: decided = decider.decide(word, .double, at: at)
            case .testSelfOptionalDouble: decided = decider.decide(word, .optionalDouble, at: at)
            case .testSelfString, .testSelfDictionary, .testSelfScalar:
                let answer: SiteAnswer
                if let known = decider.decideSite(at: at) {
                    answer = known
                } else {
                    guard let item = decider.item else { return false }
                    // An error is the instruction loop's to throw: no string is wanted.
                    answer = decideSelfSite(
                        word.pointee.operation, Int(word.pointee.site), item, unordered: nil, patternSteps: -1)
                }
                guard answer.isDecided else { return false }
                decided = answer.answer
                siteCost = answer.cost
            case .not:
                guard r.steps >= 1, r.bitCount > 0 else { return false }
                r.steps &-= 1
                r.bits ^= 1
                at &+= 1
                continue
            case .jump:
                guard r.steps >= 1 else { return false }
                r.steps &-= 1
                at &+= 1 &+ Int(word.pointee.offset)
                continue
            case .jumpIfFalse:
                guard r.steps >= 1, r.bitCount > 0 else { return false }
                r.steps &-= 1
                let top = r.bits & 1 == 1
                r.bits >>= 1
                r.bitCount &-= 1
                at &+= top ? 1 : 1 &+ Int(word.pointee.offset)
                continue
            case .jumpIfFalseOrPop, .jumpIfTrueOrPop:
                guard r.steps >= 1, r.bitCount > 0 else { return false }
                r.steps &-= 1
                let top = r.bits & 1 == 1
                if top == (word.pointee.operation == .jumpIfTrueOrPop) {
                    at &+= 1 &+ Int(word.pointee.offset)
                } else {
                    r.bits >>= 1
                    r.bitCount &-= 1
                    at &+= 1
                }
                continue
            case .returnBool:
                guard r.steps >= 1, r.bitCount > 0 else { return false }
                r.steps &-= 1
                return true
            case .test, .subqueryNext, .general:
                return false
            }
            let use = word.pointee.use
            // The word's step, a `TEST_AND`'s or `TEST_OR`'s jump, and the site's own cost.
            let cost = 1 &+ Int(use.extraSteps) &+ siteCost
            guard r.steps >= cost, r.bitCount < 64, let decided else { return false }
            r.steps &-= cost
            at &+= 1
            if use.pushes(decided) {
                r.bits = r.bits << 1 | (decided ? 1 : 0)
                r.bitCount &+= 1
                at &+= Int(use.offset)
            }
        }
        return false
    }

    /// Pushes a Boolean onto the loop's registers (moving the bits onto the value stack when 64
    /// are held).
    @inline(__always)
    private mutating func pushBool(_ flag: Bool, _ r: inout Registers) {
        if r.bitCount == 64 {
            registers = r
            spillBits()
            r = registers
        }
        r.bits = r.bits << 1 | (flag ? 1 : 0)
        r.bitCount &+= 1
    }

    /// Pops a Boolean from the loop's registers, or from the value stack below them.
    @inline(__always)
    private mutating func popBool(_ r: inout Registers) throws(EvaluationError) -> Bool {
        if r.bitCount > 0 {
            let top = r.bits & 1 == 1
            r.bits >>= 1
            r.bitCount -= 1
            return top
        }
        registers = r
        let top = try popBool()
        r = registers
        return top
    }

    /// The Boolean on top of the loop's registers, or of the value stack below them.
    @inline(__always)
    private mutating func peekBool(_ r: inout Registers) throws(EvaluationError) -> Bool {
        if r.bitCount > 0 { return r.bits & 1 == 1 }
        registers = r
        return try peekBool()
    }

    /// Runs instruction `index`, whatever it is (the loop sends it the instructions without an
    /// operation of their own); answers whether the evaluation returns.
    @inline(never)
    private mutating func execute(_ index: Int, _ pc: inout Int, _ item: ItemReader?) throws(EvaluationError) -> Bool {
        guard index < instructions.count else { throw malformed("ran past the end of the code") }
        switch instructions.base[index] {
        case .test, .testAnd, .testOr, .not, .jump, .jumpIfFalse, .jumpIfFalseOrPop, .jumpIfTrueOrPop, .returnBool,
            .subqueryNext:
            // The loop runs these itself (``MachineWord/init(_:selfField:)`` gives each an
            // operation of its own): a word sending one here was made wrong.
            throw malformed("instruction \(index) has an operation of its own")
        case .returnValue, .returnRules:
            return true
        case .subqueryCollect(let offset):
            try collect(offset: offset, &pc)
        case .pushConstant(let index):
            pushConstant(index)
        case .pushSelf:
            push(evaluatedObject(item))
        case .loadVariable(let slot):
            push(try variable(Int(slot)))
        case .storeVariable(let slot):
            try storeVariable(slot)
        case .loadKeyPath(let index):
            let receiver = pop()
            push(try keyPath(index, from: receiver))
        case .loadSelfKeyPath(let index):
            try loadSelfKeyPath(index, &pc, item)
        case .compare(let op, let options, let quantifier):
            let rhs = pop()
            let lhs = pop()
            pushBool(try compare(op, lhs, rhs, quantifier, options))
        case .callFunction(let selector, let arity):
            try callFunction(selector, arity)
        case .invoke(let selector, let arity):
            try invoke(selector, arity)
        case .makeArray(let count):
            try makeArray(count)
        case .indexSymbol(let symbol):
            try indexSymbol(symbol)
        case .index:
            let index = pop()
            let receiver = pop()
            push(try CollectionOperations.index(receiver, .value(index)))
        case .cast:
            let type = pop()
            let value = pop()
            push(try Cast.cast(value, to: type))
        case .setOperation(let op):
            try setOperation(op)
        case .jumpIfNil(let offset):
            if peek().isNil { pc += Int(offset) }
        case .saveVariables:
            savedSlots.append((slots, slotItems))
        case .restoreVariables:
            if let saved = savedSlots.popLast() {
                slots = saved.values
                slotItems = saved.items
            }
        case .subqueryBegin(let exit, let slot):
            try subqueryBegin(exit: exit, slot: slot, &pc)
        case .fail(let message):
            throw EvaluationError(.unsupported, string(message))
        case .memoLoad(let skip, let slot):
            memoLoad(skip: skip, slot: slot, &pc)
        case .memoStore(let slot):
            memoStore(slot)
        case .ruleEnd(let rule):
            try ruleEnd(rule)
        }
        return false
    }
}

// The instructions that run out of line: each is one call from the loop.
extension VirtualMachine {
    @inline(never)
    private mutating func pushConstant(_ index: UInt16) {
        let index = Int(index)
        let value = index < program.constants.count ? program.constants[index] : .nil
        if case .bool(let flag) = value { pushBool(flag) } else { push(value) }
    }

    @inline(never)
    private mutating func storeVariable(_ slot: UInt16) throws(EvaluationError) {
        let slot = Int(slot)
        guard slot < slots.count else { throw malformed("no variable \(slot)") }
        slots[slot] = peek()
        if slot < slotItems.count { slotItems[slot] = nil }
    }

    @inline(never)
    private mutating func loadSelfKeyPath(_ index: UInt16, _ pc: inout Int, _ item: ItemReader?) throws(EvaluationError)
    {
        if let selection, pc < program.code.count, case .subqueryBegin(_, let slot) = program.code[pc],
            Int(index) < selectionPaths.count, selectionPaths[Int(index)] == .key(selectionKey)
        {
            // `SUBQUERY` over the selected items: the items themselves, not their array.
            // Errors from here on are the `SUBQUERY_BEGIN`'s, as `pc` now says.
            pc += 1
            steps -= 1
            if steps < 0 { try charge(0) }
            if countAtOnce(selection, slot: Int(slot), &pc) { return }
            try beginSubquery(over: .items(selection), slot: Int(slot), loop: pc)
        } else {
            push(try selfKeyPath(Int(index), item))
        }
    }

    @inline(never)
    private mutating func callFunction(_ selector: UInt16, _ arity: UInt8) throws(EvaluationError) {
        // The arguments are read where they lie on the stack and popped after the call: an
        // array of them would be an allocation per call (`documentSize / 1024` on every item).
        // An error leaves them there; it ends the evaluation, or the rule, whose stack is cleared.
        if bitCount > 0 { spillBits() }
        let count = min(Int(arity), stack.count)
        let start = stack.count - count
        try charge(EvaluationCost.call(stack[start...]))
        let result = try BuiltinFunctions.call(string(selector), stack[start...])
        stack.removeLast(count)
        push(result)
    }

    @inline(never)
    private mutating func invoke(_ selector: UInt16, _ arity: UInt8) throws(EvaluationError) {
        let arguments = popArguments(Int(arity))
        let receiver = pop()
        try charge(EvaluationCost.call(arguments))
        push(try MethodInvocation.invoke(string(selector), on: receiver, arguments: arguments))
    }

    @inline(never)
    private mutating func makeArray(_ count: UInt16) throws(EvaluationError) {
        let elements = popArguments(Int(count))
        try environment.limits.checkCollection(count: elements.count)
        push(.array(elements.map(\.asCollectionElement)))
    }

    @inline(never)
    private mutating func indexSymbol(_ symbol: IndexSymbol) throws(EvaluationError) {
        let receiver = pop()
        let spec: CollectionOperations.IndexValue
        switch symbol {
        case .first: spec = .first
        case .last: spec = .last
        case .size: spec = .size
        }
        push(try CollectionOperations.index(receiver, spec))
    }

    @inline(never)
    private mutating func setOperation(_ op: SetOperator) throws(EvaluationError) {
        let rhs = pop()
        let lhs = pop()
        try charge(EvaluationCost.setOperation(lhs, rhs))
        let result = try CollectionOperations.setOperation(op, lhs, rhs)
        if case .set(let members) = result { try environment.limits.checkCollection(count: members.count) }
        push(result)
    }

    @inline(never)
    private mutating func subqueryBegin(exit: Int16, slot: UInt8, _ pc: inout Int) throws(EvaluationError) {
        let collection = pop()
        switch collection {
        case .nil:
            push(.nil)
            pc += Int(exit)
        case .array(let values), .set(let values):
            try beginSubquery(over: .values(values), slot: Int(slot), loop: pc)
        default:
            throw EvaluationError(
                .notACollection, "SUBQUERY needs an array or a set, got \(ValueComparison.describe(collection))")
        }
    }

    @inline(never)
    private mutating func collect(offset: Int16, _ pc: inout Int) throws(EvaluationError) {
        let matched = try popBool()
        guard !frames.isEmpty else { throw malformed("SUBQUERY_COLLECT outside a subquery") }
        if matched { collectElement() }
        pc += Int(offset)
    }

    @inline(never)
    private mutating func memoLoad(skip: Int16, slot: UInt8, _ pc: inout Int) {
        let slot = Int(slot)
        if slot < memoStamps.count, memoStamps[slot] == evaluationStamp {
            let value = memoValues[slot]
            if case .bool(let flag) = value { pushBool(flag) } else { push(value) }
            pc += Int(skip)
        }
    }

    @inline(never)
    private mutating func memoStore(_ slot: UInt16) {
        let slot = Int(slot)
        if slot < memoStamps.count {
            memoValues[slot] = peek()
            memoStamps[slot] = evaluationStamp
        }
    }

    @inline(never)
    private mutating func ruleEnd(_ rule: UInt16) throws(EvaluationError) {
        if try popBool() {
            let rule = Int(rule)
            if rule >> 6 < ruleBits.count { ruleBits[rule >> 6] |= 1 << UInt64(rule & 63) }
        }
    }

    /// Constant `index` as a string (a selector or a message).
    private func string(_ index: UInt16) -> String {
        let index = Int(index)
        return index < program.constants.count ? program.constants[index].stringValue ?? "" : ""
    }

    /// A rule set's error at `site` hides the rule it happened in: the `RULE_END` that ends that
    /// rule, where the next rule starts after it.
    private func ruleEnd(after site: Int) -> (pc: Int, rule: Int)? {
        var pc = site
        while pc < program.code.count {
            if case .ruleEnd(let rule) = program.code[pc] { return (pc, Int(rule)) }
            pc += 1
        }
        return nil
    }

    /// Clears what a failed rule left behind (the verifier guarantees rules start with nothing
    /// open); what it did not touch is left alone, so that a rule failing on every item costs
    /// little more than one that is false.
    private mutating func clearRule() {
        if !stack.isEmpty || bitCount > 0 { clearStack() }
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !valueLoops.isEmpty { valueLoops.removeAll(keepingCapacity: true) }
        if !savedSlots.isEmpty { savedSlots.removeAll(keepingCapacity: true) }
        if !slots.isEmpty { slots = initialSlots }
        for index in slotItems.indices { slotItems[index] = nil }
    }
}
