import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Recovers a ``Plan`` from a predicate program's instructions.
///
/// The compiler emits `a AND b` as `a; JUMP_IF_FALSE_OR_POP →end; b; end:` (and `OR` with
/// `JUMP_IF_TRUE_OR_POP`), so the structure is read back from the jumps; a comparison of a row's
/// key path with a constant is three instructions (`SELF_KEYPATH p; PUSH_CONST k; CMP`) or,
/// fused, one `TEST` (`TEST_AND`/`TEST_OR` when it links an `AND` or `OR` chain). Any
/// stretch of code that is not one of the recognised shapes becomes a ``ScalarRegion``, so every
/// program has a plan, and a plan means what its program means.
///
/// A `$variable` the caller binds (one that no `SUBQUERY` and no assignment in the rule binds)
/// is a constant for one evaluation: `SELF_KEYPATH p; LOAD_VAR v; CMP` is a comparison leaf with
/// the caller's value as its constant, in a plan made for those values.
struct Planner {
    /// Where the rows of the plan being built come from.
    enum Rows {
        /// Each row is `SELF`: leaves read `SELF_KEYPATH p`.
        case evaluatedObject
        /// Each row is the value of variable `slot` (a `SUBQUERY` element): leaves read
        /// `LOAD_VAR slot; KEYPATH p`.
        case variable(UInt16)
    }

    let program: Program
    let environment: EvaluationEnvironment
    let rows: Rows
    /// The caller's variables, constants of this plan.
    let variables: [String: Value]
    /// Whether each variable slot is one only the caller binds.
    private let callerBinds: [Bool]
    /// Whether some comparison reads a variable the caller binds (so the plan depends on it).
    private var readsVariables = false
    private var columns: [[KeyComponent]] = []
    private var regionCount = 0
    private var subqueryCount = 0
    private var comparisonCount = 0

    /// The stack depth before each instruction (and after the last), on the paths that reach it.
    private let depths: [Int?]

    private var code: [Instruction] { program.code }

    /// The plan for `program` (which must be a verified predicate program), its comparisons with
    /// the caller's `variables` made constants.
    static func plan(_ program: Program, environment: EvaluationEnvironment, variables: [String: Value] = [:]) -> Plan {
        var planner = Planner(
            program: program, environment: environment, rows: .evaluatedObject, variables: variables,
            callerBinds: callerBinds(program))
        let body = 0..<max(0, program.code.count - 1)
        guard program.kind == .predicate, case .returnBool? = program.code.last, let root = planner.node(body)
        else {
            // The whole program as one region: always valid, since the program is.
            return Plan(
                root: .scalar(ScalarRegion(id: 0, program: program)), columns: [], regionCount: 1, subqueryCount: 0,
                rowCost: planner.steps(program.code[...]), readsVariables: false)
        }
        return planner.finish(root, rowCost: planner.steps(program.code[...]))
    }

    /// The steps the scalar VM charges for running `instructions` once, before any cost that
    /// depends on the operands: one an instruction, one for each comparison's cost (at least 1,
    /// charged before a pattern matches), and for a comparison site also the loads,
    /// `PUSH_CONST` and `CMP` it stands for (2, or 3 from a variable) and a `TEST_AND`/`TEST_OR`
    /// link's jump.
    private func steps(_ instructions: ArraySlice<Instruction>) -> Int {
        var total = 0
        for instruction in instructions {
            total += 1
            if case .compare = instruction { total += 1 }
            guard let index = instruction.comparisonSite else { continue }
            total += 1
            if index < program.comparisons.count, case .variable = program.comparisons[index].receiver {
                total += 3
            } else {
                total += 2
            }
            if instruction.jumpOffset != nil { total += 1 }
        }
        return total
    }

    private init(
        program: Program, environment: EvaluationEnvironment, rows: Rows, variables: [String: Value],
        callerBinds: [Bool]
    ) {
        self.program = program
        self.environment = environment
        self.rows = rows
        self.variables = variables
        self.callerBinds = callerBinds
        depths = Instruction.stackDepths(program.code)
    }

