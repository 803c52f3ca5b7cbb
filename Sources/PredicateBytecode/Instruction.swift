/// One instruction of the predicate VM: an opcode and at most three bytes of operands, four bytes
/// in all when encoded.
///
/// This enum is the only place instructions are declared. The encoder, the decoder, the
/// verifier, the disassembler and the compiler's stack-depth bookkeeping all derive from it
/// through exhaustive switches (``opcode``, ``operands``, ``stackEffect``, ``mnemonic``,
/// ``Opcode``), so an instruction added here without them does not compile.
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

    /// `( lhs rhs -- bool )` The comparison `op` (a ``ComparisonOperator`` index) with options
    /// `o` and quantifier `q` (0 direct, 1 ANY, 2 ALL); nil and null rules as SPEC §4.3.
    case compare(op: UInt8, options: UInt8, quantifier: UInt8)
    /// `( args… -- value )` Calls built-in function `s` (selector constant) with its arity's
    /// arguments.
    case callFunction(UInt16, arity: UInt8)
    /// `( receiver args… -- value )` `FUNCTION(receiver, 's', args…)`: sends selector constant `s`.
    case invoke(UInt16, arity: UInt8)
    /// `( e1 … en -- array )` Builds an array of `n` elements; nil elements become null.
    case makeArray(UInt16)
    /// `( receiver -- value )` `[FIRST]` (0), `[LAST]` (1) or `[SIZE]` (2).
    case indexSymbol(UInt8)
    /// `( receiver index -- value )` `receiver[index]`.
    case index
    /// `( value type -- value )` `CAST(value, type)`.
    case cast
    /// `( a b -- set )` `UNION` (0), `INTERSECTION` (1) or `MINUS` (2).
    case setOperation(UInt8)
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

