/// A ``RegexProgram`` made deterministic ahead of time: each state is a set of the NFA's
/// states, and a scalar moves to the next set by one table look-up, so a subject is matched
/// with no allocation and no walk of the state set.
///
/// Scalars that every unit of the program treats alike move every state alike, so the table
/// is indexed by class of scalars, not by scalar: a class per distinct behaviour among the
/// ASCII bytes, found by trying each, and beyond ASCII a class per interval between the
/// program's own scalars and range bounds (nothing else can tell two scalars apart, when the
/// program decides non-ASCII subjects at all: no case folding, no `\d`, `\w` or `\s`).
///
/// It answers exactly as ``RegexProgram/wholeMatch(_:budget:)`` does and charges the same steps:
/// the Pike VM spends the size of the state set plus one for each scalar, which is a fact of the
/// set, stored with its state. Built only when the sets reachable are few; a pattern with more
/// keeps the NFA.
struct RegexDFA: Sendable {
    /// Per state, ``classCount`` entries: the next state on a scalar of each class.
    private let transitions: [Int32]
    /// Per state, 128 entries: the next state on each ASCII byte (the classes looked up ahead).
    private let asciiTransitions: [Int32]
    /// Per state: what a step from it costs (its NFA states plus one) shifted left by two, then
    /// ``deadBit`` when its NFA set is empty (the Pike VM answers false at once) and
    /// ``acceptingBit`` when it holds the NFA's `match`.
    private let facts: [Int32]
    private static let deadBit: Int32 = 2
    private static let acceptingBit: Int32 = 1
    /// The class of each ASCII byte.
    private let asciiClasses: [Int32]
    /// The first scalar of each interval beyond ASCII, ascending from U+0080, and its class;
    /// empty when the program leaves non-ASCII subjects to ICU.
    private let intervalStarts: [UInt32]
    private let intervalClasses: [Int32]
    private let classCount: Int

    /// Whether non-ASCII subjects may be matched here (see ``wholeMatch(scalarsOf:budget:)``).
    var decidesNonASCII: Bool { !intervalStarts.isEmpty }

    /// The most states built; a pattern that needs more is matched by the NFA.
    static let maximumStates = 64

    /// The most classes of scalars: a pattern whose classes beyond ASCII would be more is
    /// made deterministic over ASCII only.
    static let maximumClasses = 128

    /// The largest NFA made deterministic, so a hostile pattern cannot make compiling it slow
    /// (each state set costs a walk of the NFA per class of scalars).
    static let maximumInstructions = 512

    /// The DFA of `program`, or `nil` when it would have more than ``maximumStates`` states or
    /// the NFA has more than ``maximumInstructions`` instructions.
    init?(_ program: RegexProgram) {
        guard program.code.count <= Self.maximumInstructions else { return nil }
        let units: [RegexUnit] = program.code.compactMap { if case .unit(let unit) = $0 { unit } else { nil } }
        var classes: [[Bool]: Int32] = [:]
        var representatives: [Unicode.Scalar] = []
        func classOf(_ scalar: Unicode.Scalar) -> Int32 {
            let signature = units.map { program.accepts($0, scalar) }
            if let known = classes[signature] { return known }
            let new = Int32(representatives.count)
            classes[signature] = new
            representatives.append(scalar)
            return new
        }
        let asciiClasses = (0..<128).map { classOf(Unicode.Scalar(UInt8($0))) }
        self.asciiClasses = asciiClasses
        var intervalStarts: [UInt32] = []
        var intervalClasses: [Int32] = []
        if !program.needsASCIISubject {
            let asciiClassCount = representatives.count
            for start in Self.intervalStarts(of: units) {
                // An interval that starts among the surrogates holds scalars only from U+E000
                // (one of surrogates alone is never looked up).
                let scalar = Unicode.Scalar(start) ?? "\u{E000}"
                intervalStarts.append(start)
                intervalClasses.append(classOf(scalar))
            }
            if representatives.count > Self.maximumClasses {
                // Too many distinctions: ASCII only, as its classes were.
                representatives.removeLast(representatives.count - asciiClassCount)
                intervalStarts = []
                intervalClasses = []
            }
        }
        self.intervalStarts = intervalStarts
        self.intervalClasses = intervalClasses
        classCount = representatives.count
        var sets: [[Int]] = [program.closure(of: [0])]
        var index: [[Int]: Int32] = [sets[0]: 0]
        var transitions: [Int32] = []
        var state = 0
        while state < sets.count {
            for scalar in representatives {
                let next = program.closure(
                    of: sets[state].compactMap { pc in
                        guard case .unit(let unit) = program.code[pc], program.accepts(unit, scalar) else { return nil }
                        return pc + 1
                    })
                if let known = index[next] {
                    transitions.append(known)
                } else {
                    guard sets.count < Self.maximumStates else { return nil }
                    index[next] = Int32(sets.count)
                    transitions.append(Int32(sets.count))
                    sets.append(next)
                }
            }
            state += 1
        }
        self.transitions = transitions
        let classCount = classCount
        asciiTransitions = sets.indices.flatMap { state in
            asciiClasses.map { transitions[state * classCount + Int($0)] }
        }
        facts = sets.map { set in
            Int32(set.count + 1) << 2 | (set.isEmpty ? Self.deadBit : 0)
                | (set.contains { program.code[$0] == .match } ? Self.acceptingBit : 0)
        }
    }

