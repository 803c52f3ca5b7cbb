/// The instruction table: every fact about every instruction, one row an opcode (in the manner
/// of Lua's `lopcodes.c`). The encoder, the decoder, the verifier, the disassembler, stack-depth
/// analysis and the compiler's bookkeeping read these rows; none of them has a switch over
/// instructions of its own, so a new instruction is described here once, and the row's
/// initialiser has no defaults for the facts that matter, so a row cannot leave one out.
extension Opcode {
    /// This opcode's row of the table.
    package var facts: InstructionFacts { InstructionFacts.table[Int(rawValue)] }

    /// The row, written out; read once into ``InstructionFacts/table``.
    fileprivate var row: InstructionFacts {
        typealias F = InstructionFacts
        switch self {
        // Loads
        case .pushConstant:
            return F("PUSH_CONST", [.wide(.constant)], stack: (0, 1), mayFail: false)
        case .pushSelf:
            return F("PUSH_SELF", [], stack: (0, 1), mayFail: false, readsSelf: .always)
        case .loadVariable:
            return F("LOAD_VAR", [.wide(.variable)], stack: (0, 1), mayFail: true)
        case .storeVariable:
            return F("STORE_VAR", [.wide(.variable)], stack: (1, 1), mayFail: false)
        case .loadKeyPath:
            return F("KEYPATH", [.wide(.keyPath)], stack: (1, 1), mayFail: true)
        case .loadSelfKeyPath:
            return F("SELF_KEYPATH", [.wide(.keyPath)], stack: (0, 1), mayFail: true, readsSelf: .always)
        // Operators
        case .compare:
            return F(
                "CMP", [.byte(2, .quantifier), .byte(0, .comparisonOperator), .byte(1, .comparisonOptions)],
                stack: (2, 1), mayFail: true)
        case .callFunction:
            return F(
                "CALL", [.wide(.stringConstant), .byte(2, .arity)], stack: (0, 1), popsOperand: true, mayFail: true)
        case .invoke:
            return F(
                "INVOKE", [.wide(.stringConstant), .byte(2, .arity)], stack: (1, 1), popsOperand: true, mayFail: true)
        case .makeArray:
            return F("MAKE_ARRAY", [.wide(.count)], stack: (0, 1), popsOperand: true, mayFail: true)
        case .indexSymbol:
            return F("INDEX_SYM", [.byte(0, .indexSymbol)], stack: (1, 1), mayFail: true)
        case .index:
            return F("INDEX", [], stack: (2, 1), mayFail: true)
        case .cast:
            return F("CAST", [], stack: (2, 1), mayFail: true)
        case .setOperation:
            return F("SET_OP", [.byte(0, .setOperator)], stack: (2, 1), mayFail: true)
        case .not:
            return F("NOT", [], stack: (1, 1), mayFail: false)
        // Fused comparisons
        case .test:
            return F("TEST", [.wide(.site)], stack: (0, 1), mayFail: true, readsSelf: .throughSite)
        case .testAnd:
            return F(
                "TEST_AND", [.byte(2, .site), .wide(.jump)], stack: (0, 0), taken: (0, 1), mayFail: true,
                readsSelf: .throughSite)
        case .testOr:
            return F(
                "TEST_OR", [.byte(2, .site), .wide(.jump)], stack: (0, 0), taken: (0, 1), mayFail: true,
                readsSelf: .throughSite)
        // Control
        case .jump:
            return F("JUMP", [.wide(.jump)], stack: (0, 0), taken: (0, 0), fallsThrough: false, mayFail: false)
        case .jumpIfFalse:
            return F("JUMP_IF_FALSE", [.wide(.jump)], stack: (1, 0), taken: (1, 0), mayFail: false)
        case .jumpIfFalseOrPop:
            return F("JUMP_IF_FALSE_OR_POP", [.wide(.jump)], stack: (1, 0), taken: (1, 1), mayFail: false)
        case .jumpIfTrueOrPop:
            return F("JUMP_IF_TRUE_OR_POP", [.wide(.jump)], stack: (1, 0), taken: (1, 1), mayFail: false)
        case .jumpIfNil:
            return F("JUMP_IF_NIL", [.wide(.jump)], stack: (1, 1), taken: (1, 1), mayFail: false)
        case .saveVariables:
            return F("SAVE_VARS", [], stack: (0, 0), scopes: (.open(.savedVariables), .none), mayFail: false)
        case .restoreVariables:
            return F("RESTORE_VARS", [], stack: (0, 0), scopes: (.close(.savedVariables), .none), mayFail: false)
        // SUBQUERY
        case .subqueryBegin:
            return F(
                "SUBQUERY_BEGIN", [.byte(2, .variable), .wide(.jump)], stack: (1, 0), taken: (1, 1),
                scopes: (.open(.subquery), .none), loopRole: .begin, mayFail: true)
        case .subqueryNext:
            return F(
                "SUBQUERY_NEXT", [.wide(.jump)], stack: (0, 0), taken: (0, 1),
                scopes: (.requireInnermost(.subquery), .close(.subquery)), loopRole: .next, mayFail: true)
        case .subqueryCollect:
            return F(
                "SUBQUERY_COLLECT", [.wide(.jump)], stack: (1, 0), taken: (1, 0), fallsThrough: false,
                scopes: (.requireInnermost(.subquery), .requireInnermost(.subquery)), loopRole: .collect,
                mayFail: false)
        // Ends
        case .returnBool:
            return F("RETURN_BOOL", [], stack: (1, 0), fallsThrough: false, ends: .returns(.predicate), mayFail: false)
        case .returnValue:
            return F(
                "RETURN_VALUE", [], stack: (1, 0), fallsThrough: false, ends: .returns(.expression), mayFail: false)
        case .fail:
            return F("FAIL", [.wide(.stringConstant)], stack: (0, 0), fallsThrough: false, ends: .fails, mayFail: true)
        // Rule sets
        case .memoLoad:
            return F("MEMO_LOAD", [.byte(2, .memoSlot), .wide(.jump)], stack: (0, 0), taken: (0, 1), mayFail: false)
        case .memoStore:
            return F("MEMO_STORE", [.wide(.memoSlot)], stack: (1, 1), mayFail: false)
        case .ruleEnd:
            return F("RULE_END", [.wide(.rule)], stack: (1, 0), mayFail: false, ruleSetOnly: true)
        case .returnRules:
            return F(
                "RETURN_RULES", [], stack: (0, 0), fallsThrough: false, ends: .returns(.ruleSet), mayFail: false,
                ruleSetOnly: true)
        }
    }
}

