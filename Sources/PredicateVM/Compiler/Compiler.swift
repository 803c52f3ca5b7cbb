import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Why a rule could not be compiled: it exceeds what the bytecode can address.
public struct CompileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What limit was exceeded.
    public let message: String
    /// `message`.
    public var description: String { message }
}

/// Compiles syntax trees (bound or not) to ``Program``s: one function per tree case, `AND`/`OR`
/// as short-circuit jumps through labels, constant folding where the result cannot differ from
/// run-time evaluation.
public enum Compiler {
    /// Compiles a predicate. `source` is the rule text, kept for error messages.
    ///
    /// - Throws: ``CompileError`` when the program would exceed `limits` or what 16-bit operands
    ///   can address.
    ///
    /// With `fusing` (the default), a key path compared with a constant becomes one `TEST`
    /// instruction, and one that links an `AND`/`OR` chain a `TEST_AND`/`TEST_OR`; without it,
    /// the same comparisons are `SELF_KEYPATH`/`PUSH_CONST`/`CMP` and jumps, as the benchmark
    /// compares.
    public static func compile(
        _ predicate: PredicateNode, source: String = "", limits: ProgramLimits = ProgramLimits(), fusing: Bool = true
    ) throws(CompileError) -> Program {
        var emitter = Emitter()
        emitter.fusing = fusing
        emitter.compile(predicate)
        emitter.emit(.returnBool, predicate.range)
        return try emitter.finish(kind: .predicate, source: source, limits: limits)
    }

    /// Compiles a standalone expression.
    public static func compile(
        _ expression: ExpressionNode, source: String = "", limits: ProgramLimits = ProgramLimits(), fusing: Bool = true
    ) throws(CompileError) -> Program {
        var emitter = Emitter()
        emitter.fusing = fusing
        emitter.compile(expression)
        emitter.emit(.returnValue, expression.range)
        return try emitter.finish(kind: .expression, source: source, limits: limits)
    }
}

/// A forward jump waiting for its target.
struct Label {
    var patches: [Int] = []
}

struct Emitter {
    var code: [Instruction] = []
    var ranges: [SourceRange] = []
    var constants: [Value] = []
    var constantIndex: [Value: Int] = [:]
    var keyPaths: [[KeyComponent]] = []
    var keyPathIndex: [[KeyComponent]: Int] = [:]
    var variables: [String] = []
    var subqueryDepth = 0
    var maximumSubqueryDepth = 0
    var overflow: String?
    /// Added to every source range: a rule set's rules sit one a line in one source text.
    var rangeOffset = 0
    /// Sub-trees a rule set shares between its rules, each with its memo slot: computed once per
    /// evaluation, then reused (see ``Instruction/memoLoad(skip:slot:)``).
    var memoSlots: [SyntaxNode: UInt8] = [:]
    /// Whether comparisons with constants become `TEST` instructions.
    var fusing = true
    /// The comparison sites of the `TEST` instructions emitted so far.
    var comparisons: [ComparisonSite] = []
    /// The highest instruction index any jump lands on: instructions at or before it cannot be
    /// fused into what follows.
    var lastJumpTarget = -1
    /// The variables of the `SUBQUERY` loops being compiled, which are always bound inside them.
    var loopVariables: [UInt16] = []

    // MARK: - Emission

    mutating func emit(_ instruction: Instruction, _ range: SourceRange) {
        if fusing, case .compare = instruction, fuseComparison(instruction, range) { return }
        code.append(instruction)
        ranges.append(
            rangeOffset == 0 ? range : SourceRange(range.lowerBound + rangeOffset, range.upperBound + rangeOffset))
    }

    /// Emits a jump whose offset is patched when `label` is placed.
    mutating func emitJump(_ make: (Int16) -> Instruction, to label: inout Label, _ range: SourceRange) {
        // `TEST s; JUMP_IF_FALSE_OR_POP` is `TEST_AND s` (and `OR` alike), unless a jump lands
        // between the two.
        if fusing, lastJumpTarget < code.count, case .test(let site)? = code.last, let small = UInt8(exactly: site) {
            let link = make(0).opcode
            let fused: Instruction? =
                link == .jumpIfFalseOrPop
                ? .testAnd(0, site: small) : link == .jumpIfTrueOrPop ? .testOr(0, site: small) : nil
            if let fused {
                code[code.count - 1] = fused
                label.patches.append(code.count - 1)
                return
            }
        }
        label.patches.append(code.count)
        emit(make(0), range)
    }

