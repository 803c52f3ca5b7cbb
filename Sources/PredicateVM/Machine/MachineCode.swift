/// How the instruction loop runs one instruction: the instructions a rule made of comparisons
/// spends its time in have an operation of their own, run inside the loop; every other
/// instruction is ``general``, one call out of the loop.
///
/// The machine's own view of the program, derived from it when the machine is made and again
/// when it first sees items of a type: not a second program form (the program, its listing and
/// its verification are unchanged), only which way through the loop each instruction takes.
enum MachineOperation: UInt8 {
    /// Any instruction without an operation of its own, run by ``VirtualMachine/execute(_:_:_:)``.
    case general
    /// `TEST`, `TEST_AND`, `TEST_OR` of any site: its stored field, its scalar, or the general path.
    case test, testAnd, testOr
    /// `TEST`, `TEST_AND`, `TEST_OR` of a site whose key path is a field stored in `SELF`'s
    /// items (of the machine's host type) with a ``FieldTest``: one typed load and one test.
    case testSelfField, testSelfFieldAnd, testSelfFieldOr
    case not
    case jump, jumpIfFalse, jumpIfFalseOrPop, jumpIfTrueOrPop
    case returnBool
    case subqueryNext
}

/// One instruction as the loop reads it: its operation and operands, in eight bytes.
struct MachineWord {
    let operation: MachineOperation
    /// The comparison site of a `TEST…`.
    let site: UInt16
    /// A jump's offset (a `TEST_AND`'s, a `SUBQUERY_NEXT`'s exit), relative to the next word.
    let offset: Int32

    init(_ operation: MachineOperation, site: UInt16 = 0, offset: Int32 = 0) {
        self.operation = operation
        self.site = site
        self.offset = offset
    }

    /// How `instruction` runs, given which comparison sites are fields stored in `SELF` with a
    /// test that decides every value (``StoredSite``).
    init(_ instruction: Instruction, selfFields: (Int) -> Bool) {
        switch instruction {
        case .test(let site):
            self.init(selfFields(Int(site)) ? .testSelfField : .test, site: site)
        case .testAnd(let offset, let site):
            self.init(
                selfFields(Int(site)) ? .testSelfFieldAnd : .testAnd, site: UInt16(site), offset: Int32(offset))
        case .testOr(let offset, let site):
            self.init(selfFields(Int(site)) ? .testSelfFieldOr : .testOr, site: UInt16(site), offset: Int32(offset))
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
    static func lower(_ code: [Instruction], selfFields: (Int) -> Bool) -> PlainStorage<MachineWord> {
        PlainStorage(code.map { MachineWord($0, selfFields: selfFields) })
    }
}
