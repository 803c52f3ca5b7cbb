import PredicateValue

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
@usableFromInline
struct DecisionTable: Sendable {
    /// What the straight loop does on one combination of answers.
    @usableFromInline
    struct Outcome: Sendable {
        /// Steps the path charges.
        @usableFromInline let charge: Int32
        @usableFromInline let answer: Bool
        /// Whether the path returns from the straight loop (else the loop must run it).
        @usableFromInline let decided: Bool

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

    /// `SELF`, for the tests of other sites read from it (``MachineOperation/testSelfString`` and the like);
    /// `nil` when they are left to the general path.
    var item: ItemReader? { get }

    /// The answer of the test of a site read from `SELF` at word `index`, when the decider
    /// knows it without reading ``item`` (a combination of answers); `nil` otherwise.
    func decideSite(at index: Int) -> SiteAnswer?
}

/// The item's own fields, read through its address.
struct StoredFields: StraightDecider {
    let address: UnsafeRawPointer
    let type: any KeyValueCoding.Type
    /// The item's schema identity, when its type says it without asking the item.
    let schema: ObjectIdentifier?

    /// The item, its schema asked of it only when its type has no shared one: only the tests
    /// that need it pay for that.
    @inline(__always)
    var item: ItemReader? {
        schema.map { ItemReader(address: address, type: type, schema: $0) } ?? ItemReader(address: address, type: type)
    }

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

    /// `nil`: the item's sites are read from the item.
    @inline(__always)
    func decideSite(at _: Int) -> SiteAnswer? { nil }
}

/// One combination of answers, bit `i` the answer of test `i`: what the table is made from.
private struct AnswerCombination: StraightDecider {
    var answers: Int
    /// For each word, its test's number, or -1.
    let testOfWord: [Int]
    /// For each word that tests a site read from `SELF`, what the site charges when it decides.
    var siteCosts: [Int] = []
    /// No item: the table is made of the tests' answers alone.
    var item: ItemReader? { nil }

    func decide(_ word: UnsafePointer<MachineWord>, _ kind: FieldTest.Kind, at index: Int) -> Bool? {
        answer(at: index)
    }

    func decideSite(at index: Int) -> SiteAnswer? {
        guard index < siteCosts.count, let answer = answer(at: index) else { return nil }
        return SiteAnswer(answer, cost: siteCosts[index])
    }

    private func answer(at index: Int) -> Bool? {
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
        guard !tests.isEmpty, tests.count <= DecisionTable.maximumTests,
            let outcomes = outcomes(AnswerCombination(answers: 0, testOfWord: testOfWord), tests: tests.count)
        else { return .none }
        return DecisionTable(tests: PlainStorage(tests), outcomes: PlainStorage(outcomes))
    }

    /// What the straight loop does on each combination of answers of `count` tests, told by
    /// `combination` (whose `answers` each run replaces); `nil` when it decides none.
    private func outcomes(_ combination: AnswerCombination, tests count: Int) -> [DecisionTable.Outcome]? {
        // A budget no path reaches: each word charges at most a site's cost and two steps.
        let budget = Int(Int32.max)
        var simulator = self
        var outcomes: [DecisionTable.Outcome] = []
        for answers in 0..<(1 << count) {
            simulator.registers = Registers(steps: budget, bits: 0, bitCount: 0)
            var pc = 0
            var decider = combination
            decider.answers = answers
            let returned = simulator.runWords(decider, &pc)
            let charge = budget - simulator.registers.steps
            guard returned, simulator.registers.bitCount == 1, let small = Int32(exactly: charge) else {
                outcomes.append(.undecided)
                continue
            }
            outcomes.append(
                DecisionTable.Outcome(charge: small, answer: simulator.registers.bits & 1 == 1, decided: true))
        }
        return outcomes.contains(where: \.decided) ? outcomes : nil
    }

