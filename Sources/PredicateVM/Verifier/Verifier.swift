import PredicateSyntax
import PredicateValue

/// Why a ``Program`` was refused by the ``Verifier``: the instruction at fault, when there is one,
/// and what is wrong with it.
///
/// The virtual machine trusts a verified program for stack depths and table indices, so every
/// problem here is one that would otherwise crash it or make it read garbage.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong. Payloads carry the offending numbers so that a message, and a test, can
    /// say exactly what was found.
    public enum Problem: Hashable, Sendable {
        /// `sourceRanges` does not have one range per instruction.
        case sourceRangeCountMismatch(ranges: Int, instructions: Int)
        /// A source range is negative or reversed.
        case invalidSourceRange(SourceRange)
        /// `maximumStackDepth` is negative or larger than the code could ever need.
        case implausibleMaximumStackDepth(Int)
        /// `maximumSubqueryDepth` is negative or larger than the code could ever need.
        case implausibleMaximumSubqueryDepth(Int)
        /// A constant index past the end of the constant pool.
        case constantOutOfRange(index: Int, count: Int)
        /// A key-path index past the end of the key-path table.
        case keyPathOutOfRange(index: Int, count: Int)
        /// A variable slot past the end of the variable table.
        case variableOutOfRange(index: Int, count: Int)
        /// A `CALL`/`INVOKE` selector or a `FAIL` message that is not a string constant.
        case notAStringConstant(index: Int)
        /// `CMP` option bits outside the defined `[cdnlw]` set (0x1F).
        case invalidComparisonOptions(UInt8)
        /// A jump whose target is not an instruction of the code.
        case jumpOutOfRange(target: Int)
        /// A jump to itself or backwards from anything but `SUBQUERY_COLLECT`: a loop that
        /// nothing bounds.
        case backwardJump(target: Int)
        /// `SUBQUERY_COLLECT` jumping somewhere other than a `SUBQUERY_NEXT`, so that the loop
        /// would not advance.
        case collectTargetNotNext(target: Int)
        /// A jump other than `SUBQUERY_COLLECT` to a `SUBQUERY_NEXT`: entering a loop without
        /// starting it.
        case jumpToSubqueryNext(target: Int)
        /// A `SUBQUERY_NEXT` that does not directly follow a `SUBQUERY_BEGIN`.
        case subqueryNextWithoutBegin
        /// A bound field whose slot is not a field of its schema (`keyPath` is the table index).
        case fieldSlotOutOfRange(keyPath: Int, slot: Int, fieldCount: Int)
        /// A `TEST` site number past the end of the comparison table.
        case comparisonOutOfRange(index: Int, count: Int)
        /// A `$name` key-path component whose variable is not in the variable table.
        case unknownKeyPathVariable(keyPath: Int, name: String)
        /// The program has no instructions, or a path runs past the last one without returning.
        case missingReturn
        /// An instruction pops more values than the stack holds on some path.
        case stackUnderflow(depth: Int, pops: Int)
        /// An instruction leaves more values than the declared maximum on some path.
        case stackOverflow(depth: Int, maximum: Int)
        /// Two paths reach instruction `target` with different stack depths.
        case inconsistentStackDepth(target: Int, expected: Int, found: Int)
        /// Two paths reach instruction `target` inside different `SUBQUERY` loops or
        /// `SAVE_VARS` scopes.
        case inconsistentScopes(target: Int)
        /// `SUBQUERY_NEXT` or `SUBQUERY_COLLECT` where the innermost open scope is not a
        /// `SUBQUERY` loop (none is open, or a `SAVE_VARS` is still open inside it).
        case subqueryNotOpen
        /// `SUBQUERY` loops nest deeper than the declared maximum.
        case subqueryTooDeep(depth: Int, maximum: Int)
        /// `RESTORE_VARS` where the innermost open scope is not a `SAVE_VARS`.
        case restoreWithoutSave
        /// A return while a `SUBQUERY` loop or a `SAVE_VARS` scope is still open.
        case unclosedScopeAtReturn
        /// A return that does not match the program's kind (`RETURN_VALUE` in a predicate).
        case wrongReturn(expected: Program.Kind)
        /// A return that leaves values other than the result on the stack.
        case valuesLeftAtReturn(depth: Int)
        /// `RULE_END` or `RETURN_RULES` in a program that is not a rule set.
        case ruleInstructionOutsideRuleSet
        /// `RULE_END` reached with values under the rule's result or a scope still open.
        case ruleEndNotAtTopLevel(depth: Int)
        /// A jump from one rule of a rule set into another: an error would then hide the wrong rule.
        case jumpAcrossRuleEnd(target: Int)
        /// A table (instructions, constants) larger than the ``ProgramLimits`` allow.
        case tooLarge(table: String, count: Int, limit: Int)
    }

    /// The offset of the instruction at fault, or `nil` when the problem is the program's
    /// tables or declarations rather than one instruction.
    public let instruction: Int?
    /// What is wrong.
    public let problem: Problem

    /// Creates an error; the verifier is the only producer outside tests.
    public init(instruction: Int?, _ problem: Problem) {
        self.instruction = instruction
        self.problem = problem
    }

    /// The problem and where it is, for people reading a refused program's report.
    public var description: String {
        let place = instruction.map { "instruction \($0): " } ?? ""
        return place + problemDescription
    }

    private var problemDescription: String {
        switch problem {
        case .sourceRangeCountMismatch(let ranges, let instructions):
            return "\(ranges) source ranges for \(instructions) instructions"
        case .invalidSourceRange(let range): return "invalid source range \(range)"
        case .implausibleMaximumStackDepth(let depth): return "implausible maximum stack depth \(depth)"
        case .implausibleMaximumSubqueryDepth(let depth): return "implausible maximum SUBQUERY depth \(depth)"
        case .constantOutOfRange(let index, let count): return "constant \(index) out of range (\(count) constants)"
        case .keyPathOutOfRange(let index, let count): return "key path \(index) out of range (\(count) key paths)"
        case .comparisonOutOfRange(let index, let count):
            return "comparison site \(index) out of range (\(count) sites)"
        case .variableOutOfRange(let index, let count): return "variable \(index) out of range (\(count) variables)"
        case .notAStringConstant(let index): return "constant \(index) must be a string"
        case .invalidComparisonOptions(let options): return "undefined comparison option bits \(options)"
        case .jumpOutOfRange(let target): return "jump target \(target) is outside the code"
        case .backwardJump(let target): return "jumps back to \(target); only SUBQUERY_COLLECT may loop"
        case .collectTargetNotNext(let target):
            return "SUBQUERY_COLLECT must jump back to a SUBQUERY_NEXT, not to instruction \(target)"
        case .jumpToSubqueryNext(let target):
            return "jumps to the SUBQUERY_NEXT at \(target); only its SUBQUERY_COLLECT may"
        case .subqueryNextWithoutBegin: return "SUBQUERY_NEXT must directly follow SUBQUERY_BEGIN"
        case .fieldSlotOutOfRange(let keyPath, let slot, let count):
            return "key path \(keyPath) reads field slot \(slot) of a schema with \(count) fields"
        case .unknownKeyPathVariable(let keyPath, let name):
            return "key path \(keyPath) uses $\(name), which is not in the variable table"
        case .missingReturn: return "execution can run past the end of the code"
        case .stackUnderflow(let depth, let pops): return "pops \(pops) values from a stack of \(depth)"
        case .stackOverflow(let depth, let maximum):
            return "stack reaches \(depth) values, more than the declared maximum \(maximum)"
        case .inconsistentStackDepth(let target, let expected, let found):
            return "reaches instruction \(target) with stack depth \(found), another path with \(expected)"
        case .inconsistentScopes(let target):
            return "reaches instruction \(target) inside different SUBQUERY or SAVE_VARS scopes than another path"
        case .subqueryNotOpen: return "no SUBQUERY loop is the innermost open scope"
        case .subqueryTooDeep(let depth, let maximum):
            return "SUBQUERY nesting reaches \(depth), more than the declared maximum \(maximum)"
        case .restoreWithoutSave: return "RESTORE_VARS without a matching SAVE_VARS"
        case .unclosedScopeAtReturn: return "returns inside an open SUBQUERY loop or SAVE_VARS scope"
        case .wrongReturn(let kind):
            switch kind {
            case .predicate: return "a predicate must end with RETURN_BOOL"
            case .expression: return "an expression must end with RETURN_VALUE"
            case .ruleSet: return "a rule set must end with RETURN_RULES"
            }
        case .valuesLeftAtReturn(let depth): return "returns with \(depth) values on the stack instead of 1"
        case .ruleInstructionOutsideRuleSet: return "RULE_END and RETURN_RULES belong only in a rule set"
        case .ruleEndNotAtTopLevel(let depth):
            return "RULE_END with \(depth) values on the stack instead of 1, or inside a scope"
        case .jumpAcrossRuleEnd(let target): return "jump to \(target) leaves its rule (crosses a RULE_END)"
        case .tooLarge(let table, let count, let limit): return "\(count) \(table), more than the limit of \(limit)"
        }
    }
}

