import PredicateSyntax

/// One instruction of the predicate VM: an opcode and at most three bytes of operands, four bytes
/// in all when encoded.
///
/// The cases say what each instruction computes with; everything else about an instruction
/// (mnemonic, operand layout and kinds, stack effects, jumps, scopes, whether it may fail) is its
/// row of the instruction table (``Opcode/facts``), from which the encoder, the decoder, the
/// verifier, the disassembler and stack-depth analysis derive. The only switches over
/// instructions outside the machine are the two here that move operands between a case and its
/// row (``operandValues``, ``init(opcode:values:)``), both exhaustive.
///
/// Each case's comment starts with its stack effect, `( before -- after )`, top of stack last.
/// Values are the language's values; "bool" is `.bool`. Operands name constants (`k`), fields
/// (`f`), variables (`v`), selectors (`s`) and relative jump offsets in instructions (`+d`).
public enum Instruction: Hashable, Sendable {
    // MARK: Loads

    /// `( -- k )` Pushes constant `k` of the pool.
    case pushConstant(UInt16)
    /// `( -- self )` Pushes the evaluated object.
    case pushSelf
    /// `( -- value )` Pushes variable `v`; an unbound variable is an error, `null` reads as nil.
    case loadVariable(UInt16)
    /// `( value -- value )` Stores the top of stack in variable `v` (`$v := …`), keeping it.
    case storeVariable(UInt16)
    /// `( receiver -- value )` Reads key path `p` of the program's key-path table from the receiver
    /// (`valueForKeyPath:`; bound fields by slot; a nil receiver gives nil).
    case loadKeyPath(UInt16)
    /// `( -- value )` Reads key path `p` from the evaluated object: `pushSelf` and `loadKeyPath`
    /// fused, the commonest pair.
    case loadSelfKeyPath(UInt16)

    // MARK: Operators

    /// `( lhs rhs -- bool )` The comparison `op` with options `o` and quantifier `q`; nil and
    /// null rules as SPEC §4.3.
    case compare(op: ComparisonOperator, options: ComparisonOptions, quantifier: Quantifier)
    /// `( args… -- value )` Calls built-in function `s` (selector constant) with its arity's
    /// arguments.
    case callFunction(UInt16, arity: UInt8)
    /// `( receiver args… -- value )` `FUNCTION(receiver, 's', args…)`: sends selector constant `s`.
    case invoke(UInt16, arity: UInt8)
    /// `( e1 … en -- array )` Builds an array of `n` elements; nil elements become null.
    case makeArray(UInt16)
    /// `( receiver -- value )` `[FIRST]`, `[LAST]` or `[SIZE]`.
    case indexSymbol(IndexSymbol)
    /// `( receiver index -- value )` `receiver[index]`.
    case index
    /// `( value type -- value )` `CAST(value, type)`.
    case cast
    /// `( a b -- set )` `UNION`, `INTERSECTION` or `MINUS`.
    case setOperation(SetOperator)
    /// `( bool -- bool )` Logical negation.
    case not

    // MARK: Fused comparisons

    /// `( -- bool )` Comparison site `s` (``Program/comparisons``): a key path of `SELF` or of a
    /// variable against a constant, prepared when the program is made. Means what
    /// `SELF_KEYPATH p; PUSH_CONST k; CMP op` (or `LOAD_VAR v; KEYPATH p; PUSH_CONST k; CMP op`)
    /// means, errors and their positions included.
    case test(UInt16)
    /// `( -- bool | )` Site `s` (below 256), then `JUMP_IF_FALSE_OR_POP d`: on false, pushes it and
    /// jumps; on true, goes on with nothing pushed (a link of an `AND` chain).
    case testAnd(Int16, site: UInt8)
    /// `( -- bool | )` Site `s` (below 256), then `JUMP_IF_TRUE_OR_POP d`: on true, pushes it and
    /// jumps; on false, goes on with nothing pushed (a link of an `OR` chain).
    case testOr(Int16, site: UInt8)

