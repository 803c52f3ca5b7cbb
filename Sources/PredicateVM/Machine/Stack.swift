import PredicateSemantics
import PredicateValue

// The machine's stack: values, with the Booleans on top of them kept as bits. A Boolean is
// pushed as a bit; an instruction that pushes or pops a value first moves the bits onto the
// value stack, so the order of the logical stack is kept.

extension VirtualMachine {
    /// Pushes a Boolean.
    @inline(__always)
    mutating func pushBool(_ flag: Bool) {
        if bitCount == 64 { spillBits() }
        bits = bits << 1 | (flag ? 1 : 0)
        bitCount += 1
    }

    /// Pops a Boolean; a value on top that is not one means the program is malformed.
    @inline(__always)
    mutating func popBool() throws(EvaluationError) -> Bool {
        if bitCount > 0 {
            let top = bits & 1 == 1
            bits >>= 1
            bitCount -= 1
            return top
        }
        guard case .bool(let flag) = stack.popLast() else { throw malformed("a Boolean was expected on the stack") }
        return flag
    }

    /// The Boolean on top, left there.
    @inline(__always)
    func peekBool() throws(EvaluationError) -> Bool {
        if bitCount > 0 { return bits & 1 == 1 }
        guard case .bool(let flag) = stack.last else { throw malformed("a Boolean was expected on the stack") }
        return flag
    }

    /// Pushes a value.
    @inline(__always)
    mutating func push(_ value: Value) {
        if bitCount > 0 { spillBits() }
        stack.append(value)
    }

    /// Pops a value (nil from an empty stack, which verified programs never reach).
    @inline(__always)
    mutating func pop() -> Value {
        if bitCount > 0 { spillBits() }
        return stack.popLast() ?? .nil
    }

    /// The value on top, left there.
    mutating func peek() -> Value {
        if bitCount > 0 { spillBits() }
        return stack.last ?? .nil
    }

    /// The top `count` values, in stack order, popped.
    mutating func popArguments(_ count: Int) -> [Value] {
        if bitCount > 0 { spillBits() }
        let available = min(count, stack.count)
        let arguments = Array(stack.suffix(available))
        stack.removeLast(available)
        return arguments
    }

    /// Moves the Booleans held as bits onto the value stack, oldest first.
    @inline(never)
    mutating func spillBits() {
        for position in stride(from: bitCount - 1, through: 0, by: -1) {
            stack.append(.bool(bits >> UInt64(position) & 1 == 1))
        }
        bits = 0
        bitCount = 0
    }

    /// Empties the stack.
    mutating func clearStack() {
        stack.removeAll(keepingCapacity: true)
        bits = 0
        bitCount = 0
    }

    // MARK: Variables

    /// `$name` in slot `slot`: unbound is an error, `null` reads as nil (SPEC §4.9.7); a slot a
    /// `SUBQUERY` over selected items bound holds that item.
    func variable(_ slot: Int) throws(EvaluationError) -> Value {
        guard slot < slots.count else { throw malformed("no variable \(slot)") }
        if slot < slotItems.count, let item = slotItems[slot] { return item.boxed() }
        guard let value = slots[slot] else {
            throw EvaluationError(.unboundVariable, "the variable $\(program.variables[slot]) has no value")
        }
        return value.isNull ? .nil : value
    }

    func variable(named name: String) throws(EvaluationError) -> Value {
        guard let slot = program.variables.firstIndex(of: name) else {
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
        return try variable(slot)
    }

    /// The item bound to variable `slot`, when a `SUBQUERY` over selected items bound it.
    @inline(__always)
    func boundItem(_ slot: Int) -> ItemReader? {
        slot < slotItems.count ? slotItems[slot] : nil
    }
}