    /// For each variable slot, whether only the caller binds it: no `SUBQUERY` loops over it and
    /// no assignment stores into it.
    private static func callerBinds(_ program: Program) -> [Bool] {
        var binds = [Bool](repeating: true, count: program.variables.count)
        for instruction in program.code {
            switch instruction {
            case .storeVariable(let slot) where Int(slot) < binds.count: binds[Int(slot)] = false
            case .subqueryBegin(_, let slot) where Int(slot) < binds.count: binds[Int(slot)] = false
            default: break
            }
        }
        return binds
    }

    /// The caller's value of variable `slot` when only the caller binds it: `.some(nil)` when
    /// the caller did not bind it this time (the comparison then stays on the scalar VM, which
    /// reports it unbound); `nil` when the slot is not the caller's.
    private mutating func callerValue(_ slot: UInt16) -> Value?? {
        guard Int(slot) < callerBinds.count, callerBinds[Int(slot)] else { return nil }
        readsVariables = true
        return .some(variables[program.variables[Int(slot)]])
    }

    private func finish(_ root: PlanNode, rowCost: Int) -> Plan {
        Plan(
            root: root, columns: columns, regionCount: regionCount, subqueryCount: subqueryCount, rowCost: rowCost,
            readsVariables: readsVariables)
    }

    /// The node for `range`, code that leaves one Boolean: structured if possible, else a region;
    /// `nil` only when not even a region verifies.
    private mutating func node(_ range: Range<Int>) -> PlanNode? {
        if let structured = structured(range) { return structured }
        return region(range).map(PlanNode.scalar)
    }

    private mutating func structured(_ range: Range<Int>) -> PlanNode? {
        var pc = range.lowerBound
        guard var node = primary(&pc, end: range.upperBound) else { return nil }
        while pc < range.upperBound {
            if case .not = code[pc] {
                node = .not(node)
                pc += 1
                continue
            }
            // Otherwise only an `AND` or `OR` link continues a structured node.
            let isAnd = code[pc].opcode == .jumpIfFalseOrPop
            guard isAnd || code[pc].opcode == .jumpIfTrueOrPop, let offset = code[pc].jumpOffset else { return nil }
            let target = pc + 1 + Int(offset)
            guard target > pc + 1, target <= range.upperBound, let right = self.node((pc + 1)..<target) else {
                return nil
            }
            node = isAnd ? .and(node, right) : .or(node, right)
            pc = target
        }
        return node
    }

    /// One operand of a connective, starting at `pc`: a recognised shape, or else the shortest
    /// stretch that leaves one value and ends where a connective or `NOT` could follow.
    private mutating func primary(_ pc: inout Int, end: Int) -> PlanNode? {
        if let (link, length) = fusedLink(at: pc, end: end) {
            pc += length
            return link
        }
        if let (leaf, length) = comparison(at: pc, end: end) {
            pc += length
            return leaf
        }
        if let (leaf, length) = subquery(at: pc, end: end) {
            pc += length
            return leaf
        }
        if case .pushConstant(let index) = code[pc], case .bool(let flag) = constant(index),
            pc + 1 == end || isBooleanFollower(code[pc + 1])
        {
            pc += 1
            return .constant(flag)
        }
        guard let start = depths[pc] else { return nil }
        var cursor = pc + 1
        while cursor <= end {
            if depths[cursor] == start + 1, cursor == end || isBooleanFollower(code[cursor]),
                jumpsStayInside(pc..<cursor), let region = region(pc..<cursor)
            {
                pc = cursor
                return .scalar(region)
            }
            cursor += 1
        }
        return nil
    }

    private func isBooleanFollower(_ instruction: Instruction) -> Bool {
        [.jumpIfFalseOrPop, .jumpIfTrueOrPop, .not].contains(instruction.opcode)
    }