    // MARK: Control

    /// `( -- )` Continues `d` instructions after the next one.
    case jump(Int16)
    /// `( bool -- )` Pops; jumps when false.
    case jumpIfFalse(Int16)
    /// `( bool -- bool | )` Jumps keeping the bool when it is false; pops it otherwise (`AND`).
    case jumpIfFalseOrPop(Int16)
    /// `( bool -- bool | )` Jumps keeping the bool when it is true; pops it otherwise (`OR`).
    case jumpIfTrueOrPop(Int16)
    /// `( value -- value )` Jumps when the value is nil, keeping it (`FUNCTION` skips its arguments
    /// and answers nil for a nil receiver).
    case jumpIfNil(Int16)
    /// `( -- )` Saves every variable, for a comparison whose operands assign (`:=` is scoped to
    /// its comparison, SPEC §4.9.6).
    case saveVariables
    /// `( -- )` Restores the variables saved by the matching `saveVariables`.
    case restoreVariables

    // MARK: SUBQUERY

    /// `( collection -- | result )` Starts `SUBQUERY` with variable `v`: a nil collection jumps
    /// `d` ahead leaving nil; a non-collection is an error; otherwise the loop state moves to the
    /// iterator stack.
    case subqueryBegin(exit: Int16, variable: UInt8)
    /// `( -- | result )` Binds the variable to the next element, or ends the loop: restores the
    /// variable, pushes the array of collected elements and jumps `d` ahead.
    case subqueryNext(Int16)
    /// `( bool -- )` Collects the current element when the bool is true, then jumps `d` (back to
    /// `subqueryNext`).
    case subqueryCollect(Int16)

    // MARK: Ends

    /// `( bool -- )` Ends evaluation with the predicate's result.
    case returnBool
    /// `( value -- )` Ends evaluation of a standalone expression with its value.
    case returnValue
    /// `( -- )` Raises the evaluation error whose message is constant `k` (constructs that
    /// cannot be evaluated: `ANYKEY`).
    case fail(UInt16)

    // MARK: Rule sets

    /// `( -- | value )` When memo slot `m` already holds a value in this evaluation, pushes it and
    /// jumps `d` ahead (past the computation and its `MEMO_STORE`); otherwise falls through to
    /// compute it. Lets the rules of a rule set share a sub-expression without computing it twice.
    case memoLoad(skip: Int16, slot: UInt8)
    /// `( value -- value )` Remembers the top of stack in memo slot `m` for the rest of this
    /// evaluation, keeping it.
    case memoStore(UInt16)
    /// `( bool -- )` Records rule `r`'s result; an error before it hides only rule `r`, and
    /// evaluation resumes after this instruction.
    case ruleEnd(UInt16)
    /// `( -- )` Ends evaluation of a rule set: the results are the ones `RULE_END` recorded.
    case returnRules
}

/// The opcodes, one per ``Instruction`` case: the first byte of an encoded instruction. Their
/// numbers are part of the serialized format.
public enum Opcode: UInt8, CaseIterable, Sendable {
    case pushConstant, pushSelf, loadVariable, storeVariable, loadKeyPath, loadSelfKeyPath
    case compare, callFunction, invoke, makeArray, indexSymbol, index, cast, setOperation, not
    case test, testAnd, testOr
    case jump, jumpIfFalse, jumpIfFalseOrPop, jumpIfTrueOrPop, jumpIfNil, saveVariables, restoreVariables
    case subqueryBegin, subqueryNext, subqueryCollect, returnBool, returnValue, fail
    case memoLoad, memoStore, ruleEnd, returnRules
}

