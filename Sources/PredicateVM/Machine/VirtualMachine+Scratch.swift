import PredicateSemantics
import PredicateSyntax
import PredicateValue

// The scratch space between evaluations: what each evaluation resets, and what one that threw
// left behind.

extension VirtualMachine {
    /// Forgets `SELF`'s value at the end of an evaluation, so the machine does not keep it alive.
    @inline(never)
    mutating func dropSelfValue() {
        selfValue = .nil
        hasSelfValue = false
    }

    /// Resets the scratch space for an evaluation with `variables`.
    @inline(__always)
    mutating func prepare(variables: [String: Value]) {
        steps = maximumSteps
        bitCount = 0
        // Scratch space is empty after an evaluation that returned: a rule without variables
        // or memo slots then has nothing to reset.
        if scratchInUse || hasEvaluationState || slotsHoldCallerVariables || !variables.isEmpty {
            reset(variables: variables)
        }
        scratchInUse = true
    }

    /// Resets the scratch space for the next evaluation with the same `variables` as the last
    /// one: still bound unless that evaluation assigned variables or threw.
    @inline(__always)
    mutating func prepareAgain(variables: [String: Value]) {
        steps = maximumSteps
        bitCount = 0
        if scratchInUse || hasEvaluationState { reset(variables: variables) }
        scratchInUse = true
    }

    /// Empties what an evaluation that threw left behind and binds `variables`.
    @inline(never)
    mutating func reset(variables: [String: Value]) {
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