/// Checks a ``Program`` before the virtual machine runs it, so that the machine can trust stack
/// depths and table indices instead of checking them on every instruction, and so that a program
/// read from bytes (``Program/init(bytes:schemas:)``) cannot crash it.
///
/// Every check derives from the instruction table (``Opcode/facts``): which table each operand
/// indexes, stack effects, jumps, scopes and returns; nothing here switches over instructions.
public enum Verifier {
    /// Verifies `program`: every operand in range, every jump inside the code, loops only in the
    /// `SUBQUERY` shape (so evaluation always ends), and on every path the stack neither
    /// underflows nor exceeds the declared maximum, scopes nest, and the path ends with the right
    /// return or `FAIL`. Unreachable code gets the operand and shape checks only.
    ///
    /// - Parameter limits: How large the program may be; checked first, before any other work.
    /// - Throws: The first problem found, with the offset of the instruction at fault.
    public static func verify(_ program: Program, limits: ProgramLimits = ProgramLimits()) throws(VerificationError) {
        try limits.check(program)
        try checkDeclarations(program)
        try checkKeyPaths(program)
        try checkRuleBoundaries(program)
        for (offset, instruction) in program.code.enumerated() {
            do {
                try checkOperands(instruction, at: offset, in: program)
            } catch {
                throw VerificationError(instruction: offset, error.problem)
            }
        }
        var flow = Flow(program: program)
        try flow.run()
    }