extension Instruction {
    /// The instruction's opcode.
    public var opcode: Opcode {
        switch self {
        case .pushConstant: return .pushConstant
        case .pushSelf: return .pushSelf
        case .loadVariable: return .loadVariable
        case .storeVariable: return .storeVariable
        case .loadKeyPath: return .loadKeyPath
        case .loadSelfKeyPath: return .loadSelfKeyPath
        case .compare: return .compare
        case .callFunction: return .callFunction
        case .invoke: return .invoke
        case .makeArray: return .makeArray
        case .indexSymbol: return .indexSymbol
        case .index: return .index
        case .cast: return .cast
        case .setOperation: return .setOperation
        case .not: return .not
        case .test: return .test
        case .testAnd: return .testAnd
        case .testOr: return .testOr
        case .jump: return .jump
        case .jumpIfFalse: return .jumpIfFalse
        case .jumpIfFalseOrPop: return .jumpIfFalseOrPop
        case .jumpIfTrueOrPop: return .jumpIfTrueOrPop
        case .jumpIfNil: return .jumpIfNil
        case .saveVariables: return .saveVariables
        case .restoreVariables: return .restoreVariables
        case .subqueryBegin: return .subqueryBegin
        case .subqueryNext: return .subqueryNext
        case .subqueryCollect: return .subqueryCollect
        case .returnBool: return .returnBool
        case .returnValue: return .returnValue
        case .fail: return .fail
        case .memoLoad: return .memoLoad
        case .memoStore: return .memoStore
        case .ruleEnd: return .ruleEnd
        case .returnRules: return .returnRules
        }
    }

    /// The instruction's row of the table.
    package var facts: InstructionFacts { opcode.facts }

    /// The operands' values, in the order of the row's ``InstructionFacts/operands``.
    public var operandValues: OperandValues {
        switch self {
        case .pushConstant(let k), .loadVariable(let k), .storeVariable(let k), .loadKeyPath(let k),
            .loadSelfKeyPath(let k), .makeArray(let k), .fail(let k), .memoStore(let k), .ruleEnd(let k),
            .test(let k):
            return OperandValues(Int(k))
        case .testAnd(let d, let site), .testOr(let d, let site):
            return OperandValues(Int(site), Int(d))
        case .callFunction(let s, let arity), .invoke(let s, let arity):
            return OperandValues(Int(s), Int(arity))
        case .compare(let op, let options, let quantifier):
            return OperandValues(Int(quantifier.code), Int(op.code), Int(options.rawValue))
        case .indexSymbol(let symbol):
            return OperandValues(Int(symbol.rawValue))
        case .setOperation(let op):
            return OperandValues(Int(op.code))
        case .jump(let d), .jumpIfFalse(let d), .jumpIfFalseOrPop(let d), .jumpIfTrueOrPop(let d), .jumpIfNil(let d),
            .subqueryNext(let d), .subqueryCollect(let d):
            return OperandValues(Int(d))
        case .subqueryBegin(let exit, let variable):
            return OperandValues(Int(variable), Int(exit))
        case .memoLoad(let skip, let slot):
            return OperandValues(Int(slot), Int(skip))
        case .pushSelf, .index, .cast, .not, .saveVariables, .restoreVariables, .returnBool, .returnValue,
            .returnRules:
            return OperandValues()
        }
    }