    /// Places `label` here, patching every jump to it.
    mutating func place(_ label: Label) {
        for site in label.patches { patch(site, target: code.count) }
    }

    /// Replaces the `SELF_KEYPATH p; PUSH_CONST k` (or `LOAD_VAR v; KEYPATH p; PUSH_CONST k`, for a
    /// `SUBQUERY` variable) just emitted and the `CMP` about to be by `TEST s`; `false` when the
    /// code before it is not that shape or a jump lands inside it.
    mutating func fuseComparison(_ compare: Instruction, _ range: SourceRange) -> Bool {
        guard case .compare(let op, let options, let quantifier) = compare, code.count >= 2,
            case .pushConstant(let constant) = code[code.count - 1]
        else { return false }
        let receiver: ComparisonSite.Receiver
        let path: UInt16
        let start: Int
        if case .loadSelfKeyPath(let index) = code[code.count - 2] {
            (receiver, path, start) = (.evaluatedObject, index, code.count - 2)
        } else if case .loadKeyPath(let index) = code[code.count - 2] {
            // A caller's variable may be unbound, an error reported at the variable itself,
            // which a site does not record; a loop's variable never is.
            guard code.count >= 3, case .loadVariable(let slot) = code[code.count - 3], loopVariables.contains(slot)
            else { return false }
            (receiver, path, start) = (.variable(slot), index, code.count - 3)
        } else {
            return false
        }
        guard lastJumpTarget <= start, comparisons.count < Int(UInt16.max) else { return false }
        comparisons.append(
            ComparisonSite(
                receiver: receiver, keyPath: path, constant: constant, op: op, options: options,
                quantifier: quantifier, keyPathRange: ranges[code.count - 2]))
        code.removeSubrange(start...)
        ranges.removeSubrange(start...)
        code.append(.test(UInt16(comparisons.count - 1)))
        ranges.append(
            rangeOffset == 0 ? range : SourceRange(range.lowerBound + rangeOffset, range.upperBound + rangeOffset))
        return true
    }

    mutating func patch(_ site: Int, target: Int) {
        lastJumpTarget = max(lastJumpTarget, target)
        let distance = target - site - 1
        guard let offset = Int16(exactly: distance) else {
            overflow = "the rule is too long to compile: a jump spans \(distance) instructions"
            return
        }
        guard let patched = code[site].withJumpOffset(offset) else {
            overflow = "internal error: patching a non-jump"
            return
        }
        code[site] = patched
    }

    mutating func constant(_ value: Value) -> UInt16 {
        // `Value` equality has `-0.0 == 0.0`, yet `x / -0.0` is not `x / 0.0`: a negative zero
        // gets its own entry rather than sharing a positive zero's.
        if value.containsNegativeZero {
            constants.append(value)
            return index16(constants.count - 1, "constants")
        }
        if let index = constantIndex[value] { return index16(index, "constants") }
        constants.append(value)
        constantIndex[value] = constants.count - 1
        return index16(constants.count - 1, "constants")
    }

    mutating func keyPath(_ components: [KeyComponent]) -> UInt16 {
        if let index = keyPathIndex[components] { return index16(index, "key paths") }
        keyPaths.append(components)
        keyPathIndex[components] = keyPaths.count - 1
        return index16(keyPaths.count - 1, "key paths")
    }

    mutating func variable(_ name: String) -> UInt16 {
        if let index = variables.firstIndex(of: name) { return index16(index, "variables") }
        variables.append(name)
        return index16(variables.count - 1, "variables")
    }

    mutating func index16(_ index: Int, _ table: String) -> UInt16 {
        guard let small = UInt16(exactly: index) else {
            overflow = "the rule has too many \(table) (more than 65,536)"
            return 0
        }
        return small
    }

