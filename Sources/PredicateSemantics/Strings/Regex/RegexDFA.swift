/// A ``RegexProgram`` made deterministic over ASCII subjects, ahead of time: each state is a set
/// of the NFA's states, and a byte moves to the next set by one table look-up, so an ASCII
/// subject is matched with no allocation and no walk of the state set.
///
/// It answers exactly as ``RegexProgram/wholeMatch(_:budget:)`` does and charges the same steps:
/// the Pike VM spends the size of the state set plus one for each scalar, which is a fact of the
/// set, stored with its state. Built only when the sets reachable over ASCII are few; a pattern
/// with more keeps the NFA.
struct RegexDFA: Sendable {
    /// Per state, 128 entries: the next state on each ASCII byte.
    private let transitions: [Int32]
    /// Per state, what a step from it costs: its NFA states plus one.
    private let stepCosts: [Int32]
    /// Per state, whether it holds the NFA's `match`.
    private let accepting: [Bool]
    /// Per state, whether its NFA set is empty (the Pike VM answers false at once).
    private let dead: [Bool]

    /// The most states built; a pattern that needs more is matched by the NFA.
    static let maximumStates = 64

    /// The largest NFA made deterministic, so a hostile pattern cannot make compiling it slow
    /// (each state set costs a walk of the NFA per class of bytes).
    static let maximumInstructions = 512

    /// The DFA of `program`, or `nil` when it would have more than ``maximumStates`` states or
    /// the NFA has more than ``maximumInstructions`` instructions.
    init?(_ program: RegexProgram) {
        guard program.code.count <= Self.maximumInstructions else { return nil }
        // Bytes that every unit of the program treats alike move every state alike: one closure
        // per class of bytes and state, not per byte.
        let units = program.code.indices.filter { if case .unit = program.code[$0] { true } else { false } }
        var classOfByte: [Int] = []
        var classes: [[Bool]: Int] = [:]
        var representatives: [Unicode.Scalar] = []
        for byte in 0..<128 {
            let scalar = Unicode.Scalar(UInt8(byte))
            let signature = units.map { pc in
                if case .unit(let unit) = program.code[pc] { program.accepts(unit, scalar) } else { false }
            }
            if let known = classes[signature] {
                classOfByte.append(known)
            } else {
                classes[signature] = representatives.count
                classOfByte.append(representatives.count)
                representatives.append(scalar)
            }
        }
        var sets: [[Int]] = [program.closure(of: [0])]
        var index: [[Int]: Int32] = [sets[0]: 0]
        var transitions: [Int32] = []
        var state = 0
        while state < sets.count {
            var byClass: [Int32] = []
            for scalar in representatives {
                let next = program.closure(
                    of: sets[state].compactMap { pc in
                        guard case .unit(let unit) = program.code[pc], program.accepts(unit, scalar) else { return nil }
                        return pc + 1
                    })
                if let known = index[next] {
                    byClass.append(known)
                } else {
                    guard sets.count < Self.maximumStates else { return nil }
                    index[next] = Int32(sets.count)
                    byClass.append(Int32(sets.count))
                    sets.append(next)
                }
            }
            for byte in 0..<128 { transitions.append(byClass[classOfByte[byte]]) }
            state += 1
        }
        self.transitions = transitions
        stepCosts = sets.map { Int32($0.count + 1) }
        accepting = sets.map { $0.contains { program.code[$0] == .match } }
        dead = sets.map(\.isEmpty)
    }

    /// Whether the whole of `bytes` (ASCII) matches, spending ``RegexProgram/wholeMatch(_:budget:)``'s
    /// steps from `budget`; `nil` when the budget ran out (it is then negative).
    func wholeMatch(_ bytes: UnsafeBufferPointer<UInt8>, budget: inout Int) -> Bool? {
        var state = 0
        var left = budget
        defer { budget = left }
        for byte in bytes {
            left -= Int(stepCosts[state])
            guard left >= 0 else { return nil }
            state = Int(transitions[state &* 128 &+ Int(byte & 0x7F)])
            if dead[state] { return false }
        }
        return accepting[state]
    }
}