    /// The instruction of `opcode` with operand `values` (in the row's order), or `nil` when a
    /// value does not fit its operand or names no sub-code (an ``IndexSymbol`` of 7).
    public init?(opcode: Opcode, values: OperandValues) {
        let (a, b, c) = (values[0], values[1], values[2])
        // The first operand as each width it can have, and the second as a jump or an arity.
        let wide = UInt16(exactly: a)
        let offset = Int16(exactly: a)
        let small = UInt8(exactly: a)
        let link = Int16(exactly: b)
        let arity = UInt8(exactly: b)
        let instruction: Instruction?
        switch opcode {
        case .pushConstant: instruction = wide.map(Instruction.pushConstant)
        case .pushSelf: instruction = .pushSelf
        case .loadVariable: instruction = wide.map(Instruction.loadVariable)
        case .storeVariable: instruction = wide.map(Instruction.storeVariable)
        case .loadKeyPath: instruction = wide.map(Instruction.loadKeyPath)
        case .loadSelfKeyPath: instruction = wide.map(Instruction.loadSelfKeyPath)
        case .compare:
            guard let quantifier = Quantifier(code: a), let op = ComparisonOperator(code: b),
                let options = UInt8(exactly: c)
            else { return nil }
            instruction = .compare(op: op, options: ComparisonOptions(rawValue: options), quantifier: quantifier)
        case .callFunction: instruction = wide.flatMap { s in arity.map { .callFunction(s, arity: $0) } }
        case .invoke: instruction = wide.flatMap { s in arity.map { .invoke(s, arity: $0) } }
        case .makeArray: instruction = wide.map(Instruction.makeArray)
        case .indexSymbol: instruction = small.flatMap(IndexSymbol.init(rawValue:)).map(Instruction.indexSymbol)
        case .index: instruction = .index
        case .cast: instruction = .cast
        case .setOperation: instruction = SetOperator(code: a).map(Instruction.setOperation)
        case .not: instruction = .not
        case .test: instruction = wide.map(Instruction.test)
        case .testAnd: instruction = small.flatMap { site in link.map { .testAnd($0, site: site) } }
        case .testOr: instruction = small.flatMap { site in link.map { .testOr($0, site: site) } }
        case .jump: instruction = offset.map(Instruction.jump)
        case .jumpIfFalse: instruction = offset.map(Instruction.jumpIfFalse)
        case .jumpIfFalseOrPop: instruction = offset.map(Instruction.jumpIfFalseOrPop)
        case .jumpIfTrueOrPop: instruction = offset.map(Instruction.jumpIfTrueOrPop)
        case .jumpIfNil: instruction = offset.map(Instruction.jumpIfNil)
        case .saveVariables: instruction = .saveVariables
        case .restoreVariables: instruction = .restoreVariables
        case .subqueryBegin:
            instruction = small.flatMap { slot in link.map { .subqueryBegin(exit: $0, variable: slot) } }
        case .subqueryNext: instruction = offset.map(Instruction.subqueryNext)
        case .subqueryCollect: instruction = offset.map(Instruction.subqueryCollect)
        case .returnBool: instruction = .returnBool
        case .returnValue: instruction = .returnValue
        case .fail: instruction = wide.map(Instruction.fail)
        case .memoLoad: instruction = small.flatMap { slot in link.map { .memoLoad(skip: $0, slot: slot) } }
        case .memoStore: instruction = wide.map(Instruction.memoStore)
        case .ruleEnd: instruction = wide.map(Instruction.ruleEnd)
        case .returnRules: instruction = .returnRules
        }
        guard let instruction else { return nil }
        self = instruction
    }

    /// The three operand bytes, laid out as the row says.
    public var operands: (UInt8, UInt8, UInt8) {
        var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
        let values = operandValues
        for (position, operand) in facts.operands.enumerated() { operand.write(values[position], into: &bytes) }
        return bytes
    }

    /// The instruction encoded by `opcode` and `operands`, or `nil` for an unknown opcode or an
    /// operand that names no sub-code. Bytes no operand occupies are ignored here; the loader
    /// refuses them by re-encoding.
    public init?(opcode rawOpcode: UInt8, operands: (UInt8, UInt8, UInt8)) {
        guard let opcode = Opcode(rawValue: rawOpcode) else { return nil }
        var values = OperandValues()
        for (position, operand) in opcode.facts.operands.enumerated() { values[position] = operand.read(operands) }
        self.init(opcode: opcode, values: values)
    }

    /// How many values the instruction pops and pushes on the fall-through path (or as it ends).
    package var stackEffect: (pops: Int, pushes: Int) { resolve(facts.stack) }

