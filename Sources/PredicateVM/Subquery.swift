import PredicateSemantics
import PredicateValue

/// One `SUBQUERY` loop in progress.
struct SubqueryFrame {
    /// What the loop walks: the language's values, or items the caller selected, in place.
    enum Elements {
        case values([Value])
        case items(ItemSelection)
    }

    /// The values walked (empty when the loop walks items).
    let values: [Value]
    /// The items walked, in place, when the loop walks a selection: plain data, read without
    /// copying an enum payload on every step.
    let items: ItemSelection?
    let count: Int
    var next = 0
    let slot: Int
    /// What the variable held before the loop, restored after it.
    let saved: Value?
    let savedItem: ItemReader?
    /// The element the variable stands for now (for value loops; item loops bind the item).
    var current: Value = .nil
    var currentItem: ItemReader?
    /// The collected elements, unless the loop only counts them (its result is read by
    /// `@count` alone).
    var results: [Value] = []
    var matched = 0
    /// The `SUBQUERY_NEXT` that runs the loop (the instruction after its `SUBQUERY_BEGIN`), and
    /// whether its exit is `KEYPATH @count`, so that elements are only counted.
    let loop: Int
    let counting: Bool
    /// What `@count` charges for the collected elements: one visit each, plus their own elements.
    var countCost = 0
}

extension VirtualMachine {
    /// `SUBQUERY_BEGIN` over `elements`: charges a step for each element and starts the loop.
    /// `loop` is the instruction after it, its `SUBQUERY_NEXT`.
    mutating func beginSubquery(
        over elements: SubqueryFrame.Elements, slot: Int, loop: Int
    ) throws(EvaluationError) {
        guard slot < slots.count else { throw malformed("no variable \(slot)") }
        let values: [Value]
        let items: ItemSelection?
        switch elements {
        case .values(let elements): (values, items) = (elements, nil)
        case .items(let selection): (values, items) = ([], selection)
        }
        let count = items?.count ?? values.count
        try charge(count)
        let counting = loop >= 0 && loop < countingExits.count && countingExits[loop]
        // A loop over items binds its variable in `slotItems` only: the slot's value is left as
        // it is (nested loops restore what they bind), unless the rule assigns variables.
        let keepsValue = items != nil && !hasEvaluationState
        frames.append(
            SubqueryFrame(
                values: values, items: items, count: count, slot: slot, saved: keepsValue ? nil : slots[slot],
                savedItem: boundItem(slot), loop: loop, counting: counting))
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
        if frame.items == nil || hasEvaluationState { slots[slot] = frame.saved }
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
        push(.array(frame.results))
        pc += Int(exit)
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
        } else {
            let element = frames[top].values[next]
            frames[top].current = element
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
        while bindNextElement(top) {
            do {
                steps -= 1
                if steps < 0 { try charge(0) }
                // The site reads the loop's variable, never `SELF`.
                let matched = try test(site, nil)
                steps -= 1
                if steps < 0 { try charge(0) }
                if matched { collectElement() }
            } catch {
                throw position < program.sourceRanges.count ? error.at(program.sourceRanges[position]) : error
            }
            steps -= 1
            if steps < 0 { try charge(0) }
        }
    }

    /// `SUBQUERY_COLLECT` of a true predicate: keeps the current element (or counts it).
    mutating func collectElement() {
        guard let top = frames.indices.last else { return }
        frames[top].matched += 1
        let counting = frames[top].counting
        if frames[top].items != nil {
            frames[top].countCost &+= 1
            if !counting, let element = frames[top].currentItem { frames[top].results.append(element.boxed()) }
        } else {
            let element = frames[top].current
            frames[top].countCost &+= EvaluationCost.size(element)
            if !counting { frames[top].results.append(element) }
        }
    }
}