/// Everything there is to know about one instruction apart from what it computes.
///
/// Plain data (no reference-counted field), so that reading a row, which the compiler and the
/// verifier do for every instruction, copies a few words and touches no reference count.
package struct InstructionFacts: Sendable {
    /// The name listings print.
    public var mnemonic: String { name.description }
    private let name: StaticString
    /// The operands, in the order listings print them and ``Instruction/operandValues`` holds
    /// them, each with the bits it occupies.
    public let operands: OperandLayout
    /// What the instruction does to the stack on the path that falls through, or, for one that
    /// ends evaluation, as it ends.
    public let stack: StackEffect
    /// What it does to the stack when its jump is taken; `nil` exactly when it has no jump.
    public let taken: StackEffect?
    /// Whether execution can go on with the next instruction.
    public let fallsThrough: Bool
    /// The scopes (``ScopeEffect``) it opens, closes or needs, on each path.
    public let scopes: (fallThrough: ScopeEffect, taken: ScopeEffect)
    /// The part it plays in a `SUBQUERY` loop.
    public let loopRole: LoopRole
    /// How it ends evaluation, for one that neither falls through nor jumps.
    public let ends: Termination?
    /// Whether it can raise an evaluation error. Its error is reported at the instruction's own
    /// source range, or, for a comparison site's key path, at the site's ``ComparisonSite/keyPathRange``.
    public let mayFail: Bool
    /// Whether it reads the evaluated object.
    public let readsSelf: SelfAccess
    /// Whether it belongs only in a rule set.
    package let ruleSetOnly: Bool

    /// Every row, indexed by ``Opcode`` raw value.
    static let table: [InstructionFacts] = Opcode.allCases.map(\.row)

    fileprivate init(
        _ mnemonic: StaticString, _ operands: OperandLayout, stack: (pops: Int, pushes: Int), popsOperand: Bool = false,
        taken: (pops: Int, pushes: Int)? = nil, fallsThrough: Bool = true,
        scopes: (fallThrough: ScopeEffect, taken: ScopeEffect) = (.none, .none), loopRole: LoopRole = .none,
        ends: Termination? = nil, mayFail: Bool, readsSelf: SelfAccess = .never, ruleSetOnly: Bool = false
    ) {
        name = mnemonic
        self.operands = operands
        jumpPosition = operands.firstIndex { $0.kind == .jump }
        sitePosition = operands.firstIndex { $0.kind == .site }
        countedPosition = operands.firstIndex { $0.kind == .arity || $0.kind == .count }
        self.stack = StackEffect(pops: stack.pops, popsOperand: popsOperand, pushes: stack.pushes)
        self.taken = taken.map { StackEffect(pops: $0.pops, popsOperand: popsOperand, pushes: $0.pushes) }
        self.fallsThrough = fallsThrough
        self.scopes = scopes
        self.loopRole = loopRole
        self.ends = ends
        self.mayFail = mayFail
        self.readsSelf = readsSelf
        self.ruleSetOnly = ruleSetOnly
    }

    /// Where the operand of `kind` is among ``operands``.
    public func position(of kind: OperandSpec.Kind) -> Int? { operands.firstIndex { $0.kind == kind } }
    /// Where the jump is among ``operands``, for the instructions that jump.
    package let jumpPosition: Int?
    /// Where the comparison site is among ``operands``, for `TEST`, `TEST_AND` and `TEST_OR`.
    package let sitePosition: Int?
    /// Where the count of popped values is among ``operands``, for the instructions that pop
    /// as many values as an operand says.
    package let countedPosition: Int?
}