    /// Stack effect when the jump is taken; `nil` for an instruction that does not jump.
    package var takenStackEffect: (pops: Int, pushes: Int)? { facts.taken.map(resolve) }

    private func resolve(_ effect: StackEffect) -> (pops: Int, pushes: Int) {
        guard effect.popsOperand else { return (effect.pops, effect.pushes) }
        return (effect.pops + (facts.countedPosition.map { operandValues[$0] } ?? 0), effect.pushes)
    }

    /// The relative jump offset, for instructions that jump.
    public var jumpOffset: Int16? {
        guard let position = facts.jumpPosition else { return nil }
        return Int16(exactly: operandValues[position])
    }

    /// Whether execution never falls through to the next instruction.
    package var endsBlock: Bool { !facts.fallsThrough }

    /// The mnemonic the disassembler prints.
    public var mnemonic: String { facts.mnemonic }

    /// The comparison site a `TEST`, `TEST_AND` or `TEST_OR` evaluates.
    public var comparisonSite: Int? { facts.sitePosition.map { operandValues[$0] } }

    /// The same jump with offset `d`; `nil` for an instruction that does not jump.
    func withJumpOffset(_ d: Int16) -> Instruction? {
        guard let position = facts.jumpPosition else { return nil }
        var values = operandValues
        values[position] = Int(d)
        return Instruction(opcode: opcode, values: values)
    }
}

/// An instruction's operand values, at most three, in its row's order: a fixed-size value, so
/// that reading them allocates nothing.
public struct OperandValues: Hashable, Sendable {
    private var storage: (Int, Int, Int)

    /// Values `a`, `b` and `c` (the ones an instruction does not have are 0).
    public init(_ a: Int = 0, _ b: Int = 0, _ c: Int = 0) { storage = (a, b, c) }

    /// Value `position` (0, 1 or 2; anything else reads 0 and is not written).
    public subscript(position: Int) -> Int {
        get {
            switch position {
            case 0: return storage.0
            case 1: return storage.1
            case 2: return storage.2
            default: return 0
            }
        }
        set {
            switch position {
            case 0: storage.0 = newValue
            case 1: storage.1 = newValue
            case 2: storage.2 = newValue
            default: break
            }
        }
    }

    /// Equal when all three values are.
    public static func == (lhs: OperandValues, rhs: OperandValues) -> Bool {
        lhs.storage == rhs.storage
    }

    /// Hashes the three values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
        hasher.combine(storage.2)
    }
}

// The numbers of the operators' cases in operand bytes: their positions in `allCases`, part of
// the serialized format like the opcodes.

extension ComparisonOperator {
    /// The operator's number in operand bytes.
    public var code: UInt8 { codeOf(self) }
    /// The operator numbered `code`.
    public init?(code: Int) {
        guard let value = caseNumbered(code, of: Self.self) else { return nil }
        self = value
    }
}

extension Quantifier {
    /// The quantifier's number in operand bytes: direct 0, `ANY` 1, `ALL` 2.
    public var code: UInt8 { codeOf(self) }
    /// The quantifier numbered `code`.
    public init?(code: Int) {
        guard let value = caseNumbered(code, of: Self.self) else { return nil }
        self = value
    }
}

extension SetOperator {
    /// The operator's number in operand bytes: `UNION` 0, `INTERSECTION` 1, `MINUS` 2.
    public var code: UInt8 { codeOf(self) }
    /// The operator numbered `code`.
    public init?(code: Int) {
        guard let value = caseNumbered(code, of: Self.self) else { return nil }
        self = value
    }
}

private func codeOf<T: CaseIterable & Equatable>(_ value: T) -> UInt8 {
    var code: UInt8 = 0
    for candidate in T.allCases {
        if candidate == value { return code }
        code &+= 1
    }
    return code
}

private func caseNumbered<T: CaseIterable>(_ code: Int, of _: T.Type) -> T? {
    guard code >= 0 else { return nil }
    return T.allCases.dropFirst(code).first
}