    func finish(kind: Program.Kind, source: String, limits: ProgramLimits) throws(CompileError) -> Program {
        if let overflow { throw CompileError(message: overflow) }
        if code.count > limits.maximumInstructions {
            throw CompileError(
                message:
                    "the rule compiles to \(code.count) instructions, more than the limit of \(limits.maximumInstructions)"
            )
        }
        if constants.count > limits.maximumConstants {
            throw CompileError(
                message:
                    "the rule needs \(constants.count) constants, more than the limit of \(limits.maximumConstants)")
        }
        // Computed once, from the instruction table, over the code as emitted.
        let maximumDepth = Instruction.stackDepths(code).compactMap { $0 }.max() ?? 0
        let program = Program(
            kind: kind, code: code, constants: constants, keyPaths: keyPaths, comparisons: comparisons,
            variables: variables, sourceRanges: ranges, maximumStackDepth: maximumDepth,
            maximumSubqueryDepth: maximumSubqueryDepth,
            source: source)
        // The compiler's own output must always verify; checked in debug builds (tests).
        assert((try? Verifier.verify(program)) != nil, "the compiler emitted a program that does not verify")
        return program
    }

    // MARK: - Predicates

    mutating func compile(_ predicate: PredicateNode) {
        if !memoSlots.isEmpty, let slot = memoSlots[.predicate(predicate)] {
            memoized(slot, predicate.range) { $0.compileUnshared(predicate) }
        } else {
            compileUnshared(predicate)
        }
    }

    /// `MEMO_LOAD m, done; <body>; MEMO_STORE m; done:` — both paths leave the one value.
    mutating func memoized(_ slot: UInt8, _ range: SourceRange, _ body: (inout Emitter) -> Void) {
        var done = Label()
        emitJump({ .memoLoad(skip: $0, slot: slot) }, to: &done, range)
        body(&self)
        emit(.memoStore(UInt16(slot)), range)
        place(done)
    }

    mutating func compileUnshared(_ predicate: PredicateNode) {
        let range = predicate.range
        switch predicate.kind {
        case .constant(let value):
            emit(.pushConstant(constant(.bool(value))), range)
        case .not(let operand):
            compile(operand)
            emit(.not, range)
        case .and(let operands):
            compileChain(operands, empty: true, jump: Instruction.jumpIfFalseOrPop, range)
        case .or(let operands):
            compileChain(operands, empty: false, jump: Instruction.jumpIfTrueOrPop, range)
        case .comparison(let comparison):
            let scoped = comparison.lhs.containsAssignment || comparison.rhs.containsAssignment
            if scoped { emit(.saveVariables, range) }
            compile(comparison.lhs)
            compile(comparison.rhs)
            emit(.compare(op: comparison.op, options: comparison.options, quantifier: comparison.quantifier), range)
            if scoped { emit(.restoreVariables, range) }
        }
    }

    /// `a AND b AND c`: each operand but the last jumps to the end, keeping its result, when it
    /// decides the chain; otherwise its result is popped and the next operand runs.
    mutating func compileChain(
        _ operands: [PredicateNode], empty: Bool, jump: (Int16) -> Instruction, _ range: SourceRange
    ) {
        guard let last = operands.last else {
            emit(.pushConstant(constant(.bool(empty))), range)
            return
        }
        var end = Label()
        for operand in operands.dropLast() {
            compile(operand)
            emitJump(jump, to: &end, range)
        }
        compile(last)
        place(end)
    }

    // MARK: - Expressions

    mutating func compile(_ expression: ExpressionNode) {
        let range = expression.range
        if let folded = ConstantFolding.value(of: expression) {
            emit(.pushConstant(constant(folded)), range)
            return
        }
        if !memoSlots.isEmpty, let slot = memoSlots[.expression(expression)] {
            memoized(slot, range) { $0.compileUnshared(expression) }
        } else {
            compileUnshared(expression)
        }
    }