    /// Whether every jump in `range` lands inside it or just after it.
    private func jumpsStayInside(_ range: Range<Int>) -> Bool {
        range.allSatisfy { pc in
            guard let offset = code[pc].jumpOffset else { return true }
            let target = pc + 1 + Int(offset)
            return target >= range.lowerBound && target <= range.upperBound
        }
    }

    private func constant(_ index: UInt16) -> Value? {
        Int(index) < program.constants.count ? program.constants[Int(index)] : nil
    }

    /// What `instruction` pushes when it pushes the same value for every row: a constant, or a
    /// variable only the caller binds (`.some(nil)` when the caller left it unbound); `nil` for
    /// anything else.
    private mutating func constantOperand(_ instruction: Instruction) -> Value?? {
        switch instruction {
        case .pushConstant(let index): return constant(index).map { .some($0) }
        case .loadVariable(let slot): return callerValue(slot)
        default: return nil
        }
    }

    /// The key path a row load at `pc` reads and how many instructions it takes.
    private func rowKeyPath(at pc: Int, end: Int) -> (path: [KeyComponent], length: Int)? {
        switch rows {
        case .evaluatedObject:
            guard pc < end, case .loadSelfKeyPath(let index) = code[pc] else { return nil }
            return keyPath(index).map { ($0, 1) }
        case .variable(let slot):
            guard pc + 1 < end, case .loadVariable(slot) = code[pc], case .loadKeyPath(let index) = code[pc + 1]
            else { return nil }
            return keyPath(index).map { ($0, 2) }
        }
    }

    private func keyPath(_ index: UInt16) -> [KeyComponent]? {
        guard Int(index) < program.keyPaths.count else { return nil }
        let path = program.keyPaths[Int(index)]
        // A `$variable` component depends on more than the row.
        let readsVariable = path.contains { if case .variable = $0 { return true } else { return false } }
        return path.isEmpty || readsVariable ? nil : path
    }

    private mutating func columnNumber(_ path: [KeyComponent]) -> Int {
        if let existing = columns.firstIndex(of: path) { return existing }
        columns.append(path)
        return columns.count - 1
    }

    /// `row.path op k` or `k op row.path`, as three instructions or as a `TEST` site.
    private mutating func comparison(at pc: Int, end: Int) -> (PlanNode, Int)? {
        if pc < end, case .test(let index) = code[pc], let site = rowSite(Int(index)) {
            guard let fallback = region(pc..<(pc + 1)) else { return nil }
            return leaf(site, fallback: fallback, at: pc).map { ($0, 1) }
        }
        var path: [KeyComponent]
        var operand: Value?
        var constantOnLeft = false
        var length: Int
        if let (rowPath, loadLength) = rowKeyPath(at: pc, end: end), pc + loadLength < end,
            let value = constantOperand(code[pc + loadLength])
        {
            (path, operand, length) = (rowPath, value, loadLength + 1)
        } else if pc < end, let value = constantOperand(code[pc]),
            let (rowPath, loadLength) = rowKeyPath(at: pc + 1, end: end)
        {
            (path, operand, length, constantOnLeft) = (rowPath, value, loadLength + 1, true)
        } else {
            return nil
        }
        guard pc + length < end, case .compare(let op, let options, let quantifier) = code[pc + length] else {
            return nil
        }
        guard let constant = operand else {
            // A variable the caller did not bind this time: the scalar VM reports it. Its column
            // is still one the program reads, for the plans made with the variable bound.
            _ = columnNumber(path)
            return nil
        }
        length += 1
        guard let fallback = region(pc..<(pc + length)) else { return nil }
        let leaf = comparisonLeaf(
            path: path, op: op, options: options, quantifier: quantifier, constant: constant,
            constantOnLeft: constantOnLeft, site: sourceRange(pc + length - 1), fallback: fallback)
        return (leaf, length)
    }

