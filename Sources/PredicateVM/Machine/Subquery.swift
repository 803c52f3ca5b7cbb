import PredicateSemantics
import PredicateValue

/// One `SUBQUERY` loop in progress, as plain data: pushing, reading and popping a frame touches
/// no reference count. What a loop over the language's values holds on to (the values, the
/// variable's old value, the element and the collected ones) is in a ``ValueLoop`` of its own,
/// on a side stack; a loop over selected items that only counts has none.
struct SubqueryFrame {
    /// The items walked, in place, when the loop walks a selection.
    let items: ItemSelection?
    let count: Int
    var next = 0
    let slot: Int
    /// The item the variable was bound to before the loop, restored after it.
    let savedItem: ItemReader?
    /// The element the variable stands for now, in a loop over items.
    var currentItem: ItemReader?
    var matched = 0
    /// The `SUBQUERY_NEXT` that runs the loop (the instruction after its `SUBQUERY_BEGIN`), and
    /// whether its exit is `KEYPATH @count`, so that elements are only counted.
    let loop: Int
    let counting: Bool
    /// Whether the loop has a ``ValueLoop`` (the top one of ``VirtualMachine/valueLoops``).
    let hasValues: Bool
    /// What `@count` charges for the collected elements: one visit each, plus their own elements.
    var countCost = 0
}

extension SubqueryFrame {
    /// What a loop walks: the language's values, or items the caller selected, in place.
    enum Elements {
        case values([Value])
        case items(ItemSelection)
    }
}

/// What a `SUBQUERY` loop keeps that holds references: the values it walks, what its variable
/// held before (restored after), the element it stands for now and the elements collected.
struct ValueLoop {
    let values: [Value]
    let saved: Value?
    var current: Value = .nil
    var results: [Value] = []
}

extension VirtualMachine {
    /// `SUBQUERY_BEGIN` over `elements`: charges a step for each element and starts the loop.
    /// `loop` is the instruction after it, its `SUBQUERY_NEXT`.
    mutating func beginSubquery(
        over elements: SubqueryFrame.Elements, slot: Int, loop: Int
    ) throws(EvaluationError) {
        guard slot < slots.count else { throw malformed("no variable \(slot)") }
        let counting = loop >= 0 && loop < countingExits.count && countingExits[loop]
        switch elements {
        case .values(let values):
            try charge(values.count)
            valueLoops.append(ValueLoop(values: values, saved: slots[slot]))
            frames.append(
                SubqueryFrame(
                    items: nil, count: values.count, slot: slot, savedItem: boundItem(slot), loop: loop,
                    counting: counting, hasValues: true))
        case .items(let selection):
            try charge(selection.count)
            // A loop over items binds its variable in `slotItems` only: the slot's value is left
            // as it is (nested loops restore what they bind), unless the rule assigns variables.
            // A loop that collects its items, or whose variable's value must be restored, keeps
            // them in a value loop.
            let hasValues = !counting || hasEvaluationState
            if hasValues { valueLoops.append(ValueLoop(values: [], saved: slots[slot])) }
            frames.append(
                SubqueryFrame(
                    items: selection, count: selection.count, slot: slot, savedItem: boundItem(slot), loop: loop,
                    counting: counting, hasValues: hasValues))
        }
    }

    /// `SUBQUERY_NEXT`: binds the variable to the next element, or ends the loop, restoring the
    /// variable and pushing the collected elements (or their count, skipping the `@count` that
    /// reads it) and jumping to the exit.
    mutating func nextElement(exit: Int16, _ pc: inout Int) throws(EvaluationError) {
        guard let top = frames.indices.last else { throw malformed("SUBQUERY_NEXT outside a subquery") }
        let loop = pc - 1
        if loop >= 0, loop < loopTests.count, let site = loopTests[loop] {
            try runTestLoop(top, site: site, test: loop + 1)
        } else if bindNextElement(top) {
            return
        }
        guard let frame = frames.popLast() else { return }
        let slot = frame.slot
        let results = frame.hasValues ? endValueLoop(slot: slot) : nil
        if slot < slotItems.count { slotItems[slot] = frame.savedItem }
        try environment.limits.checkCollection(count: frame.matched)
        if frame.counting {
            guard frame.loop == pc - 1 else { throw malformed("a SUBQUERY ended by another SUBQUERY_NEXT") }
            // The `KEYPATH @count` at the exit, as it would run on the array: its step, and a
            // visit to each element and to the elements inside it.
            if frame.loop < countTests.count, let test = countTests[frame.loop] {
                // And the `PUSH_CONST k; CMP op` after it: their two steps and the scalar
                // comparison's one, then the answer, as a Boolean.
                steps -= 3
                try charge(frame.matched &+ frame.countCost &+ 1)
                pushBool(test.holds(Int64(frame.matched)))
                pc += Int(exit) + 3
                return
            }
            steps -= 1
            try charge(frame.matched &+ frame.countCost)
            push(.int(Int64(frame.matched)))
            pc += Int(exit) + 1
            return
        }
        push(.array(results ?? []))
        pc += Int(exit)
    }

