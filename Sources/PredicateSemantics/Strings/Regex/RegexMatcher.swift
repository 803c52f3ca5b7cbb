/// Runs a ``RegexProgram`` over a subject as a Pike VM without captures: the set of NFA states
/// alive after each scalar, so the time is linear in the subject (times the program's size) and
/// no pattern backtracks; the memory is two state lists of the program's size.
extension RegexProgram {
    /// Whether the whole of `subject` matches, spending one step from `budget` per state visited;
    /// `nil` when the budget ran out (it is then negative). Subjects this engine cannot decide
    /// exactly (see ``needsASCIISubject`` and ``hasAny``) are not given here.
    func wholeMatch(_ subject: [Unicode.Scalar], budget: inout Int) -> Bool? {
        var current = StateList(capacity: code.count)
        var next = StateList(capacity: code.count)
        var stack: [Int] = []
        var stamp = 1
        var marks = [Int](repeating: 0, count: code.count)
        add(0, to: &current, marks: &marks, stamp: stamp, stack: &stack)
        for scalar in subject {
            budget -= current.count + 1
            guard budget >= 0 else { return nil }
            stamp += 1
            next.count = 0
            for index in 0..<current.count {
                let pc = current.states[index]
                guard case .unit(let unit) = code[pc], accepts(unit, scalar) else { continue }
                add(pc + 1, to: &next, marks: &marks, stamp: stamp, stack: &stack)
            }
            swap(&current, &next)
            if current.count == 0 { return false }
        }
        for index in 0..<current.count where code[current.states[index]] == .match { return true }
        return false
    }

    /// Whether this program decides `subject` itself (else ICU does).
    func decides(_ subject: [Unicode.Scalar]) -> Bool {
        if needsASCIISubject && !subject.allSatisfy(\.isASCII) { return false }
        if hasAny {
            for index in subject.indices.dropLast() where subject[index] == "\r" && subject[index + 1] == "\n" {
                return false
            }
        }
        return true
    }

    /// The NFA states (their `unit`s and `match`) reachable from `starts` without consuming a
    /// scalar, sorted: the set the Pike VM holds at one position, found as the VM finds it.
    func closure(of starts: [Int]) -> [Int] {
        var list = StateList(capacity: code.count)
        var marks = [Int](repeating: 0, count: code.count)
        var stack: [Int] = []
        for start in starts { add(start, to: &list, marks: &marks, stamp: 1, stack: &stack) }
        return list.states[..<list.count].sorted()
    }

    /// Adds `start` and every state reachable from it without consuming a scalar.
    private func add(_ start: Int, to list: inout StateList, marks: inout [Int], stamp: Int, stack: inout [Int]) {
        stack.append(start)
        while let pc = stack.popLast() {
            guard pc < code.count, marks[pc] != stamp else { continue }
            marks[pc] = stamp
            switch code[pc] {
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .unit, .match: list.append(pc)
            }
        }
    }

    func accepts(_ unit: RegexUnit, _ scalar: Unicode.Scalar) -> Bool {
        switch unit {
        case .any: return true
        case .scalar(let expected): return same(expected, scalar)
        case .set(let items, let negated):
            let contained = items.contains { item in
                switch item {
                case .scalar(let member): return same(member, scalar)
                case .range(let lower, let upper):
                    if (lower.value...upper.value).contains(scalar.value) { return true }
                    guard caseInsensitive, let other = Self.otherCase(scalar) else { return false }
                    return (lower.value...upper.value).contains(other)
                case .property(let property, let negated):
                    // Only ASCII subjects reach a property (``needsASCIISubject``).
                    return property.contains(ascii: scalar.value) != negated
                }
            }
            return contained != negated
        }
    }

    /// Equal, or the two cases of one ASCII letter under the case-insensitive flag.
    private func same(_ expected: Unicode.Scalar, _ scalar: Unicode.Scalar) -> Bool {
        if expected == scalar { return true }
        guard caseInsensitive, let other = Self.otherCase(scalar) else { return false }
        return expected.value == other
    }

    /// The other case of an ASCII letter.
    private static func otherCase(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x41...0x5A: return scalar.value + 0x20
        case 0x61...0x7A: return scalar.value - 0x20
        default: return nil
        }
    }
}

/// NFA states alive at one position, in a buffer reused for the whole match.
private struct StateList {
    var states: [Int]
    var count = 0

    init(capacity: Int) { states = [Int](repeating: 0, count: max(1, capacity)) }

    mutating func append(_ state: Int) {
        // Each state is added at most once per position (the marks), so this never overflows.
        guard count < states.count else { return }
        states[count] = state
        count += 1
    }
}
