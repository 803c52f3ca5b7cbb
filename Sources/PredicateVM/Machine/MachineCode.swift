/// How a `TEST`, `TEST_AND` or `TEST_OR` goes on from its answer: the one difference between
/// the three, so that the loop runs them as one case.
///
/// `TEST` pushes its answer; `TEST_AND` pushes `false` and jumps past its right operand when
/// its answer is false, `TEST_OR` pushes `true` and jumps when its answer is true; both charge
/// one step more than `TEST` (the jump they stand for).
struct TestUse {
    /// A jump's offset, relative to the next word (0 for `TEST`).
    let offset: Int32
    /// Steps charged after the word's own one.
    let extraSteps: Int8
    /// Whether the answer is pushed whatever it is (`TEST`).
    let pushesAlways: Bool
    /// The answer that is pushed and jumps (`TEST_AND`: false, `TEST_OR`: true).
    let jumpsOn: Bool

    static let push = TestUse(offset: 0, extraSteps: 0, pushesAlways: true, jumpsOn: false)
    static func and(_ offset: Int16) -> TestUse {
        TestUse(offset: Int32(offset), extraSteps: 1, pushesAlways: false, jumpsOn: false)
    }
    static func or(_ offset: Int16) -> TestUse {
        TestUse(offset: Int32(offset), extraSteps: 1, pushesAlways: false, jumpsOn: true)
    }

    /// Whether `answer` is pushed (and the jump, if any, taken).
    @inline(__always)
    func pushes(_ answer: Bool) -> Bool { pushesAlways || answer == jumpsOn }
}

/// What the loop does with a word (``MachineWord``): the instructions a rule made of
/// comparisons spends its time in have an operation of their own, run inside the loop; every
/// other instruction is ``general``, one call out of the loop.
///
/// The first seven are `TEST`, `TEST_AND`, `TEST_OR` of a site whose key path is a field stored
/// in `SELF`'s items (of the machine's host type), one for each ``FieldTest/Kind``, in its order,
/// so that the loop's one dispatch on the operation also picks the typed load and test: it
/// charges ``MachineWord/cost`` steps (what the instructions the site stands for charge), unless
/// `SELF` is not such an item, the value needs the general path, or the budget would run out.
enum MachineOperation: UInt8 {
    case testSelfBool, testSelfInt64, testSelfOptionalInt64, testSelfUInt64, testSelfOptionalUInt64
    case testSelfDouble, testSelfOptionalDouble
    /// Any instruction without an operation of its own, run by ``VirtualMachine/execute(_:_:_:)``.
    case general
    /// `TEST`, `TEST_AND`, `TEST_OR` of any site: its stored field, its scalar, or the general path.
    case test
    /// `TEST`, `TEST_AND`, `TEST_OR` of a site read from `SELF` that is not a field stored in
    /// the host type's items, one for each way the straight loop decides it without the general
    /// comparison (``VirtualMachine/decideSelfString(_:_:)`` and the like): a string stored in
    /// place, a key of a dictionary, a field the type answers through a call. When the way does
    /// not decide the item, the instruction loop runs the word as ``test``.
    case testSelfString, testSelfDictionary, testSelfScalar
    case not
    case jump, jumpIfFalse, jumpIfFalseOrPop, jumpIfTrueOrPop
    case returnBool
    case subqueryNext

    /// The test of a field of `kind` stored in `SELF`.
    init(testing kind: FieldTest.Kind) {
        switch kind {
        case .bool: self = .testSelfBool
        case .int64: self = .testSelfInt64
        case .optionalInt64: self = .testSelfOptionalInt64
        case .uint64: self = .testSelfUInt64
        case .optionalUInt64: self = .testSelfOptionalUInt64
        case .double: self = .testSelfDouble
        case .optionalDouble: self = .testSelfOptionalDouble
        }
    }

    /// Whether this is the test of a field stored in `SELF` (one of the first seven).
    @inline(__always)
    var testsSelfField: Bool { rawValue <= MachineOperation.testSelfOptionalDouble.rawValue }
}

