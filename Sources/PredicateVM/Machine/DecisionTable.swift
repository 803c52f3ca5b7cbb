/// A rule made only of tests of fields stored in `SELF`, `NOT`, `AND` and `OR`, decided from
/// its tests' answers all at once: each test is run (a typed load and a comparison, no branch
/// on the item's data), the answers form an index, and the table says what the straight loop
/// (``VirtualMachine/runStraight(_:_:)``) would have answered and charged on that path.
///
/// Short-circuit evaluation branches on the item's data at every `AND` and `OR`, which a
/// processor mispredicts about half the time on mixed items; this has one branch an item, on
/// the budget. The table is made by running the straight loop itself once per combination of
/// answers (``VirtualMachine/runWords(_:_:)``), so it means exactly what the loop means: a
/// path that leaves the straight loop, or an item whose test needs the general path (NaN, an
/// unsigned integer beyond `Int64.max`), or a budget smaller than the path's charge, is run by
/// the loop as before.
struct DecisionTable {
    /// What the straight loop does on one combination of answers.
    struct Outcome {
        /// Steps the path charges.
        let charge: Int32
        let answer: Bool
        /// Whether the path returns from the straight loop (else the loop must run it).
        let decided: Bool

        static let undecided = Outcome(charge: 0, answer: false, decided: false)
    }

    /// The tests, in the order of the program's test words: answer `i` is bit `i` of the index.
    let tests: PlainStorage<FieldTest>
    /// One outcome per combination of answers.
    let outcomes: PlainStorage<Outcome>

    /// No table: every evaluation runs the loop.
    static let none = DecisionTable(tests: PlainStorage([]), outcomes: PlainStorage([]))

    /// At most this many tests (a table of 2⁸ outcomes, 2 KiB).
    static let maximumTests = 8
}

/// How ``VirtualMachine/runWords(_:_:)`` decides a test of a field stored in `SELF`.
protocol StraightDecider {
    /// The answer of the test at word `index`, a test of a field of `kind`; `nil` when the
    /// general path must decide it.
    func decide(_ word: UnsafePointer<MachineWord>, _ kind: FieldTest.Kind, at index: Int) -> Bool?
}

/// The item's own fields, read through its address.
struct StoredFields: StraightDecider {
    let address: UnsafeRawPointer

    @inline(__always)
    func decide(_ word: UnsafePointer<MachineWord>, _ kind: FieldTest.Kind, at _: Int) -> Bool? {
        let field = word.pointee.field
        switch kind {
        case .bool: return FieldTest.answer(field.boolBits(address))
        case .int64: return FieldTest.answer(field.int64Bits(address))
        case .optionalInt64: return FieldTest.answer(field.optionalInt64Bits(address))
        case .uint64: return FieldTest.answer(field.uint64Bits(address))
        case .optionalUInt64: return FieldTest.answer(field.optionalUInt64Bits(address))
        case .double: return FieldTest.answer(field.doubleBits(address))
        case .optionalDouble: return FieldTest.answer(field.optionalDoubleBits(address))
        }
    }
}

/// One combination of answers, bit `i` the answer of test `i`: what the table is made from.
private struct AnswerCombination: StraightDecider {
    let answers: Int
    /// For each word, its test's number, or -1.
    let testOfWord: [Int]

    func decide(_ word: UnsafePointer<MachineWord>, _ kind: FieldTest.Kind, at index: Int) -> Bool? {
        guard index < testOfWord.count, testOfWord[index] >= 0 else { return nil }
        return answers >> testOfWord[index] & 1 == 1
    }
}

extension VirtualMachine {
    /// The decision table of the machine code as it is now, or ``DecisionTable/none`` when the
    /// code has no test of a stored field, more than ``DecisionTable/maximumTests``, or no path
    /// that the straight loop decides.
    func makeDecisionTable() -> DecisionTable {
        let words = machineCode
        var testOfWord = [Int](repeating: -1, count: words.count)
        var tests: [FieldTest] = []
        for index in 0..<words.count where words.base[index].operation.testsSelfField {
            testOfWord[index] = tests.count
            tests.append(words.base[index].field)
        }
        guard !tests.isEmpty, tests.count <= DecisionTable.maximumTests else { return .none }
        // A budget no path reaches: each word charges at most a site's cost and two steps.
        let budget = Int(Int32.max)
        var simulator = self
        var outcomes: [DecisionTable.Outcome] = []
        for answers in 0..<(1 << tests.count) {
            simulator.registers = Registers(steps: budget, bits: 0, bitCount: 0)
            var pc = 0
            let returned = simulator.runWords(AnswerCombination(answers: answers, testOfWord: testOfWord), &pc)
            let charge = budget - simulator.registers.steps
            guard returned, simulator.registers.bitCount == 1, let small = Int32(exactly: charge) else {
                outcomes.append(.undecided)
                continue
            }
            outcomes.append(
                DecisionTable.Outcome(charge: small, answer: simulator.registers.bits & 1 == 1, decided: true))
        }
        guard outcomes.contains(where: \.decided) else { return .none }
        return DecisionTable(tests: PlainStorage(tests), outcomes: PlainStorage(outcomes))
    }

    /// Decides the evaluation of the item at `address` from the decision table, as the straight
    /// loop would from the first word, charging the path's steps; `false` when the table does
    /// not decide it (then nothing is charged).
    @inline(__always)
    mutating func decideAtOnce(_ address: UnsafeRawPointer) -> Bool {
        let count = decisionTable.tests.count
        guard count > 0 else { return false }
        let tests = decisionTable.tests.base
        // Every test, then one branch: none on the answers.
        var index = 0
        var undecided = 0
        for position in 0..<count {
            let bits = tests[position].answerBits(address)
            index |= (bits & 1) &<< position
            undecided |= bits
        }
        let outcome = decisionTable.outcomes.base[index & (decisionTable.outcomes.count - 1)]
        let charge = Int(outcome.charge)
        guard undecided & FieldTest.undecided == 0, outcome.decided, registers.steps >= charge else { return false }
        registers.steps &-= charge
        registers.bits = outcome.answer ? 1 : 0
        registers.bitCount = 1
        return true
    }
}