    // MARK: - Tables and declarations

    private static func checkDeclarations(_ program: Program) throws(VerificationError) {
        guard program.sourceRanges.count == program.code.count else {
            throw VerificationError(
                instruction: nil,
                .sourceRangeCountMismatch(ranges: program.sourceRanges.count, instructions: program.code.count))
        }
        for (offset, range) in program.sourceRanges.enumerated()
        where range.lowerBound < 0 || range.upperBound < range.lowerBound {
            throw VerificationError(instruction: offset, .invalidSourceRange(range))
        }
        // Every instruction pushes at most one value and opens at most one loop, and joins have
        // one depth, so no path gets deeper than the code is long. A larger declaration can only
        // be a lie, and the machine reserves that much space.
        guard (0...program.code.count).contains(program.maximumStackDepth) else {
            throw VerificationError(instruction: nil, .implausibleMaximumStackDepth(program.maximumStackDepth))
        }
        guard (0...program.code.count).contains(program.maximumSubqueryDepth) else {
            throw VerificationError(instruction: nil, .implausibleMaximumSubqueryDepth(program.maximumSubqueryDepth))
        }
    }

    private static func checkKeyPaths(_ program: Program) throws(VerificationError) {
        for (index, path) in program.keyPaths.enumerated() {
            for component in path {
                switch component {
                case .key:
                    break
                case .variable(let name):
                    guard program.variables.contains(name) else {
                        throw VerificationError(instruction: nil, .unknownKeyPathVariable(keyPath: index, name: name))
                    }
                case .field(let field):
                    let count = field.schema.schema.fields.count
                    guard (0..<count).contains(field.slot) else {
                        throw VerificationError(
                            instruction: nil, .fieldSlotOutOfRange(keyPath: index, slot: field.slot, fieldCount: count))
                    }
                }
            }
        }
    }