/// One instruction as the loop runs it: its operation and its operands as plain fields, read
/// without decoding an enum, and for a comparison of a field stored in `SELF` the typed test
/// itself, so that running it reads nothing but the word and the item.
///
/// The machine's own view of the program, derived from it when the machine is made and again
/// when it first sees items of a type: not a second program form (the program, its listing and
/// its verification are unchanged), only which way through the loop each instruction takes.
struct MachineWord {
    let operation: MachineOperation
    /// The comparison site of a `TEST…`.
    let site: UInt16
    /// What a `TEST…` does with its answer.
    let use: TestUse
    /// A jump's offset (`SUBQUERY_NEXT`'s exit), relative to the next word.
    let offset: Int32
    /// The steps the test of a field stored in `SELF` charges for its site
    /// (``MachineOperation/testsSelfField``), besides the word's own and its jump's.
    let cost: Int32
    /// The test of a field stored in `SELF`.
    let field: FieldTest

    private init(
        _ operation: MachineOperation, site: UInt16 = 0, use: TestUse = .push, offset: Int32 = 0,
        cost: Int32 = 0, field: FieldTest = .never
    ) {
        self.operation = operation
        self.site = site
        self.use = use
        self.offset = offset
        self.cost = cost
        self.field = field
    }

    /// How `instruction` runs, given the typed test and cost of each comparison site that is a
    /// field stored in `SELF` with a test that decides every value (``StoredSite``), and how
    /// the straight loop may decide another site read from `SELF` (`testSelfString` and the
    /// like; `nil` when it may not).
    init(
        _ instruction: Instruction, selfField: (Int) -> (FieldTest, cost: Int)?,
        selfSite: (Int) -> MachineOperation? = { _ in nil }
    ) {
        func test(_ site: UInt16, _ use: TestUse) -> MachineWord {
            guard let (field, cost) = selfField(Int(site)), let cost = Int32(exactly: cost) else {
                return MachineWord(selfSite(Int(site)) ?? .test, site: site, use: use)
            }
            return MachineWord(.init(testing: field.kind), site: site, use: use, cost: cost, field: field)
        }
        switch instruction {
        case .test(let site): self = test(site, .push)
        case .testAnd(let offset, let site): self = test(UInt16(site), .and(offset))
        case .testOr(let offset, let site): self = test(UInt16(site), .or(offset))
        case .not: self.init(.not)
        case .jump(let offset): self.init(.jump, offset: Int32(offset))
        case .jumpIfFalse(let offset): self.init(.jumpIfFalse, offset: Int32(offset))
        case .jumpIfFalseOrPop(let offset): self.init(.jumpIfFalseOrPop, offset: Int32(offset))
        case .jumpIfTrueOrPop(let offset): self.init(.jumpIfTrueOrPop, offset: Int32(offset))
        case .returnBool: self.init(.returnBool)
        case .subqueryNext(let exit): self.init(.subqueryNext, offset: Int32(exit))
        case .pushConstant, .pushSelf, .loadVariable, .storeVariable, .loadKeyPath, .loadSelfKeyPath, .compare,
            .callFunction, .invoke, .makeArray, .indexSymbol, .index, .cast, .setOperation, .jumpIfNil,
            .saveVariables, .restoreVariables, .subqueryBegin, .subqueryCollect, .returnValue, .fail, .memoLoad,
            .memoStore, .ruleEnd, .returnRules:
            self.init(.general)
        }
    }

    /// The words of `code`.
    static func lower(
        _ code: [Instruction], selfField: (Int) -> (FieldTest, cost: Int)?,
        selfSite: (Int) -> MachineOperation? = { _ in nil }
    ) -> PlainStorage<MachineWord> {
        PlainStorage(code.map { MachineWord($0, selfField: selfField, selfSite: selfSite) })
    }
}

/// The machine state every instruction touches, held by the loop in registers (a local copy)
/// and written back to the machine around each call out of the loop.
struct Registers {
    /// Steps left in this evaluation before ``EvaluationLimits/maximumSteps`` is spent.
    var steps = 0
    /// The Booleans on top of the value stack, top in bit 0.
    var bits: UInt64 = 0
    var bitCount = 0
}