    /// The ``SiteTable`` of the machine code as it is now: when every test in it is of a field
    /// of `SELF` that a ``SingleFieldTest`` decides (all of one schema), at most
    /// ``DecisionTable/maximumTests`` of them, and some path is decided by the straight loop.
    func makeSiteTable() -> SiteTable? {
        let words = machineCode
        guard decisionTable.tests.count == 0, !hasEvaluationState, program.kind == .predicate else { return nil }
        var testOfWord = [Int](repeating: -1, count: words.count)
        var siteCosts = [Int](repeating: 0, count: words.count)
        var tests: [SingleFieldTest] = []
        var matchers: [KernelMatcher] = []
        for index in 0..<words.count {
            let word = words.base[index]
            let site = Int(word.site)
            // Any other test is decided otherwise (a stored field, a dictionary key) or by the
            // instructions; `NOT`, the jumps and `RETURN_BOOL` are the table's.
            let test: SingleFieldTest?
            let cost: Int
            if word.operation == .testSelfScalar {
                test = singleFieldTest(site, matchers: &matchers)
                cost = site < scalarSites.count ? scalarSites.base[site].cost : 0
            } else if word.operation == .testSelfString {
                test = storedStringTest(site, matchers: &matchers)
                cost = site < stringSites.count ? stringSites.base[site].cost : 0
            } else if word.operation.testsSelfField || word.operation == .testSelfDictionary {
                return nil
            } else {
                continue
            }
            guard tests.count < DecisionTable.maximumTests, let test, test.schema == tests.first?.schema ?? test.schema
            else { return nil }
            testOfWord[index] = tests.count
            siteCosts[index] = cost
            tests.append(test)
        }
        guard let schema = tests.first?.schema,
            let outcomes = outcomes(
                AnswerCombination(answers: 0, testOfWord: testOfWord, siteCosts: siteCosts), tests: tests.count)
        else { return nil }
        return SiteTable(schema: schema, tests: tests, outcomes: outcomes, budget: maximumSteps, matchers: matchers)
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

extension VirtualMachine {
    /// Answers the `count` items of the host type from `base`, `stride` bytes apart, by the
    /// decision table, a chunk of items at a time: each test runs over the whole chunk (one
    /// dispatch on its kind per chunk, not per item), then each item's answers pick its
    /// outcome. Every item starts with the whole budget, so an outcome's charge either fits it
    /// or not, for every item alike. Writes the answers it decides to `answers` and appends
    /// the other items, in order, to `undecided`; `false` (nothing written) when there is no
    /// table, or the machine carries state between evaluations.
    mutating func decideInColumns(
        at base: UnsafeRawPointer, stride: Int, count: Int, into answers: UnsafeMutablePointer<Bool>,
        undecided: inout [Int]
    ) -> Bool {
        let testCount = decisionTable.tests.count
        guard testCount > 0, !hasEvaluationState else { return false }
        let tests = decisionTable.tests.base
        let outcomes = decisionTable.outcomes.base
        let mask = decisionTable.outcomes.count - 1
        let budget = maximumSteps
        let chunk = 64
        withUnsafeTemporaryAllocation(of: Int.self, capacity: chunk) { bits in
            guard let bits = bits.baseAddress else { return }
            var start = 0
            while start < count {
                let length = min(chunk, count - start)
                let chunkBase = base + start &* stride
                bits.update(repeating: 0, count: length)
                for position in 0..<testCount {
                    Self.addAnswers(of: tests[position], position, chunkBase, stride, length, bits)
                }
                for offset in 0..<length {
                    let outcome = outcomes[bits[offset] & mask]
                    if bits[offset] & FieldTest.undecided << DecisionTable.maximumTests == 0, outcome.decided,
                        budget >= Int(outcome.charge)
                    {
                        answers[start + offset] = outcome.answer
                    } else {
                        undecided.append(start + offset)
                    }
                }
                start += length
            }
        }
        return true
    }

    /// Adds test `position`'s answer for each of `length` items from `base` to `bits` (bit
    /// `position`), and a flag above the answers (``FieldTest/undecided``, shifted past
    /// ``DecisionTable/maximumTests``) for an item the test leaves to the general path. One
    /// loop per kind, so that the kind is chosen once for the chunk.
    @inline(__always)
    private static func addAnswers(
        of test: FieldTest, _ position: Int, _ base: UnsafeRawPointer, _ stride: Int, _ length: Int,
        _ bits: UnsafeMutablePointer<Int>
    ) {
        @inline(__always)
        func each(_ answer: (UnsafeRawPointer) -> Int) {
            for offset in 0..<length {
                let found = answer(base + offset &* stride)
                bits[offset] |= (found & 1) &<< position | (found & FieldTest.undecided) &<< DecisionTable.maximumTests
            }
        }
        switch test.kind {
        case .bool: each(test.boolBits)
        case .int64: each(test.int64Bits)
        case .optionalInt64: each(test.optionalInt64Bits)
        case .uint64: each(test.uint64Bits)
        case .optionalUInt64: each(test.optionalUInt64Bits)
        case .double: each(test.doubleBits)
        case .optionalDouble: each(test.optionalDoubleBits)
        }
    }
}