    /// In a rule set no jump leaves its rule, so the machine can tell from where an error
    /// happened which rule it hides (the first `RULE_END` after it).
    private static func checkRuleBoundaries(_ program: Program) throws(VerificationError) {
        guard program.kind == .ruleSet else { return }
        // `endsBefore[i]`: how many `RULE_END`s come before instruction `i`.
        var endsBefore = [0]
        endsBefore.reserveCapacity(program.code.count + 1)
        for instruction in program.code {
            let isEnd: Bool
            if case .ruleEnd = instruction { isEnd = true } else { isEnd = false }
            endsBefore.append((endsBefore.last ?? 0) + (isEnd ? 1 : 0))
        }
        for (offset, instruction) in program.code.enumerated() {
            guard let jump = instruction.jumpOffset else { continue }
            let target = offset + 1 + Int(jump)
            let low = min(offset + 1, target)
            let high = max(offset + 1, target)
            guard low >= 0, high < endsBefore.count else { continue }  // reported by the jump checks
            if endsBefore[high] != endsBefore[low] {
                throw VerificationError(instruction: offset, .jumpAcrossRuleEnd(target: target))
            }
        }
    }

    // MARK: - Operands

    /// Each operand checked against what its row says it names.
    private static func checkOperands(
        _ instruction: Instruction, at offset: Int, in program: Program
    ) throws(Fault) {
        try checkLoopShape(instruction, at: offset, in: program.code)
        let facts = instruction.facts
        if facts.ruleSetOnly, program.kind != .ruleSet { throw Fault(.ruleInstructionOutsideRuleSet) }
        let values = instruction.operandValues
        for (position, operand) in facts.operands.enumerated() {
            try checkOperand(operand.kind, values[position], in: program)
        }
        if case .compare(_, let options, _) = instruction { try checkOptions(options) }
    }

    private static func checkOperand(_ kind: OperandSpec.Kind, _ value: Int, in program: Program) throws(Fault) {
        switch kind {
        case .constant, .stringConstant:
            guard value < program.constants.count else {
                throw Fault(.constantOutOfRange(index: value, count: program.constants.count))
            }
            if kind == .stringConstant {
                guard case .string = program.constants[value] else { throw Fault(.notAStringConstant(index: value)) }
            }
        case .variable:
            guard value < program.variables.count else {
                throw Fault(.variableOutOfRange(index: value, count: program.variables.count))
            }
        case .keyPath:
            guard value < program.keyPaths.count else {
                throw Fault(.keyPathOutOfRange(index: value, count: program.keyPaths.count))
            }
        case .site:
            // A site's own operands, checked as the instructions it stands for would be.
            guard value < program.comparisons.count else {
                throw Fault(.comparisonOutOfRange(index: value, count: program.comparisons.count))
            }
            let site = program.comparisons[value]
            if case .variable(let slot) = site.receiver { try checkOperand(.variable, Int(slot), in: program) }
            try checkOperand(.keyPath, Int(site.keyPath), in: program)
            try checkOperand(.constant, Int(site.constant), in: program)
            try checkOptions(site.options)
            guard site.keyPathRange.lowerBound >= 0, site.keyPathRange.lowerBound <= site.keyPathRange.upperBound
            else { throw Fault(.invalidSourceRange(site.keyPathRange)) }
        case .jump:
            break  // checkLoopShape
        case .count, .arity, .memoSlot, .rule, .comparisonOperator, .comparisonOptions, .quantifier, .indexSymbol,
            .setOperator:
            break  // any value the payload can hold is valid; options bits are checked below
        }
    }