/// An instruction's operands: at most three, held inline so that a row of the table is plain
/// data. A collection of ``OperandSpec``s, in listing order.
package struct OperandLayout: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private let storage: (OperandSpec, OperandSpec, OperandSpec)
    /// The number of operands.
    public let count: Int

    /// The operands listed (at most three; the verifier's test checks the table's rows).
    public init(arrayLiteral elements: OperandSpec...) {
        let filler = OperandSpec(kind: .constant, placement: .wide)
        count = Swift.min(elements.count, 3)
        storage = (
            elements.count > 0 ? elements[0] : filler, elements.count > 1 ? elements[1] : filler,
            elements.count > 2 ? elements[2] : filler
        )
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// Operand `position` (below ``count``).
    public subscript(position: Int) -> OperandSpec {
        switch position {
        case 0: return storage.0
        case 1: return storage.1
        default: return storage.2
        }
    }
}

/// One operand of an instruction: what it names, and which of the three operand bytes hold it.
public struct OperandSpec: Hashable, Sendable {
    /// What an operand names or says.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// An index into ``Program/constants``.
        case constant
        /// An index into ``Program/constants`` that must name a string (a selector, a message).
        case stringConstant
        /// An index into ``Program/keyPaths``.
        case keyPath
        /// A slot of ``Program/variables``.
        case variable
        /// An index into ``Program/comparisons``.
        case site
        /// A relative jump, in instructions after the next one (signed).
        case jump
        /// How many values a `MAKE_ARRAY` gathers.
        case count
        /// How many arguments a call pops.
        case arity
        /// A memo slot of a rule set.
        case memoSlot
        /// A rule's number in its rule set.
        case rule
        /// A ``ComparisonOperator``, by ``ComparisonOperator/code``.
        case comparisonOperator
        /// ``ComparisonOptions`` bits.
        case comparisonOptions
        /// A ``Quantifier``, by ``Quantifier/code``.
        case quantifier
        /// An ``IndexSymbol``.
        case indexSymbol
        /// A ``SetOperator``, by ``SetOperator/code``.
        case setOperator
    }

    /// Which operand bytes hold the operand.
    package enum Placement: Hashable, Sendable {
        /// Bytes 0 and 1, little-endian.
        case wide
        /// One byte: 0, 1 or 2.
        case byte(Int)
    }

    /// What the operand names.
    public let kind: Kind
    /// Where its bits are.
    package let placement: Placement

    /// A 16-bit operand in bytes 0 and 1.
    static func wide(_ kind: Kind) -> OperandSpec { OperandSpec(kind: kind, placement: .wide) }
    /// An 8-bit operand in byte `index`.
    static func byte(_ index: Int, _ kind: Kind) -> OperandSpec { OperandSpec(kind: kind, placement: .byte(index)) }

    /// The operand's value in `bytes`: a jump is signed, everything else unsigned.
    func read(_ bytes: (UInt8, UInt8, UInt8)) -> Int {
        switch placement {
        case .wide:
            let wide = UInt16(bytes.0) | UInt16(bytes.1) << 8
            return kind == .jump ? Int(Int16(bitPattern: wide)) : Int(wide)
        case .byte(0): return Int(bytes.0)
        case .byte(1): return Int(bytes.1)
        case .byte: return Int(bytes.2)
        }
    }

    /// `bytes` with the operand's bits set to `value` (truncated to their width; values come
    /// from typed payloads, so they fit).
    func write(_ value: Int, into bytes: inout (UInt8, UInt8, UInt8)) {
        switch placement {
        case .wide:
            let wide = UInt16(truncatingIfNeeded: value)
            bytes.0 = UInt8(truncatingIfNeeded: wide)
            bytes.1 = UInt8(truncatingIfNeeded: wide >> 8)
        case .byte(0): bytes.0 = UInt8(truncatingIfNeeded: value)
        case .byte(1): bytes.1 = UInt8(truncatingIfNeeded: value)
        case .byte: bytes.2 = UInt8(truncatingIfNeeded: value)
        }
    }
}