    mutating func compileUnshared(_ expression: ExpressionNode) {
        let range = expression.range
        switch expression.kind {
        case .constant(let value):
            emit(.pushConstant(constant(value)), range)
        case .evaluatedObject:
            emit(.pushSelf, range)
        case .variable(let name):
            emit(.loadVariable(variable(name)), range)
        case .keyPath(let base, let components):
            if case .evaluatedObject = base.kind {
                emit(.loadSelfKeyPath(keyPath(components)), range)
            } else {
                compile(base)
                emit(.loadKeyPath(keyPath(components)), range)
            }
            for case .variable(let name) in components { _ = variable(name) }
        case .function(let selector, let arguments):
            for argument in arguments { compile(argument) }
            emit(.callFunction(constant(.string(selector)), arity: UInt8(clamping: arguments.count)), range)
        case .invoke(let receiver, let selector, let arguments):
            compile(receiver)
            var end = Label()
            emitJump(Instruction.jumpIfNil, to: &end, range)
            for argument in arguments { compile(argument) }
            if arguments.count > Int(UInt8.max) { overflow = "FUNCTION has too many arguments" }
            emit(.invoke(constant(.string(selector)), arity: UInt8(clamping: arguments.count)), range)
            place(end)
        case .aggregate(let elements):
            for element in elements { compile(element) }
            emit(.makeArray(index16(elements.count, "array elements")), range)
        case .index(let base, let spec):
            compile(base)
            switch spec {
            case .first: emit(.indexSymbol(.first), range)
            case .last: emit(.indexSymbol(.last), range)
            case .size: emit(.indexSymbol(.size), range)
            case .expression(let index):
                compile(index)
                emit(.index, range)
            }
        case .subquery(let collection, let name, let predicate):
            compileSubquery(collection, name, predicate, range)
        case .ternary(let condition, let whenTrue, let whenFalse):
            compile(condition)
            var otherwise = Label()
            var end = Label()
            emitJump(Instruction.jumpIfFalse, to: &otherwise, range)
            compile(whenTrue)
            emitJump(Instruction.jump, to: &end, range)
            place(otherwise)
            compile(whenFalse)
            place(end)
        case .cast(let value, let type):
            compile(value)
            compile(type)
            emit(.cast, range)
        case .assignment(let name, let value):
            compile(value)
            emit(.storeVariable(variable(name)), range)
        case .setOperation(let op, let lhs, let rhs):
            compile(lhs)
            compile(rhs)
            emit(.setOperation(op), range)
        case .anyKey:
            let message = "ANYKEY is only meaningful to Spotlight and cannot be evaluated here"
            emit(.fail(constant(.string(message))), range)
        }
    }

    /// ```
    ///     <collection>
    ///     SUBQUERY_BEGIN $v, exit
    /// next:
    ///     SUBQUERY_NEXT exit
    ///     <predicate>
    ///     SUBQUERY_COLLECT next
    /// exit:
    /// ```
    mutating func compileSubquery(
        _ collection: ExpressionNode, _ name: String, _ predicate: PredicateNode, _ range: SourceRange
    ) {
        compile(collection)
        let slot = variable(name)
        if slot > UInt8.max { overflow = "SUBQUERY variables must be among the first 256 variables" }
        var exit = Label()
        emitJump({ .subqueryBegin(exit: $0, variable: UInt8(truncatingIfNeeded: slot)) }, to: &exit, range)
        subqueryDepth += 1
        maximumSubqueryDepth = max(maximumSubqueryDepth, subqueryDepth)
        let next = code.count
        emitJump(Instruction.subqueryNext, to: &exit, range)
        loopVariables.append(slot)
        compile(predicate)
        loopVariables.removeLast()
        emit(.subqueryCollect(0), range)
        patch(code.count - 1, target: next)
        subqueryDepth -= 1
        place(exit)
    }
}

extension ExpressionNode {
    /// Whether evaluating the expression may assign a variable.
    var containsAssignment: Bool {
        var found = false
        visit { expression in
            if case .assignment = expression.kind { found = true }
        }
        return found
    }

    /// Calls `body` on this expression and every expression inside it, except those inside
    /// predicates (`SUBQUERY`, `TERNARY` conditions), whose comparisons scope themselves.
    func visit(_ body: (ExpressionNode) -> Void) {
        body(self)
        for case .expression(let child) in kind.children { child.visit(body) }
    }
}

extension Value {
    /// Whether the value is, or holds, a floating-point negative zero.
    var containsNegativeZero: Bool {
        switch self {
        case .double(let number), .date(let number): return number == 0 && number.sign == .minus
        case .array(let elements), .set(let elements): return elements.contains { $0.containsNegativeZero }
        case .dictionary(let entries): return entries.values.contains { $0.containsNegativeZero }
        default: return false
        }
    }
}
