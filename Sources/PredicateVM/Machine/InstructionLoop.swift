import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension VirtualMachine {
    /// The instruction loop, with `SELF` the item at `item`, or the selection, or ``selfValue``.
    ///
    /// One switch over every instruction. The instructions a rule made of comparisons spends its
    /// time in (`TEST…`, `NOT`, the jumps, `RETURN_BOOL`) run here, on the Booleans held as bits;
    /// every other instruction runs in a function of its own, out of line, so that the loop
    /// itself stays small enough to keep its state in registers.
    mutating func run(_ item: ItemReader?) throws(EvaluationError) {
        // Plain pointers, read without retaining an array on every evaluation.
        let words = machineCode.base
        let count = machineCode.count
        // Where the `…SelfField` words read `SELF`'s stored fields: its address, when it is an
        // item of the type the words were made for.
        let selfAddress = item.flatMap { ObjectIdentifier($0.type) == hostType ? $0.address : nil }
        var pc = 0
        while pc < count {
            let word = words[pc]
            pc += 1
            steps -= 1
            do throws(EvaluationError) {
                if steps < 0 { try charge(0) }
                switch word.operation {
                case .testSelfField:
                    let site = Int(word.site)
                    if let decided = decideSelfField(site, selfAddress) {
                        pushBool(decided)
                    } else {
                        pushBool(try testByScalar(site, item))
                    }
                case .testSelfFieldAnd:
                    steps -= 1
                    let site = Int(word.site)
                    let decided: Bool
                    if let stored = decideSelfField(site, selfAddress) {
                        decided = stored
                    } else {
                        decided = try testByScalar(site, item)
                    }
                    if !decided {
                        pushBool(false)
                        pc += Int(word.offset)
                    }
                case .testSelfFieldOr:
                    steps -= 1
                    let site = Int(word.site)
                    let decided: Bool
                    if let stored = decideSelfField(site, selfAddress) {
                        decided = stored
                    } else {
                        decided = try testByScalar(site, item)
                    }
                    if decided {
                        pushBool(true)
                        pc += Int(word.offset)
                    }
                case .test:
                    let site = Int(word.site)
                    if let decided = decideStored(site, item) {
                        pushBool(decided)
                    } else {
                        pushBool(try testByScalar(site, item))
                    }
                case .testAnd:
                    steps -= 1
                    let site = Int(word.site)
                    let decided: Bool
                    if let stored = decideStored(site, item) {
                        decided = stored
                    } else {
                        decided = try testByScalar(site, item)
                    }
                    if !decided {
                        pushBool(false)
                        pc += Int(word.offset)
                    }
                case .testOr:
                    steps -= 1
                    let site = Int(word.site)
                    let decided: Bool
                    if let stored = decideStored(site, item) {
                        decided = stored
                    } else {
                        decided = try testByScalar(site, item)
                    }
                    if decided {
                        pushBool(true)
                        pc += Int(word.offset)
                    }
                case .not:
                    try negateTop()
                case .jump:
                    pc += Int(word.offset)
                case .jumpIfFalse:
                    if !(try popBool()) { pc += Int(word.offset) }
                case .jumpIfFalseOrPop:
                    if try peekBool() { _ = try popBool() } else { pc += Int(word.offset) }
                case .jumpIfTrueOrPop:
                    if try peekBool() { pc += Int(word.offset) } else { _ = try popBool() }
                case .returnBool:
                    if bitCount == 0 { _ = try peekBool() }
                    return
                case .subqueryNext:
                    try nextElement(exit: Int16(truncatingIfNeeded: word.offset), &pc)
                case .general:
                    if try execute(pc - 1, &pc, item) { return }
                }
            } catch {
                let site = pc - 1
                let located = site < program.sourceRanges.count ? error.at(program.sourceRanges[site]) : error
                guard program.kind == .ruleSet, let resume = recover(after: site, located) else { throw located }
                pc = resume
            }
        }
        throw malformed("ran past the end of the code")
    }

    /// `NOT`: flips the Boolean on top in place.
    @inline(__always)
    private mutating func negateTop() throws(EvaluationError) {
        if bitCount > 0 { bits ^= 1 } else { pushBool(!(try popBool())) }
    }

    /// Runs instruction `index`, whatever it is (the loop sends it the instructions without an
    /// operation of their own); answers whether the evaluation returns.
    @inline(never)
    private mutating func execute(_ index: Int, _ pc: inout Int, _ item: ItemReader?) throws(EvaluationError) -> Bool {
        guard index < instructions.count else { throw malformed("ran past the end of the code") }
        switch instructions.base[index] {
        case .test(let site):
            pushBool(try test(Int(site), item))
        case .testAnd(let offset, let site):
            steps -= 1
            if !(try test(Int(site), item)) {
                pushBool(false)
                pc += Int(offset)
            }
        case .testOr(let offset, let site):
            steps -= 1
            if try test(Int(site), item) {
                pushBool(true)
                pc += Int(offset)
            }
        case .not:
            try negateTop()
        case .jump(let offset):
            pc += Int(offset)
        case .jumpIfFalse(let offset):
            if !(try popBool()) { pc += Int(offset) }
        case .jumpIfFalseOrPop(let offset):
            if try peekBool() { _ = try popBool() } else { pc += Int(offset) }
        case .jumpIfTrueOrPop(let offset):
            if try peekBool() { pc += Int(offset) } else { _ = try popBool() }
        case .returnBool:
            if bitCount == 0 { _ = try peekBool() }
            return true
        case .returnValue, .returnRules:
            return true
        case .subqueryNext(let exit):
            try nextElement(exit: exit, &pc)
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
            try beginSubquery(over: .items(selection), slot: Int(slot), loop: pc)
        } else {
            push(try selfKeyPath(Int(index), item))
        }
    }

    @inline(never)
    private mutating func callFunction(_ selector: UInt16, _ arity: UInt8) throws(EvaluationError) {
        let arguments = popArguments(Int(arity))
        try charge(EvaluationCost.call(arguments))
        push(try BuiltinFunctions.call(string(selector), arguments))
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

    /// A rule set's error at `site` hides the rule it happened in: records it, clears what the
    /// rule left behind (the verifier guarantees rules start with nothing open) and answers where
    /// the next rule starts.
    private mutating func recover(after site: Int, _ error: EvaluationError) -> Int? {
        let code = program.code
        var pc = site
        while pc < code.count {
            if case .ruleEnd(let rule) = code[pc] {
                ruleErrors.append((rule: Int(rule), error: error))
                clearStack()
                frames.removeAll(keepingCapacity: true)
                valueLoops.removeAll(keepingCapacity: true)
                savedSlots.removeAll(keepingCapacity: true)
                slots = initialSlots
                for index in slotItems.indices { slotItems[index] = nil }
                return pc + 1
            }
            pc += 1
        }
        return nil
    }
}