/// The opcodes, one per ``Instruction`` case: the first byte of an encoded instruction.
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

    /// The three operand bytes, little-endian for 16-bit operands.
    public var operands: (UInt8, UInt8, UInt8) {
        func wide(_ value: UInt16, _ third: UInt8 = 0) -> (UInt8, UInt8, UInt8) {
            (UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), third)
        }
        func offset(_ value: Int16, _ third: UInt8 = 0) -> (UInt8, UInt8, UInt8) {
            wide(UInt16(bitPattern: value), third)
        }
        switch self {
        case .pushConstant(let k), .loadVariable(let k), .storeVariable(let k), .loadKeyPath(let k),
            .loadSelfKeyPath(let k), .makeArray(let k), .fail(let k), .memoStore(let k), .ruleEnd(let k),
            .test(let k):
            return wide(k)
        case .testAnd(let d, let site), .testOr(let d, let site):
            return offset(d, site)
        case .callFunction(let s, let arity), .invoke(let s, let arity):
            return wide(s, arity)
        case .compare(let op, let options, let quantifier):
            return (op, options, quantifier)
        case .indexSymbol(let symbol), .setOperation(let symbol):
            return (symbol, 0, 0)
        case .jump(let d), .jumpIfFalse(let d), .jumpIfFalseOrPop(let d), .jumpIfTrueOrPop(let d), .jumpIfNil(let d),
            .subqueryNext(let d), .subqueryCollect(let d):
            return offset(d)
        case .subqueryBegin(let exit, let variable):
            return offset(exit, variable)
        case .memoLoad(let skip, let slot):
            return offset(skip, slot)
        case .pushSelf, .index, .cast, .not, .saveVariables, .restoreVariables, .returnBool,
            .returnValue, .returnRules:
            return (0, 0, 0)
        }
    }

    /// The instruction encoded by `opcode` and `operands`, or `nil` for an unknown opcode.
    public init?(opcode rawOpcode: UInt8, operands: (UInt8, UInt8, UInt8)) {
        guard let opcode = Opcode(rawValue: rawOpcode) else { return nil }
        let wide = UInt16(operands.0) | UInt16(operands.1) << 8
        let offset = Int16(bitPattern: wide)
        switch opcode {
        case .pushConstant: self = .pushConstant(wide)
        case .pushSelf: self = .pushSelf
        case .loadVariable: self = .loadVariable(wide)
        case .storeVariable: self = .storeVariable(wide)
        case .loadKeyPath: self = .loadKeyPath(wide)
        case .loadSelfKeyPath: self = .loadSelfKeyPath(wide)
        case .compare: self = .compare(op: operands.0, options: operands.1, quantifier: operands.2)
        case .callFunction: self = .callFunction(wide, arity: operands.2)
        case .invoke: self = .invoke(wide, arity: operands.2)
        case .makeArray: self = .makeArray(wide)
        case .indexSymbol: self = .indexSymbol(operands.0)
        case .index: self = .index
        case .cast: self = .cast
        case .setOperation: self = .setOperation(operands.0)
        case .not: self = .not
        case .test: self = .test(wide)
        case .testAnd: self = .testAnd(offset, site: operands.2)
        case .testOr: self = .testOr(offset, site: operands.2)
        case .jump: self = .jump(offset)
        case .jumpIfFalse: self = .jumpIfFalse(offset)
        case .jumpIfFalseOrPop: self = .jumpIfFalseOrPop(offset)
        case .jumpIfTrueOrPop: self = .jumpIfTrueOrPop(offset)
        case .jumpIfNil: self = .jumpIfNil(offset)
        case .saveVariables: self = .saveVariables
        case .restoreVariables: self = .restoreVariables
        case .subqueryBegin: self = .subqueryBegin(exit: offset, variable: operands.2)
        case .subqueryNext: self = .subqueryNext(offset)
        case .subqueryCollect: self = .subqueryCollect(offset)
        case .returnBool: self = .returnBool
        case .returnValue: self = .returnValue
        case .fail: self = .fail(wide)
        case .memoLoad: self = .memoLoad(skip: offset, slot: operands.2)
        case .memoStore: self = .memoStore(wide)
        case .ruleEnd: self = .ruleEnd(wide)
        case .returnRules: self = .returnRules
        }
    }

    /// How many values the instruction pops and pushes on the fall-through path (a jump taken by
    /// `jumpIfFalseOrPop`/`jumpIfTrueOrPop`/`jumpIfNil`/`subqueryBegin` keeps one more; the
    /// verifier checks both paths).
    public var stackEffect: (pops: Int, pushes: Int) {
        switch self {
        case .pushConstant, .pushSelf, .loadVariable, .loadSelfKeyPath, .test: return (0, 1)
        case .testAnd, .testOr: return (0, 0)
        case .storeVariable, .loadKeyPath, .indexSymbol, .not, .jumpIfNil, .memoStore: return (1, 1)
        case .compare, .index, .cast, .setOperation: return (2, 1)
        case .callFunction(_, let arity): return (Int(arity), 1)
        case .invoke(_, let arity): return (Int(arity) + 1, 1)
        case .makeArray(let count): return (Int(count), 1)
        case .jump, .saveVariables, .restoreVariables, .subqueryNext, .fail, .memoLoad, .returnRules: return (0, 0)
        case .jumpIfFalse, .jumpIfFalseOrPop, .jumpIfTrueOrPop, .subqueryBegin, .subqueryCollect, .returnBool,
            .returnValue, .ruleEnd:
            return (1, 0)
        }
    }

    /// Stack effect when the jump is taken, for instructions whose two paths differ.
    public var takenStackEffect: (pops: Int, pushes: Int)? {
        switch self {
        case .jumpIfFalseOrPop, .jumpIfTrueOrPop, .jumpIfNil, .subqueryBegin: return (1, 1)
        case .subqueryNext, .memoLoad, .testAnd, .testOr: return (0, 1)
        case .jump, .jumpIfFalse, .subqueryCollect: return stackEffect
        default: return nil
        }
    }

    /// The relative jump offset, for instructions that jump.
    public var jumpOffset: Int16? {
        switch self {
        case .jump(let d), .jumpIfFalse(let d), .jumpIfFalseOrPop(let d), .jumpIfTrueOrPop(let d), .jumpIfNil(let d),
            .subqueryNext(let d), .subqueryCollect(let d), .subqueryBegin(let d, _), .memoLoad(let d, _),
            .testAnd(let d, _), .testOr(let d, _):
            return d
        default:
            return nil
        }
    }

    /// Whether execution never falls through to the next instruction.
    public var endsBlock: Bool {
        switch self {
        case .jump, .subqueryCollect, .returnBool, .returnValue, .fail, .returnRules: return true
        default: return false
        }
    }

    /// The mnemonic the disassembler prints.
    public var mnemonic: String {
        switch opcode {
        case .pushConstant: return "PUSH_CONST"
        case .pushSelf: return "PUSH_SELF"
        case .loadVariable: return "LOAD_VAR"
        case .storeVariable: return "STORE_VAR"
        case .loadKeyPath: return "KEYPATH"
        case .loadSelfKeyPath: return "SELF_KEYPATH"
        case .compare: return "CMP"
        case .callFunction: return "CALL"
        case .invoke: return "INVOKE"
        case .makeArray: return "MAKE_ARRAY"
        case .indexSymbol: return "INDEX_SYM"
        case .index: return "INDEX"
        case .cast: return "CAST"
        case .setOperation: return "SET_OP"
        case .not: return "NOT"
        case .test: return "TEST"
        case .testAnd: return "TEST_AND"
        case .testOr: return "TEST_OR"
        case .jump: return "JUMP"
        case .jumpIfFalse: return "JUMP_IF_FALSE"
        case .jumpIfFalseOrPop: return "JUMP_IF_FALSE_OR_POP"
        case .jumpIfTrueOrPop: return "JUMP_IF_TRUE_OR_POP"
        case .jumpIfNil: return "JUMP_IF_NIL"
        case .saveVariables: return "SAVE_VARS"
        case .restoreVariables: return "RESTORE_VARS"
        case .subqueryBegin: return "SUBQUERY_BEGIN"
        case .subqueryNext: return "SUBQUERY_NEXT"
        case .subqueryCollect: return "SUBQUERY_COLLECT"
        case .returnBool: return "RETURN_BOOL"
        case .returnValue: return "RETURN_VALUE"
        case .fail: return "FAIL"
        case .memoLoad: return "MEMO_LOAD"
        case .memoStore: return "MEMO_STORE"
        case .ruleEnd: return "RULE_END"
        case .returnRules: return "RETURN_RULES"
        }
    }
}