    /// Option bits outside the defined `[cdnlw]` set name nothing.
    private static func checkOptions(_ options: ComparisonOptions) throws(Fault) {
        guard options.rawValue & ~0x1F == 0 else { throw Fault(.invalidComparisonOptions(options.rawValue)) }
    }

    /// Jump targets, and the shape that makes every loop a `SUBQUERY` loop: backward edges only
    /// from `SUBQUERY_COLLECT` to a `SUBQUERY_NEXT`, which is entered only from its
    /// `SUBQUERY_BEGIN` or a `SUBQUERY_COLLECT`. With the data flow's scopes (which tell loops
    /// apart by their `SUBQUERY_BEGIN`), every cycle advances one iterator that nothing inside
    /// the cycle replaces, so evaluation always ends.
    private static func checkLoopShape(
        _ instruction: Instruction, at offset: Int, in code: [Instruction]
    ) throws(Fault) {
        let role = instruction.facts.loopRole
        if role == .next {
            guard offset > 0, code[offset - 1].facts.loopRole == .begin else { throw Fault(.subqueryNextWithoutBegin) }
        }
        guard let jump = instruction.jumpOffset else { return }
        let target = offset + 1 + Int(jump)
        guard code.indices.contains(target) else { throw Fault(.jumpOutOfRange(target: target)) }
        let targetRole = code[target].facts.loopRole
        if role == .collect {
            guard targetRole == .next else { throw Fault(.collectTargetNotNext(target: target)) }
        } else {
            guard target > offset else { throw Fault(.backwardJump(target: target)) }
            guard targetRole != .next else { throw Fault(.jumpToSubqueryNext(target: target)) }
        }
    }
}

// MARK: - Data flow

/// A problem found inside one instruction's checks, before the offset is attached.
struct Fault: Error {
    let problem: VerificationError.Problem
    init(_ problem: VerificationError.Problem) { self.problem = problem }
}

/// The abstract state on entry to an instruction: the stack depth and the open scopes.
private struct FlowState: Equatable {
    var depth: Int
    /// A node of ``Flow/scopes``: the open scopes as an interned list, so that comparing two
    /// states' scopes at a join is comparing two integers.
    var scope: Int
}

/// One pass over the reachable code from instruction 0. Each instruction gets a state the
/// first time a path reaches it; every later path must arrive with the same state, so each
/// instruction is processed once and loops (`SUBQUERY_COLLECT` back to `SUBQUERY_NEXT`) end.
private struct Flow {
    /// An open scope: its kind, the scopes around it, and the instruction that opened it, so
    /// that two loops (or one loop entered twice) are never mistaken for each other at a join.
    struct ScopeNode: Hashable {
        var kind: ScopeKind
        var parent: Int
        var openedAt: Int
    }

    let program: Program
    var states: [FlowState?]
    var worklist: [Int] = []
    /// Interned scope lists; node 0 is "no scope open" and has no entry here.
    var nodes: [ScopeNode] = []
    var nodeIndex: [ScopeNode: Int] = [:]
    var subqueryDepths: [Int] = [0]

    init(program: Program) {
        self.program = program
        states = Array(repeating: nil, count: program.code.count)
    }

    mutating func run() throws(VerificationError) {
        guard !program.code.isEmpty else { throw VerificationError(instruction: 0, .missingReturn) }
        states[0] = FlowState(depth: 0, scope: 0)
        worklist.append(0)
        while let offset = worklist.popLast() {
            guard let state = states[offset] else { continue }
            do {
                try step(offset, state)
            } catch {
                throw VerificationError(instruction: offset, error.problem)
            }
        }
    }

