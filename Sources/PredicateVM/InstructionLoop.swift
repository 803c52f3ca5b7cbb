import PredicateBytecode
import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension VirtualMachine {
    /// The instruction loop, with `SELF` the item at `item`, or the selection, or ``selfValue``.
    mutating func run(_ item: ItemReader?) throws(EvaluationError) {
        // A plain pointer, read without retaining the program's array on every evaluation.
        let code = instructions.base
        let count = instructions.count
        var pc = 0
        while pc < count {
            let instruction = code[pc]
            pc += 1
            steps -= 1
            do {
                if steps < 0 { try charge(0) }
                if try execute(instruction, &pc, item) { return }
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
    /// stack.
    @inline(__always)
    private mutating func execute(
        _ instruction: Instruction, _ pc: inout Int, _ item: ItemReader?
    ) throws(EvaluationError) -> Bool {
        switch instruction {
        case .pushConstant(let index):
            let index = Int(index)
            let value = index < program.constants.count ? program.constants[index] : .nil
            if case .bool(let flag) = value { pushBool(flag) } else { push(value) }
        case .pushSelf:
            push(evaluatedObject(item))
        case .loadVariable(let slot):
            push(try variable(Int(slot)))
        case .storeVariable(let slot):
            let slot = Int(slot)
            guard slot < slots.count else { throw malformed("no variable \(slot)") }
            slots[slot] = peek()
            if slot < slotItems.count { slotItems[slot] = nil }
        case .loadKeyPath(let index):
            let receiver = pop()
            push(try keyPath(index, from: receiver))
        case .loadSelfKeyPath(let index):
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
        case .compare(let op, let options, let quantifier):
            let rhs = pop()
            let lhs = pop()
            pushBool(try compare(op, lhs, rhs, quantifier, options))
        case .callFunction(let selector, let arity):
            let arguments = popArguments(Int(arity))
            try charge(EvaluationCost.call(arguments))
            push(try BuiltinFunctions.call(string(selector), arguments))
        case .invoke(let selector, let arity):
            let arguments = popArguments(Int(arity))
            let receiver = pop()
            try charge(EvaluationCost.call(arguments))
            push(try MethodInvocation.invoke(string(selector), on: receiver, arguments: arguments))
        case .makeArray(let count):
            let elements = popArguments(Int(count))
            try environment.limits.checkCollection(count: elements.count)
            push(.array(elements.map(\.asCollectionElement)))
        case .indexSymbol(let symbol):
            let receiver = pop()
            let spec: CollectionOperations.IndexValue
            switch symbol {
            case .first: spec = .first
            case .last: spec = .last
            case .size: spec = .size
            }
            push(try CollectionOperations.index(receiver, spec))
        case .index:
            let index = pop()
            let receiver = pop()
            push(try CollectionOperations.index(receiver, .value(index)))
        case .cast:
            let type = pop()
            let value = pop()
            push(try Cast.cast(value, to: type))
        case .setOperation(let op):
            let rhs = pop()
            let lhs = pop()
            try charge(EvaluationCost.setOperation(lhs, rhs))
            let result = try CollectionOperations.setOperation(op, lhs, rhs)
            if case .set(let members) = result { try environment.limits.checkCollection(count: members.count) }
            push(result)
        case .not:
            pushBool(!(try popBool()))
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
        case .jump(let offset):
            pc += Int(offset)
        case .jumpIfFalse(let offset):
            if !(try popBool()) { pc += Int(offset) }
        case .jumpIfFalseOrPop(let offset):
            if try peekBool() { _ = try popBool() } else { pc += Int(offset) }
        case .jumpIfTrueOrPop(let offset):
            if try peekBool() { pc += Int(offset) } else { _ = try popBool() }
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
        case .subqueryNext(let exit):
            try nextElement(exit: exit, &pc)
        case .subqueryCollect(let offset):
            let matched = try popBool()
            guard !frames.isEmpty else { throw malformed("SUBQUERY_COLLECT outside a subquery") }
            if matched { collectElement() }
            pc += Int(offset)
        case .returnBool:
            _ = try peekBool()
            return true
        case .returnValue:
            return true
        case .fail(let message):
            throw EvaluationError(.unsupported, string(message))
        case .memoLoad(let skip, let slot):
            let slot = Int(slot)
            if slot < memoStamps.count, memoStamps[slot] == evaluationStamp {
                let value = memoValues[slot]
                if case .bool(let flag) = value { pushBool(flag) } else { push(value) }
                pc += Int(skip)
            }
        case .memoStore(let slot):
            let slot = Int(slot)
            if slot < memoStamps.count {
                memoValues[slot] = peek()
                memoStamps[slot] = evaluationStamp
            }
        case .ruleEnd(let rule):
            if try popBool() {
                let rule = Int(rule)
                if rule >> 6 < ruleBits.count { ruleBits[rule >> 6] |= 1 << UInt64(rule & 63) }
            }
        case .returnRules:
            return true
        }
        return false
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