    /// `TEST_AND s, →end; rest` is `s AND rest` and `TEST_OR` likewise: the link's left operand
    /// is the site, its right operand the code up to the jump's target.
    private mutating func fusedLink(at pc: Int, end: Int) -> (PlanNode, Int)? {
        guard pc < end, let index = code[pc].comparisonSite, let offset = code[pc].jumpOffset,
            let site = rowSite(index)
        else { return nil }
        let isAnd = code[pc].opcode == .testAnd
        let target = pc + 1 + Int(offset)
        guard target > pc + 1, target <= end, let range = sourceRange(pc),
            let fallback = region(code: [.test(UInt16(index))], ranges: [range]),
            let left = leaf(site, fallback: fallback, at: pc), let right = node((pc + 1)..<target)
        else { return nil }
        return (isAnd ? .and(left, right) : .or(left, right), target - pc)
    }

    /// Site `index` when it compares a key path of this plan's rows.
    private func rowSite(_ index: Int) -> (site: ComparisonSite, path: [KeyComponent], constant: Value)? {
        guard index < program.comparisons.count else { return nil }
        let site = program.comparisons[index]
        switch (rows, site.receiver) {
        case (.evaluatedObject, .evaluatedObject): break
        case (.variable(let slot), .variable(let receiver)) where slot == receiver: break
        case (.evaluatedObject, .variable), (.variable, .evaluatedObject), (.variable, .variable): return nil
        }
        guard let path = keyPath(site.keyPath), let constant = constant(site.constant) else { return nil }
        return (site, path, constant)
    }

    private mutating func leaf(
        _ row: (site: ComparisonSite, path: [KeyComponent], constant: Value), fallback: ScalarRegion, at pc: Int
    ) -> PlanNode? {
        comparisonLeaf(
            path: row.path, op: row.site.op, options: row.site.options, quantifier: row.site.quantifier,
            constant: row.constant, constantOnLeft: false, site: sourceRange(pc), fallback: fallback)
    }

    private mutating func comparisonLeaf(
        path: [KeyComponent], op: ComparisonOperator, options: ComparisonOptions, quantifier: Quantifier,
        constant: Value, constantOnLeft: Bool, site: SourceRange?, fallback: ScalarRegion
    ) -> PlanNode {
        // The operator as `row op' constant`, when it can be mirrored.
        let rowOp: ComparisonOperator? = constantOnLeft ? op.mirrored : op
        let direct = quantifier == .direct
        comparisonCount += 1
        let leaf = ComparisonLeaf(
            id: comparisonCount - 1, column: columnNumber(path), op: op, options: options, quantifier: quantifier,
            constant: constant,
            constantOnLeft: constantOnLeft, site: site, fallback: fallback,
            integers: direct ? rowOp.flatMap { IntegerTest($0, constant) } : nil,
            doubles: direct ? rowOp.flatMap { DoubleTest($0, constant, dates: false) } : nil,
            dates: direct ? rowOp.flatMap { DoubleTest($0, constant, dates: true) } : nil,
            strings: direct && !constantOnLeft
                ? StringTest(op, constant, options: options, environment: environment) : nil,
            nilResult: try? ComparisonOperators.evaluate(
                op, constantOnLeft ? constant : .nil, constantOnLeft ? .nil : constant, quantifier: quantifier,
                options: options, environment: environment),
            nilTest: direct ? NilTest(op, constant, constantOnLeft: constantOnLeft) : nil)
        return .compare(leaf)
    }