    /// Pops the value loop of the loop ending, restoring its variable; returns what it collected.
    @inline(never)
    private mutating func endValueLoop(slot: Int) -> [Value] {
        guard let valueLoop = valueLoops.popLast() else { return [] }
        slots[slot] = valueLoop.saved
        return valueLoop.results
    }

    /// Binds the variable of loop `top` to its next element; `false` when there is none.
    @inline(__always)
    private mutating func bindNextElement(_ top: Int) -> Bool {
        let next = frames[top].next
        guard next < frames[top].count else { return false }
        let slot = frames[top].slot
        frames[top].next = next + 1
        if let selection = frames[top].items {
            let element = selection.item(next)
            frames[top].currentItem = element
            if slot < slotItems.count { slotItems[slot] = element }
        } else if let loop = valueLoops.indices.last {
            let element = valueLoops[loop].values[next]
            valueLoops[loop].current = element
            slots[slot] = element
            if slot < slotItems.count { slotItems[slot] = nil }
        }
        return true
    }

    /// Runs loop `top`, whose body is the one `TEST` of site `site` at `test` (then
    /// `SUBQUERY_COLLECT`), to its end without dispatching its instructions: each element is
    /// bound, tested and collected, and each step charges what the `TEST`, the
    /// `SUBQUERY_COLLECT` and the next `SUBQUERY_NEXT` charge when they run, so results, errors
    /// and the step budget are those of the instructions.
    private mutating func runTestLoop(_ top: Int, site: Int, test position: Int) throws(EvaluationError) {
        do throws(EvaluationError) {
            if let selection = frames[top].items, frames[top].counting, !frames[top].hasValues,
                frames[top].slot < slotItems.count
            {
                try countItems(selection, top, site: site)
                return
            }
            while bindNextElement(top) {
                steps -= 1
                if steps < 0 { try charge(0) }
                // The site reads the loop's variable, never `SELF`.
                let matched = try test(site, nil)
                steps -= 1
                if steps < 0 { try charge(0) }
                if matched { collectElement() }
                steps -= 1
                if steps < 0 { try charge(0) }
            }
        } catch {
            // The `TEST`'s errors are reported at its range; the step budget's error already
            // names the whole rule, and `at` keeps a range an error has.
            throw position < program.sourceRanges.count ? error.at(program.sourceRanges[position]) : error
        }
    }

    /// The test loop of a counting loop over selected items: the frame's position, count and
    /// cost kept in locals, each item bound and tested in place, and the frame brought up to
    /// date once, at the end.
    @inline(__always)
    private mutating func countItems(_ selection: ItemSelection, _ top: Int, site: Int) throws(EvaluationError) {
        let slot = frames[top].slot
        var next = frames[top].next
        var matched = 0
        defer {
            frames[top].next = next
            frames[top].matched &+= matched
            frames[top].countCost &+= matched
        }
        while next < selection.count, let element = selection.item(next) {
            next += 1
            slotItems[slot] = element
            steps -= 1
            if steps < 0 { try charge(0) }
            let decided: Bool
            var left = steps
            if let stored = decideStored(site, nil, steps: &left) {
                steps = left
                decided = stored
            } else {
                decided = try testByScalar(site, nil)
            }
            steps -= 1
            if steps < 0 { try charge(0) }
            if decided { matched += 1 }
            steps -= 1
            if steps < 0 { try charge(0) }
        }
    }

    /// How many items ahead a loop over selected items asks for an item's dictionary or string
    /// (``StoredDictionary/prefetch(in:)``, ``StoredString/prefetch(in:)``): far enough for the
    /// miss to arrive while the items between are decided (about a memory latency of work),
    /// near enough for the line to be in the cache still.
    static var prefetchDistance: Int { 16 }