    mutating func step(_ offset: Int, _ state: FlowState) throws(Fault) {
        let instruction = program.code[offset]
        let effects = instruction.facts.scopes
        if let jump = instruction.jumpOffset {
            let after = try apply(
                instruction.takenStackEffect ?? instruction.stackEffect, effects.taken, to: state, at: offset)
            try reach(offset + 1 + Int(jump), with: after)
        }
        if case .ruleEnd = instruction {
            // Recovering from a rule's error clears the stack and the scopes: that is exact only
            // when a rule starts and ends with nothing else open.
            guard state.depth == 1, state.scope == 0 else { throw Fault(.ruleEndNotAtTopLevel(depth: state.depth)) }
        }
        if !instruction.endsBlock {
            let after = try apply(instruction.stackEffect, effects.fallThrough, to: state, at: offset)
            guard offset + 1 < program.code.count else { throw Fault(.missingReturn) }
            try reach(offset + 1, with: after)
        } else if instruction.jumpOffset == nil {
            let after = try apply(instruction.stackEffect, effects.fallThrough, to: state, at: offset)
            switch instruction.facts.ends {
            case .returns(let kind):
                guard kind == program.kind else { throw Fault(.wrongReturn(expected: program.kind)) }
                guard after.scope == 0 else { throw Fault(.unclosedScopeAtReturn) }
                guard after.depth == 0 else { throw Fault(.valuesLeftAtReturn(depth: state.depth)) }
            case .fails:
                break
            case nil:
                throw Fault(.missingReturn)
            }
        }
    }

    mutating func reach(_ target: Int, with state: FlowState) throws(Fault) {
        guard let existing = states[target] else {
            states[target] = state
            worklist.append(target)
            return
        }
        guard existing.depth == state.depth else {
            throw Fault(.inconsistentStackDepth(target: target, expected: existing.depth, found: state.depth))
        }
        guard existing.scope == state.scope else { throw Fault(.inconsistentScopes(target: target)) }
    }

    mutating func apply(
        _ effect: (pops: Int, pushes: Int), _ scopeEffect: ScopeEffect, to state: FlowState, at offset: Int
    ) throws(Fault) -> FlowState {
        guard effect.pops <= state.depth else { throw Fault(.stackUnderflow(depth: state.depth, pops: effect.pops)) }
        let depth = state.depth - effect.pops + effect.pushes
        guard depth <= program.maximumStackDepth else {
            throw Fault(.stackOverflow(depth: depth, maximum: program.maximumStackDepth))
        }
        return FlowState(depth: depth, scope: try applyScope(scopeEffect, to: state.scope, at: offset))
    }

    mutating func applyScope(
        _ effect: ScopeEffect, to scope: Int, at offset: Int
    ) throws(Fault) -> Int {
        switch effect {
        case .none:
            return scope
        case .open(let kind):
            let node = ScopeNode(kind: kind, parent: scope, openedAt: offset)
            if let existing = nodeIndex[node] { return existing }
            let depth = subqueryDepths[scope] + (kind == .subquery ? 1 : 0)
            guard depth <= program.maximumSubqueryDepth else {
                throw Fault(.subqueryTooDeep(depth: depth, maximum: program.maximumSubqueryDepth))
            }
            nodes.append(node)
            subqueryDepths.append(depth)
            nodeIndex[node] = nodes.count
            return nodes.count
        case .close(let kind):
            guard scope > 0, nodes[scope - 1].kind == kind else { throw mismatch(kind) }
            return nodes[scope - 1].parent
        case .requireInnermost(let kind):
            guard scope > 0, nodes[scope - 1].kind == kind else { throw mismatch(kind) }
            return scope
        }
    }

    func mismatch(_ kind: ScopeKind) -> Fault {
        switch kind {
        case .subquery: return Fault(.subqueryNotOpen)
        case .savedVariables: return Fault(.restoreWithoutSave)
        }
    }
}