    /// `SELF_KEYPATH p; SUBQUERY_BEGIN v; SUBQUERY_NEXT; inner; SUBQUERY_COLLECT; KEYPATH @count;
    /// PUSH_CONST k; CMP op`, for rows that are the evaluated object.
    private mutating func subquery(at pc: Int, end: Int) -> (PlanNode, Int)? {
        guard case .evaluatedObject = rows, let (path, _) = rowKeyPath(at: pc, end: end), pc + 2 < end,
            case .subqueryBegin(let exit, let variable) = code[pc + 1], case .subqueryNext(let next) = code[pc + 2]
        else { return nil }
        let after = pc + 2 + Int(exit)
        let collect = after - 1
        guard pc + 2 + 1 + Int(next) == after, collect > pc + 3, after + 2 < end,
            case .subqueryCollect(let back) = code[collect], collect + 1 + Int(back) == pc + 2,
            case .loadKeyPath(let countPath) = code[after], keyPath(countPath) == [.key("@count")],
            let comparand = countComparand(code[after + 1], collection: path),
            case .compare(let op, let options, .direct) = code[after + 2],
            Int(variable) < program.variables.count
        else { return nil }
        let length = after + 3 - pc
        guard let fallback = region(pc..<(pc + length)) else { return nil }
        var inner = Planner(
            program: program, environment: environment, rows: .variable(UInt16(variable)), variables: variables,
            callerBinds: callerBinds)
        guard let innerRoot = inner.node((pc + 3)..<collect) else { return nil }
        readsVariables = readsVariables || inner.readsVariables
        let leaf = SubqueryLeaf(
            id: subqueryCount, collection: columnNumber(path), variable: program.variables[Int(variable)],
            // Per element: the body, the `SUBQUERY_NEXT` and `SUBQUERY_COLLECT` around it, and at
            // most two steps of the exit's `@count` for an element collected (the rest of the loop
            // is charged once, with the row).
            inner: inner.finish(innerRoot, rowCost: steps(code[(pc + 3)..<collect]) + 4), op: op,
            options: options, comparand: comparand, site: sourceRange(after + 2),
            fallback: fallback)
        subqueryCount += 1
        return (.subquery(leaf), length)
    }

    /// `PUSH_CONST k`, or `SELF_KEYPATH` of the collection's own `@count`.
    private func countComparand(_ instruction: Instruction, collection: [KeyComponent]) -> SubqueryLeaf.Comparand? {
        if case .pushConstant(let index) = instruction { return constant(index).map(SubqueryLeaf.Comparand.constant) }
        guard case .loadSelfKeyPath(let index) = instruction, Int(index) < program.keyPaths.count else { return nil }
        let keys = program.keyPaths[Int(index)].map(\.key)
        return keys == collection.map(\.key) + ["@count"] ? .collectionCount : nil
    }

    private func sourceRange(_ pc: Int) -> SourceRange? {
        pc < program.sourceRanges.count ? program.sourceRanges[pc] : nil
    }

    /// `range` as a program of its own, ending with `RETURN_BOOL`; `nil` if it does not verify.
    private mutating func region(_ range: Range<Int>) -> ScalarRegion? {
        guard !range.isEmpty, range.upperBound <= code.count, range.upperBound <= program.sourceRanges.count else {
            return nil
        }
        return region(code: Array(code[range]), ranges: Array(program.sourceRanges[range]))
    }

    /// `code`, which leaves one Boolean, as a program of its own; `nil` if it does not verify.
    private mutating func region(code body: [Instruction], ranges bodyRanges: [SourceRange]) -> ScalarRegion? {
        guard let last = bodyRanges.last else { return nil }
        let slice = body + [.returnBool]
        let ranges = bodyRanges + [last]
        let candidate = Program(
            kind: .predicate, code: slice, constants: program.constants, keyPaths: program.keyPaths,
            comparisons: program.comparisons, variables: program.variables, sourceRanges: ranges,
            maximumStackDepth: min(program.maximumStackDepth, slice.count),
            maximumSubqueryDepth: min(program.maximumSubqueryDepth, slice.count), source: program.source)
        do {
            try Verifier.verify(candidate)
        } catch {
            return nil
        }
        regionCount += 1
        return ScalarRegion(id: regionCount - 1, program: candidate)
    }
}