    /// A counting `SUBQUERY` over the selected items whose body is one test of a field stored in
    /// them, or of a key of a dictionary they store
    /// (`SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0`), run at once
    /// from its `SUBQUERY_BEGIN` (charged) with `pc` at its `SUBQUERY_NEXT`: every item tested in
    /// place without binding the variable or pushing a frame, then the loop's instructions and
    /// its exit (`@count`, and the comparison with a number after it) charged as they charge
    /// (``CountLoop``), the result pushed and `pc` past them. `false`, with nothing charged or
    /// changed, when the loop is not of this form, an item needs the general path, or the
    /// budget or the collection limit would stop it (the loop then runs as instructions, and
    /// fails as they do).
    mutating func countAtOnce(_ selection: ItemSelection, slot: Int, _ pc: inout Int) -> Bool {
        guard pc < countLoops.count else { return false }
        let plan = countLoops.base + pc
        guard plan.pointee.isPresent, plan.pointee.slot == slot else { return false }
        let test = plan.pointee.test
        var matched = 0
        if let first = selection.first {
            guard ObjectIdentifier(first.type) == hostType else { return false }
            let dictionarySite = plan.pointee.dictionarySite
            let stringSite = plan.pointee.stringSite
            if stringSite >= 0 {
                guard stringSite < stringSites.count, let field = stringSites.base[stringSite].field,
                    let reference = stringSites.base[stringSite].prepared
                else { return false }
                var unordered = ""
                for index in 0..<selection.count {
                    guard let item = selection.item(index) else { return false }
                    if let ahead = selection.item(index &+ Self.prefetchDistance) { field.prefetch(in: ahead.address) }
                    switch storedStringOutcome(stringSite, field, reference, item, unordered: &unordered) {
                    case .isTrue: matched &+= 1
                    case .isFalse: break
                    case .general, .pattern, .cannotOrder: return false
                    }
                }
            } else if dictionarySite >= 0 {
                guard dictionarySite < dictionarySites.count, let field = dictionarySites.base[dictionarySite].field
                else { return false }
                for index in 0..<selection.count {
                    guard let item = selection.item(index) else { return false }
                    if let ahead = selection.item(index &+ Self.prefetchDistance) { field.prefetch(in: ahead.address) }
                    switch storedDictionaryOutcome(dictionarySite, item) {
                    case .isTrue: matched &+= 1
                    case .isFalse: break
                    case .general, .absent: return false
                    }
                }
            } else {
                var undecided = 0
                for index in 0..<selection.count {
                    let bits = test.answerBits(first.address + index &* selection.stride)
                    matched &+= bits & 1
                    undecided |= bits
                }
                guard undecided & FieldTest.undecided == 0 else { return false }
            }
        }
        guard matched <= maximumCollection else { return false }
        let perItem = selection.count.multipliedReportingOverflow(by: plan.pointee.perItem)
        let total = perItem.partialValue.addingReportingOverflow(plan.pointee.fixedCost &+ 2 &* matched)
        guard !perItem.overflow, !total.overflow, steps >= total.partialValue else { return false }
        steps -= total.partialValue
        if let countTest = plan.pointee.countTest {
            pushBool(countTest.holds(Int64(matched)))
        } else {
            push(.int(Int64(matched)))
        }
        pc = plan.pointee.resume
        return true
    }

    /// `SUBQUERY_COLLECT` of a true predicate: keeps the current element (or counts it).
    mutating func collectElement() {
        guard let top = frames.indices.last else { return }
        frames[top].matched += 1
        let counting = frames[top].counting
        if frames[top].items != nil {
            frames[top].countCost &+= 1
            if !counting, let element = frames[top].currentItem, let loop = valueLoops.indices.last {
                valueLoops[loop].results.append(element.boxed())
            }
        } else if let loop = valueLoops.indices.last {
            let element = valueLoops[loop].current
            frames[top].countCost &+= EvaluationCost.size(element)
            if !counting { valueLoops[loop].results.append(element) }
        }
    }
}

/// What ``VirtualMachine/countAtOnce(_:slot:_:)`` needs of a counting `SUBQUERY` over selected
/// items whose body is one test of a field stored in them (or of a key of a dictionary they
/// store), resolved with the item type's
/// tables, by its `SUBQUERY_NEXT`: plain data, read through one pointer.
struct CountLoop {
    /// Whether the loop at this instruction is of that form (the other fields mean nothing if not).
    let isPresent: Bool
    /// The loop's variable.
    let slot: Int
    /// The body's test of each item, when it tests a stored scalar.
    let test: FieldTest
    /// The body's comparison site, when it compares a key of a dictionary the items store
    /// (``VirtualMachine/storedDictionaryOutcome(_:_:)``); -1 otherwise.
    let dictionarySite: Int
    /// The body's comparison site, when it compares a string the items store, or one of a
    /// struct they store (`$i.contentType.identifier UTI-CONFORMS-TO 'public.folder'`:
    /// ``VirtualMachine/storedStringOutcome(_:_:_:_:unordered:)``); -1 otherwise.
    let stringSite: Int
    /// What each item costs: `SUBQUERY_BEGIN`'s step for it, then its `TEST` (and the site's
    /// cost), `SUBQUERY_COLLECT` and `SUBQUERY_NEXT`.
    let perItem: Int
    /// What the loop costs besides: the first `SUBQUERY_NEXT`, the exit's `@count` step, and with
    /// a count test its `PUSH_CONST`, `CMP` and scalar comparison (two more for each item
    /// collected: a visit to it, and its count cost).
    let fixedCost: Int
    /// The comparison of the count with a number after the exit, answered as a Boolean.
    let countTest: IntegerTest?
    /// Where the loop resumes: past `@count`, or past the comparison.
    let resume: Int