    /// Where the scalars beyond ASCII change how some unit treats them: U+0080, and each
    /// scalar the units name and the one after it, each range's bounds. Between two of these,
    /// every unit answers alike.
    private static func intervalStarts(of units: [RegexUnit]) -> [UInt32] {
        var starts: Set<UInt32> = [0x80]
        func add(_ lower: UInt32, _ upper: UInt32) {
            if lower > 0x80 { starts.insert(lower) }
            if upper >= 0x80 && upper < 0x10_FFFF { starts.insert(upper + 1) }
        }
        for unit in units {
            switch unit {
            case .any: break
            case .scalar(let scalar): add(scalar.value, scalar.value)
            case .set(let items, _):
                for item in items {
                    switch item {
                    case .scalar(let scalar): add(scalar.value, scalar.value)
                    case .range(let lower, let upper): add(lower.value, upper.value)
                    // Only in programs that leave non-ASCII subjects to ICU.
                    case .property: break
                    }
                }
            }
        }
        return starts.sorted()
    }

    /// Whether the whole of `bytes` (ASCII) matches, spending ``RegexProgram/wholeMatch(_:budget:)``'s
    /// steps from `budget`; `nil` when the budget ran out (it is then negative).
    func wholeMatch(_ bytes: UnsafeBufferPointer<UInt8>, budget: inout Int) -> Bool? {
        asciiTransitions.withUnsafeBufferPointer { transitions in
            facts.withUnsafeBufferPointer { facts in
                var state = 0
                var left = budget
                defer { budget = left }
                for byte in bytes {
                    left -= Int(facts[state] >> 2)
                    guard left >= 0 else { return nil }
                    state = Int(transitions[state &<< 7 | Int(byte & 0x7F)])
                    if facts[state] & Self.deadBit != 0 { return false }
                }
                return facts[state] & Self.acceptingBit != 0
            }
        }
    }

    /// How matching the scalars of some UTF-8 ended (see ``wholeMatch(scalarsOf:budget:stable:)``).
    enum Outcome: Equatable {
        case decided(Bool)
        /// The budget ran out.
        case ranOut
        /// A scalar failed `stable`: nothing was spent, and the subject is the caller's to prepare.
        case unstable
    }

    /// Whether the whole of the scalars that `utf8` (valid UTF-8) encodes matches, spending the
    /// Pike VM's steps from `budget`, as long as every scalar met passes `stable` (the subject
    /// is then the text the program must see). Only when ``decidesNonASCII``.
    func wholeMatch(
        scalarsOf utf8: UnsafeBufferPointer<UInt8>, budget: inout Int, stable: (UInt32) -> Bool
    )
        -> Outcome
    {
        var state = 0
        var left = budget
        var index = 0
        var ranOut = false
        while index < utf8.count {
            guard let (value, length) = FoldTable.scalar(in: utf8, at: index), stable(value) else { return .unstable }
            index &+= length
            // The budget is spent only once the whole subject proves stable.
            if ranOut { continue }
            left -= Int(facts[state] >> 2)
            guard left >= 0 else {
                ranOut = true
                continue
            }
            state = Int(transitions[state &* classCount &+ Int(classOf(value))])
            if facts[state] & Self.deadBit != 0 {
                // Decided: what follows cannot change the answer, but must still be stable.
                while index < utf8.count {
                    guard let (value, length) = FoldTable.scalar(in: utf8, at: index), stable(value) else {
                        return .unstable
                    }
                    index &+= length
                }
                budget = left
                return .decided(false)
            }
        }
        if ranOut {
            budget = left
            return .ranOut
        }
        budget = left
        return .decided(facts[state] & Self.acceptingBit != 0)
    }

    private func classOf(_ value: UInt32) -> Int32 {
        if value < 0x80 { return asciiClasses[Int(value)] }
        // The last interval starting at or before `value`.
        var low = 0
        var high = intervalStarts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if intervalStarts[middle] <= value { low = middle } else { high = middle }
        }
        return intervalClasses[low]
    }
}