/// How many values an instruction pops and pushes on one path.
package struct StackEffect: Hashable, Sendable {
    /// Values popped, besides the operand-counted ones.
    public let pops: Int
    /// Whether the instruction also pops as many values as its ``OperandSpec/Kind/count`` or
    /// ``OperandSpec/Kind/arity`` operand says.
    public let popsOperand: Bool
    /// Values pushed.
    public let pushes: Int
}

/// A run-time scope an instruction opens: a `SUBQUERY` loop (the machine's iterator stack) or a
/// `SAVE_VARS` (its saved-variables stack). Both must nest properly with each other.
package enum ScopeKind: Hashable, Sendable {
    /// A `SUBQUERY` loop.
    case subquery
    /// Variables saved by `SAVE_VARS`.
    case savedVariables
}

/// What an instruction does to the open scopes on one of its paths.
package enum ScopeEffect: Hashable, Sendable {
    /// Nothing.
    case none
    /// Opens a scope of this kind.
    case open(ScopeKind)
    /// Closes the innermost scope, which must be of this kind.
    case close(ScopeKind)
    /// Needs the innermost scope to be of this kind.
    case requireInnermost(ScopeKind)
}

/// The part an instruction plays in a `SUBQUERY` loop: the verifier allows a backward jump only
/// from `SUBQUERY_COLLECT` to a `SUBQUERY_NEXT`, entered only from its `SUBQUERY_BEGIN`.
package enum LoopRole: Hashable, Sendable {
    /// `SUBQUERY_BEGIN`.
    case begin
    /// `SUBQUERY_NEXT`.
    case next
    /// `SUBQUERY_COLLECT`.
    case collect
    /// Anything else.
    case none
}

/// How an instruction that neither falls through nor jumps ends evaluation.
package enum Termination: Hashable, Sendable {
    /// It returns the result of a program of this kind.
    case returns(Program.Kind)
    /// It raises an error.
    case fails
}

/// Whether an instruction reads the evaluated object.
package enum SelfAccess: Hashable, Sendable {
    /// Never.
    case never
    /// Always.
    case always
    /// When its comparison site's receiver is the evaluated object.
    case throughSite
}

/// `[FIRST]`, `[LAST]` and `[SIZE]`, the operand of `INDEX_SYM`.
public enum IndexSymbol: UInt8, Hashable, Sendable, CaseIterable {
    /// `[FIRST]`.
    case first
    /// `[LAST]`.
    case last
    /// `[SIZE]`.
    case size

    /// The word as written in a rule.
    public var name: String {
        switch self {
        case .first: return "FIRST"
        case .last: return "LAST"
        case .size: return "SIZE"
        }
    }
}