    static let absent = CountLoop(
        isPresent: false, slot: -1, test: .never, dictionarySite: -1, stringSite: -1, perItem: 0, fixedCost: 0,
        countTest: nil, resume: 0)
}

extension VirtualMachine {
    /// The program as a ``WholeSelectionCount``, when it is one.
    func makeWholeSelectionCount() -> WholeSelectionCount? {
        let code = program.code
        let loop = 2
        guard code.count > loop, loop < countLoops.count, case .loadSelfKeyPath(let path) = code[0],
            Int(path) < selectionPaths.count, case .key(let key) = selectionPaths[Int(path)],
            case .subqueryBegin(_, let slot) = code[1]
        else { return nil }
        let plan = countLoops.base[loop]
        guard plan.isPresent, plan.slot == Int(slot), plan.countTest != nil, plan.resume < code.count,
            case .returnBool = code[plan.resume]
        else { return nil }
        return WholeSelectionCount(key: key, slot: Int(slot), loop: loop)
    }

    /// Answers the program that is ``wholeSelectionCount`` over `selection` at once: its
    /// `SELF_KEYPATH` and `SUBQUERY_BEGIN` steps, the loop's and comparison's (``countAtOnce(_:slot:_:)``)
    /// and `RETURN_BOOL`'s, charged together, the answer left as the instructions leave it.
    /// `false`, with nothing charged or changed, when the loop cannot be counted at once or the
    /// budget would run out on the way (the instructions then run, and fail where they do).
    @inline(__always)
    mutating func countWholeSelection(_ entry: WholeSelectionCount, _ selection: ItemSelection) -> Bool {
        guard entry.key == selectionKey, steps >= 3 else { return false }
        steps &-= 3
        var pc = entry.loop
        if countAtOnce(selection, slot: entry.slot, &pc) { return true }
        steps &+= 3
        return false
    }

    /// The ``CountLoop`` of each instruction, for the tests of ``storedSites`` and of keys of
    /// dictionaries the items store (``dictionarySites``).
    func makeCountLoops() -> PlainStorage<CountLoop> {
        let code = program.code
        let loops = code.indices.map { loop -> CountLoop in
            guard !hasEvaluationState, loop >= 1, loop < loopTests.count, let site = loopTests[loop],
                site < storedSites.count, site < dictionarySites.count, site < comparisons.count,
                let prepared = comparisons[site], case .subqueryBegin(_, let slot) = code[loop - 1],
                case .subqueryNext(let exit) = code[loop]
            else { return .absent }
            // A test of a stored scalar, or else (in the order the loop's `TEST` tries them) of a
            // string or a key of a dictionary the items store; the site's cost is what its `TEST`
            // charges after its own step.
            let stored = storedSites.base[site]
            let dictionary = dictionarySites.base[site]
            let string = site < stringSites.count ? stringSites.base[site] : .absent
            let test: FieldTest
            let cost: Int
            var dictionarySite = -1
            var stringSite = -1
            if let storedTest = stored.test, stored.variable == Int(slot) {
                (test, cost) = (storedTest, stored.cost)
            } else if string.field != nil, string.prepared != nil, string.variable == Int(slot) {
                (test, cost, stringSite) = (.never, string.cost, site)
            } else if dictionary.key != nil, dictionary.field != nil, dictionary.variable == Int(slot) {
                (test, cost, dictionarySite) = (
                    .never, dictionary.loads + prepared.takeUnretainedValue().scalarCost, site
                )
            } else {
                return .absent
            }
            let countTest = loop < countTests.count ? countTests[loop] : nil
            let exitAt = loop + 1 + Int(exit)
            return CountLoop(
                isPresent: true, slot: Int(slot), test: test, dictionarySite: dictionarySite, stringSite: stringSite,
                perItem: 4 + cost,
                fixedCost: countTest == nil ? 2 : 5, countTest: countTest, resume: exitAt + (countTest == nil ? 1 : 3))
        }
        return PlainStorage(loops)
    }
}

/// A program that is one counting `SUBQUERY` over the selected items, whose body is a test of a
/// field stored in them (or of a key of a dictionary they store), compared with a number and
/// returned
/// (`SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0`, the commonest activation
/// rule): evaluated without entering the instruction loop.
struct WholeSelectionCount {
    /// The selection key the program reads (an index into ``VirtualMachine/selectionKeys``).
    let key: Int
    /// The loop's variable.
    let slot: Int
    /// The loop's `SUBQUERY_NEXT`, where its ``CountLoop`` is.
    let loop: Int
}
