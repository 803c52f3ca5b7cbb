import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// What a row stands for when a clause falls back to the scalar VM.
struct RowBinding: Sendable {
    /// What `SELF` is for a row.
    enum EvaluatedObject: Sendable {
        /// The row itself.
        case row
        /// The same object for every row (the object a `SUBQUERY` runs in).
        case fixed(Value)
        /// An activation context whose selection is the row alone: `{key: [row]}`.
        case selectionOfRow(contextKey: String)
    }

    let evaluatedObject: EvaluatedObject
    /// The variable the row is the value of (a `SUBQUERY` element), if any.
    let variable: String?
    /// The other variables.
    let variables: [String: Value]

    /// `SELF` for a row whose item is `row`.
    func evaluatedObject(for row: Value) -> Value {
        switch evaluatedObject {
        case .row: return row
        case .fixed(let object): return object
        case .selectionOfRow(let key): return .dictionary([key: .array([row.asCollectionElement])])
        }
    }

    /// The variables for a row whose item is `row`.
    func variables(for row: Value) -> [String: Value] {
        guard let variable else { return variables }
        var variables = variables
        variables[variable] = row
        return variables
    }

    /// Whether leaves that read `SELF`'s key paths cannot use the batch's columns (which hold the
    /// items, not the contexts made of them).
    var selfIsNotTheRow: Bool {
        if case .selectionOfRow = evaluatedObject, variable == nil { return true }
        return false
    }
}

/// Evaluates a plan over a range of rows, chunk by chunk, on one thread: the scratch space a
/// thread needs (selection buffers, failed-row flags, scalar machines), reused across chunks.
final class BatchWorker {
    static let chunkSize = 2048

    private let plan: Plan
    private let columns: [Column]
    private let batch: ColumnBatch
    private let binding: RowBinding
    private let environment: EvaluationEnvironment
    private let threads: Int
    private var pool = SelectionPool(capacity: BatchWorker.chunkSize)
    private var masks = MaskPool()
    /// The plan with its kernel-only subtrees as masks, for this batch's columns.
    private let root: ExecutionNode
    /// Rows in the current chunk.
    private var chunkCount = 0
    private var machines: [VirtualMachine?]
    /// Answers remembered per distinct string, by comparison leaf (see `memoized`).
    private var memos: [Int: [String: Bool]] = [:]
    /// By comparison leaf over a coded string column: what each code decides (nil rows at 0).
    private var codedTables: [Int: CodeDecisions] = [:]
    /// By quantified comparison leaf over a string-list column: what a nil row decides (its
    /// only code, 0) and what each element's code decides.
    private var listTables: [Int: (nilRow: CodeDecisions, elements: CodeDecisions)] = [:]
    /// For `SUBQUERY` over each row alone: a worker for the inner plan, by leaf.
    private var innerWorkers: [Int: BatchWorker] = [:]
    /// Per row of the current chunk: 1 once it failed, 2 once it is a suspect (either way it
    /// then leaves every selection).
    private let failed: UnsafeMutablePointer<UInt8>
    /// Per row of the current chunk: the steps charged to it (see ``RowBudget``).
    private let cost: UnsafeMutablePointer<Int>
    private var chunkStart = 0
    /// Failures, in the order found (ascending within a chunk's clause; sorted at the end).
    /// A worker belongs to one thread and no access to this array overlaps another, so the
    /// run-time exclusivity check (two calls into the runtime for every failing row) is left out.
    @exclusivity(unchecked) private(set) var errors = BatchResult.RowErrors()
    private let budget: RowBudget
    /// `budget.sharedSteps` and the evaluation's step limit, read per row without copying the
    /// budget (whose program would be retained and released on every read).
    private let sharedSteps: Int
    private let maximumSteps: Int
    /// Suspect rows of the current chunk, in the order found.
    private var chunkSuspects: [Int] = []
    /// Suspect rows the caller evaluates again (``RowBudget/report``, ``RowBudget/shared(_:)``).
    private(set) var suspects: [Int] = []
    /// The steps charged to every row so far.
    private(set) var totalCost = 0
    /// Whether a shared budget is spent: every loop then stops.
    private(set) var exhausted = false
    /// The whole program on the scalar VM, for suspects under ``RowBudget/rerun(_:)``.
    private var wholeMachine: VirtualMachine?

    init(
        plan: Plan, columns: [Column], batch: ColumnBatch, binding: RowBinding, environment: EvaluationEnvironment,
        threads: Int, budget: RowBudget
    ) {
        self.budget = budget
        sharedSteps = budget.sharedSteps
        maximumSteps = environment.limits.maximumSteps
        self.plan = plan
        self.columns = columns
        self.batch = batch
        self.binding = binding
        self.environment = environment
        self.threads = threads
        machines = Array(repeating: nil, count: plan.regionCount)
        root = ExecutionNode(plan.root, columns: columns, masks: !binding.selfIsNotTheRow, environment: environment)
        failed = .allocate(capacity: BatchWorker.chunkSize)
        cost = .allocate(capacity: BatchWorker.chunkSize)
    }

    deinit {
        pool.deallocate()
        masks.deallocate()
        failed.deallocate()
        cost.deallocate()
    }

    /// Evaluates rows `range` (whose start is a multiple of 64) and sets their bits in `words`.
    func run(_ range: Range<Int>, into words: UnsafeMutablePointer<UInt64>) {
        var start = range.lowerBound
        while start < range.upperBound && !exhausted {
            let count = min(BatchWorker.chunkSize, range.upperBound - start)
            chunkStart = start
            chunkCount = count
            // Kernels are charged nothing more: a row's instructions outside loops are at most the
            // plan's, charged here up front.
            totalCost = totalCost.saturatingAdd(plan.rowCost.multipliedReportingOverflow(by: count).partialValue)
            if totalCost > sharedSteps { exhausted = true }
            if case .mask(let node) = root, plan.rowCost <= environment.limits.maximumSteps {
                let mask = masks.take()
                node.fill(mask, start: start, count: count, pool: &masks)
                MaskNode.pack(mask, start: start, count: count, into: words)
                masks.give(mask)
                start += count
                continue
            }
            failed.initialize(repeating: 0, count: count)
            cost.initialize(repeating: plan.rowCost, count: count)
            chunkSuspects.removeAll(keepingCapacity: true)
            if plan.rowCost > environment.limits.maximumSteps {
                for row in start..<(start + count) { suspect(row) }
            }
            if listRootMask(start: start, count: count, into: words) {
                start += count
                continue
            }
            let others = mixedRootTypedRows(start: start, count: count, into: words)
            let result = evaluate(root, others ?? Selection(rows: nil, start: start, count: count))
            if let matched = result.rows {
                for index in 0..<result.count {
                    let row = Int(matched[index])
                    words[row >> 6] |= 1 << UInt64(row & 63)
                }
            }
            pool.give(result)
            if let others { pool.give(others) }
            settleSuspects(into: words)
            start += count
        }
    }

    /// For a root that is one comparison with an integer over a column of mixed scalars
    /// (`userInfo.rank >= 3`): the chunk's nil and integer rows, which can neither fail nor be
    /// charged a step, answered straight into `words` (one loop with no branch on a row's
    /// kind); returned, the rows of the other kinds (strings, doubles, anything else),
    /// which the list kernel answers with their errors and charges. `nil` when the root is
    /// something else.
    private func mixedRootTypedRows(start: Int, count: Int, into words: UnsafeMutablePointer<UInt64>) -> Selection? {
        // Rows over the step budget are suspects, whose answers are the VM's alone.
        guard plan.rowCost <= environment.limits.maximumSteps, case .compare(let leaf) = root,
            !binding.selfIsNotTheRow, leaf.quantifier == .direct,
            case .mixed(let mixed, _) = columns[leaf.column], let integers = leaf.integers,
            EvaluationCost.size(leaf.constant) == 1, let nilResult = leaf.nilResult,
            mixed.tags.count >= start + count, mixed.payloads.count >= start + count
        else { return nil }
        let lower = integers.lower
        let span = UInt64(bitPattern: integers.upper &- lower)
        let whenInRange: UInt8 = !integers.isEmpty != integers.negated ? 1 : 0
        let whenOutOfRange: UInt8 = integers.negated ? 1 : 0
        let nilAnswer: UInt8 = nilResult ? 1 : 0
        // The answer by kind and range, `answers[tag << 1 | inRange]`: a nil row's whatever its
        // payload, an integer's by its range, any other kind 0 (the mixed kernel answers it).
        // A table in memory, not a select: the optimiser turns a select into a branch on the
        // row's range, which the data's order defeats.
        let answers: (UInt64, UInt64) = (
            UInt64(nilAnswer) | UInt64(nilAnswer) << 8 | UInt64(whenOutOfRange) << 16 | UInt64(whenInRange) << 24, 0
        )
        let integerTag = MixedScalars.Tag.integer.rawValue
        let others = pool.take()
        var otherCount = 0
        mixed.tags.withUnsafeBufferPointer { tags in
            mixed.payloads.withUnsafeBufferPointer { payloads in
                // Two loops: the first has no branch and no store that depends on a row's kind
                // (whose pattern is the data's); the second skips eight typed rows at a time.
                let tags = UnsafeBufferPointer(rebasing: tags[start..<(start + count)])
                let payloads = UnsafeBufferPointer(rebasing: payloads[start..<(start + count)])
                var index = 0
                withUnsafeBytes(of: answers) { answers in
                    // Each word's bits gathered in a register, then stored once.
                    while index < count {
                        let wordEnd = min(count, index + 64 - ((start + index) & 63))
                        var bits: UInt64 = 0
                        while index < wordEnd {
                            let beyond = span.subtractingReportingOverflow(UInt64(bitPattern: payloads[index] &- lower))
                            let inRange = Int(unsafeBitCast(beyond.overflow, to: UInt8.self) ^ 1)
                            let answer = UInt64(answers[(Int(tags[index] & 7) &<< 1) | inRange])
                            bits |= answer &<< UInt64(truncatingIfNeeded: start &+ index)
                            index &+= 1
                        }
                        words[(start + index - 1) >> 6] |= bits
                    }
                }
                guard let base = tags.baseAddress else { return }
                let raw = UnsafeRawPointer(base)
                index = 0
                while index < count {
                    // No tag above 1 among the next eight: 0xFE in no byte.
                    if index + 8 <= count,
                        raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0xFEFE_FEFE_FEFE_FEFE == 0
                    {
                        index &+= 8
                        continue
                    }
                    others[otherCount] = Int32(truncatingIfNeeded: start &+ index)
                    otherCount &+= tags[index] > integerTag ? 1 : 0
                    index &+= 1
                }
            }
        }
        return Selection(rows: others, start: 0, count: otherCount)
    }

    /// For a root that is `ANY`/`ALL` of a column of string lists against a constant, where the
    /// nil row and every distinct element have an answer that cannot fail and spends no matching
    /// step (`ANY userInfo.tags IN {'red', 'green'}`): the chunk answered as a byte mask packed
    /// into `words`, each row charged what the list kernel charges it (elements times the
    /// constant's size). `false`, with nothing done, when the root is something else, the rows
    /// share a budget, or a row's charge could pass its step budget (the list kernel then makes
    /// it a suspect).
    private func listRootMask(start: Int, count: Int, into words: UnsafeMutablePointer<UInt64>) -> Bool {
        guard sharedSteps == .max, case .compare(let leaf) = root, !binding.selfIsNotTheRow,
            leaf.quantifier != .direct, !leaf.constantOnLeft,
            case .stringLists(let lists, let nils) = columns[leaf.column],
            nils.count >= start + count, lists.offsets.count > start + count
        else { return false }
        let (nilRow, decisions) = listDecisions(leaf, lists)
        guard !decisions.charges, let nilAnswer = nilRow.answers.first, nilAnswer <= CodeDecisions.isTrue,
            let nilSteps = nilRow.steps.first, decisions.answers.allSatisfy({ $0 <= CodeDecisions.isTrue })
        else { return false }
        // The answer that decides the quantifier: a true element for ANY, a false one for ALL.
        let decisive = leaf.quantifier == .any ? CodeDecisions.isTrue : CodeDecisions.isFalse
        let constantSize = EvaluationCost.size(leaf.constant)
        let mask = masks.take()
        // Charges summed once for the chunk: nil rows, and the elements of the others (at least
        // one each), times the constant's size.
        var nilRows = 0
        var charged = 0
        var longest = 1
        lists.offsets.withUnsafeBufferPointer { offsets in
            lists.elements.withUnsafeBufferPointer { elements in
                decisions.answers.withUnsafeBufferPointer { answers in
                    nils.withUnsafeBufferPointer { nils in
                        // A row's first two elements are read whether or not it has them (at
                        // an index clamped to the column) and counted only when it does: lists
                        // are short, and a loop that stops at the first decisive element
                        // mispredicts its exit about once a row. Longer lists loop on from
                        // the third. A `…Hit` is 1 for an element whose answer is decisive.
                        let flip = decisive ^ 1
                        let lastElement = elements.count &- 1
                        for index in 0..<count {
                            let row = start &+ index
                            let first = Int(offsets[row])
                            let end = Int(offsets[row &+ 1])
                            let length = end &- first
                            var hits: UInt8 = 0
                            if lastElement >= 0 {
                                let firstHit = answers[Int(elements[min(first, lastElement)])] ^ flip
                                let secondHit = answers[Int(elements[min(first &+ 1, lastElement)])] ^ flip
                                let hasFirst = UInt8(truncatingIfNeeded: (0 &- length) &>> 63) & 1
                                let hasSecond = UInt8(truncatingIfNeeded: (1 &- length) &>> 63) & 1
                                hits = (firstHit & hasFirst) | (secondHit & hasSecond)
                            }
                            if length > 2 && hits == 0 {
                                var element = first &+ 2
                                while element < end {
                                    if answers[Int(elements[element])] == decisive {
                                        hits = 1
                                        break
                                    }
                                    element &+= 1
                                }
                            }
                            let answer = hits ^ flip
                            let isNil = Int(nils[row] & 1)
                            // `nilAnswer` when the row is nil, else `answer`, without a branch.
                            mask[index] = answer ^ ((answer ^ nilAnswer) & (0 &- UInt8(truncatingIfNeeded: isNil)))
                            let charge = max(1, length)
                            nilRows &+= isNil
                            charged &+= charge & (isNil &- 1)
                            longest = max(longest, charge)
                        }
                    }
                }
            }
        }
        let elementsCharge = charged.multipliedReportingOverflow(by: constantSize)
        let nilCharge = nilRows.multipliedReportingOverflow(by: nilSteps)
        let largest = longest.multipliedReportingOverflow(by: constantSize)
        guard !elementsCharge.overflow, !nilCharge.overflow, !largest.overflow,
            plan.rowCost.saturatingAdd(max(largest.partialValue, nilRows > 0 ? nilSteps : 0)) <= maximumSteps
        else {
            masks.give(mask)
            return false
        }
        totalCost = totalCost.saturatingAdd(elementsCharge.partialValue).saturatingAdd(nilCharge.partialValue)
        MaskNode.pack(mask, start: start, count: count, into: words)
        masks.give(mask)
        return true
    }

    /// The current chunk's suspects: evaluated again on the scalar VM, whose answer stands, or
    /// handed to the caller.
    private func settleSuspects(into words: UnsafeMutablePointer<UInt64>) {
        guard case .rerun(let program) = budget else {
            suspects += chunkSuspects
            return
        }
        guard !chunkSuspects.isEmpty else { return }
        var machine = wholeMachine ?? VirtualMachine(program: program, environment: environment)
        wholeMachine = nil
        defer { wholeMachine = machine }
        for row in chunkSuspects.sorted() {
            let item = batch.row(row)
            do {
                if try machine.evaluate(on: binding.evaluatedObject(for: item), variables: binding.variables(for: item))
                {
                    words[row >> 6] |= 1 << UInt64(row & 63)
                }
            } catch {
                errors.append(row: row, error: error)
            }
        }
    }

    /// Marks `row` as a suspect: it leaves every selection, and its answer is the VM's.
    private func suspect(_ row: Int) {
        guard failed[row - chunkStart] != 2 else { return }
        if failed[row - chunkStart] == 1 { errors.removeLast(of: row) }
        failed[row - chunkStart] = 2
        chunkSuspects.append(row)
    }

    /// Charges `steps` to `row`; a row past the evaluation's budget is a suspect.
    private func charge(_ row: Int, _ steps: Int) {
        let index = row - chunkStart
        cost[index] = cost[index].saturatingAdd(steps)
        totalCost = totalCost.saturatingAdd(steps)
        if totalCost > sharedSteps { exhausted = true }
        if cost[index] > maximumSteps { suspect(row) }
    }

    /// What is left of `row`'s budget.
    private func remaining(_ row: Int) -> Int {
        let own = maximumSteps - cost[row - chunkStart]
        let shared = sharedSteps == .max ? Int.max : sharedSteps - totalCost
        return max(0, min(own, shared))
    }

    // MARK: - Nodes

    private func evaluate(_ node: ExecutionNode, _ input: Selection) -> Selection {
        switch node {
        case .mask(let node):
            let mask = masks.take()
            defer { masks.give(mask) }
            node.fill(mask, start: chunkStart, count: chunkCount, pool: &masks)
            let output = pool.take()
            let chunkStart = self.chunkStart
            let count = input.filter(into: output) { mask[$0 - chunkStart] != 0 }
            return Selection(rows: output, start: 0, count: count)
        case .constant(let flag):
            let output = pool.take()
            let count = input.filter(into: output) { _ in flag }
            return Selection(rows: output, start: 0, count: count)
        case .and(let left, let right):
            let kept = evaluate(left, input)
            let result = evaluate(right, kept)
            pool.give(kept)
            return result
        case .or(let left, let right):
            let accepted = evaluate(left, input)
            let rest = remove(accepted, from: input)
            let alsoAccepted = evaluate(right, rest)
            pool.give(rest)
            let result = union(accepted, alsoAccepted)
            pool.give(accepted)
            pool.give(alsoAccepted)
            return result
        case .not(let operand):
            let accepted = evaluate(operand, input)
            let result = remove(accepted, from: input)
            pool.give(accepted)
            return result
        case .compare(let leaf):
            return compare(leaf, input)
        case .subquery(let leaf):
            return subquery(leaf, input)
        case .scalar(let region):
            return scalar(region, input)
        }
    }

    /// The rows of `input` not in `accepted` (a subset of it) that have not failed.
    private func remove(_ accepted: Selection, from input: Selection) -> Selection {
        let output = pool.take()
        let acceptedRows = accepted.rows
        var next = 0
        let failed = self.failed
        let chunkStart = self.chunkStart
        let count = input.filter(into: output) { row in
            if next < accepted.count, let acceptedRows, Int(acceptedRows[next]) == row {
                next += 1
                return false
            }
            return failed[row - chunkStart] == 0
        }
        return Selection(rows: output, start: 0, count: count)
    }

    /// Two disjoint ascending selections merged.
    private func union(_ a: Selection, _ b: Selection) -> Selection {
        let output = pool.take()
        var i = 0
        var j = 0
        var k = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a.row(i) < b.row(j)) {
                output[k] = Int32(truncatingIfNeeded: a.row(i))
                i += 1
            } else {
                output[k] = Int32(truncatingIfNeeded: b.row(j))
                j += 1
            }
            k += 1
        }
        return Selection(rows: output, start: 0, count: k)
    }

    /// Records that `row` failed with `error` (see ``admitsFailure(_:_:)``).
    private func fail(_ row: Int, _ error: consuming EvaluationError) {
        guard admitsFailure(row, error.kind) else { return }
        errors.append(row: row, error: error)
    }

    /// ``fail(_:_:)`` with `table[position]`, a kernel's error for one distinct value: each
    /// entry of the table is kept once, however many rows fail with it.
    private func fail(_ row: Int, errorAt position: Int, of table: [EvaluationError]) {
        guard admitsFailure(row, table[position].kind) else { return }
        errors.append(row: row, errorAt: position, of: table)
    }

    /// Whether a failure of `kind` is recorded for `row`, which it then marks as failed: not
    /// when the row failed already, nor for a budget error, which names what ran out in this
    /// engine's terms and makes the row a suspect instead (the VM's own answer stands).
    @inline(__always)
    private func admitsFailure(_ row: Int, _ kind: EvaluationError.Kind) -> Bool {
        if kind == .limitExceeded {
            suspect(row)
            return false
        }
        guard failed[row - chunkStart] == 0 else { return false }
        failed[row - chunkStart] = 1
        return true
    }

    // MARK: - Comparisons

    /// A comparison that is not part of a mask (see ``MaskNode``): strings, mixed columns,
    /// quantifiers, operators without a kernel, columns that could not be read.
    private func compare(_ leaf: ComparisonLeaf, _ input: Selection) -> Selection {
        let output = pool.take()
        let count: Int
        if binding.selfIsNotTheRow {
            return Selection(rows: output, start: 0, count: runScalar(leaf.fallback, input, output))
        }
        switch columns[leaf.column] {
        case .strings(let values, let nils) where leaf.strings != nil && leaf.nilResult != nil:
            guard let test = leaf.strings, let nilResult = leaf.nilResult else {
                return Selection(rows: output, start: 0, count: 0)
            }
            count = values.withUnsafeBufferPointer { values in
                nils.withUnsafeBufferPointer { nils in
                    stringKernel(ColumnStringRows(values: values, nils: nils), test, nilResult, input, output)
                }
            }
        case .borrowedStrings(let borrowed) where leaf.strings != nil && leaf.nilResult != nil:
            guard let test = leaf.strings, let nilResult = leaf.nilResult else {
                return Selection(rows: output, start: 0, count: 0)
            }
            count = borrowed.rows.withBase { base, stride in
                stringKernel(
                    InPlaceStringRows(base: base, stride: stride, stored: borrowed.stored), test, nilResult, input,
                    output)
            }
        case .codedStrings(let codes, let distinct, _):
            count = codedKernel(leaf, codes, distinct, input, output)
        case .stringLists(let lists, let nils) where leaf.quantifier != .direct && !leaf.constantOnLeft:
            count = listKernel(leaf, lists, nils, input, output)
        case .mixed(let mixed, _):
            count = mixedKernel(leaf, mixed, input, output)
        case .values(let values, _) where leaf.integers != nil || leaf.doubles != nil:
            count = mixedNumbers(leaf, values, input, output)
        case .unavailable:
            count = runScalar(leaf.fallback, input, output)
        default:
            count = generic(leaf, input, output)
        }
        return Selection(rows: output, start: 0, count: count)
    }

    /// A prepared string test over each row's string, read from `strings` (a column, or the
    /// items themselves), without copying it.
    private func stringKernel<Strings: StringRows>(
        _ strings: Strings, _ test: StringTest, _ nilResult: Bool, _ input: Selection,
        _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        warm(strings, input)
        // The matcher is bound once for the chunk: bound for each row, it was copied out of the
        // test (its arrays retained and released) every time.
        switch test {
        case .equal(let matcher, let negated):
            return input.filter(into: output) { row in
                strings.withString(row, whenNil: { nilResult }) { matcher.equals($0) != negated }
            }
        case .prefix(let matcher):
            return input.filter(into: output) { row in
                strings.withString(row, whenNil: { nilResult }) { matcher.isPrefix(of: $0) }
            }
        case .suffix(let matcher):
            return input.filter(into: output) { row in
                strings.withString(row, whenNil: { nilResult }) { matcher.isSuffix(of: $0) }
            }
        case .contains(let matcher):
            return input.filter(into: output) { row in
                strings.withString(row, whenNil: { nilResult }) { matcher.isContained(in: $0) }
            }
        case .like(let pattern):
            return patternKernel(strings, nilResult, input, output) { pattern.matches($0, budget: &$1) }
        case .matches(let pattern):
            return patternKernel(strings, nilResult, input, output) { pattern.matches($0, budget: &$1) }
        }
    }

    /// Asks for each selected row's string before a kernel reads the strings.
    ///
    /// A string longer than 15 bytes lives in its own allocation, one cache miss a row when the
    /// rows are many. A kernel's work per row is long enough that the processor waits for each
    /// miss in turn; this loop is short and its prefetches wait for nothing, so it has many rows'
    /// misses in flight at once, and the kernel then finds the strings in cache (the chunk's
    /// strings fit). Over a million file names, `LIKE[c] 'img_*'` went from 104 to 73 ns a row
    /// with the first byte of each string read ahead, and with prefetches instead of reads the
    /// string rules take 15–25% less again; it costs nothing when the strings are cached.
    @inline(__always)
    private func warm<Strings: StringRows>(_ strings: Strings, _ input: Selection) {
        for index in 0..<input.count { strings.prefetch(input.row(index)) }
    }

    /// ``stringKernel(_:_:_:_:_:)`` for a pattern, `matches` answering a row's string within a
    /// budget of matching steps.
    @inline(__always)
    private func patternKernel<Strings: StringRows>(
        _ strings: Strings, _ nilResult: Bool, _ input: Selection, _ output: UnsafeMutablePointer<Int32>,
        _ matches: (String, inout Int) -> Bool?
    ) -> Int {
        // Patterns spend matching steps, bounded as the VM bounds them: by the per-match limit and
        // what is left of the row's budget; a match stopped there is the VM's to report.
        let limit = environment.limits.maximumPatternSteps
        var kept = 0
        for index in 0..<input.count where !exhausted {
            let row = input.row(index)
            let allowed = min(limit, remaining(row))
            var left = allowed
            // nil: the row's answer is the nil answer, with nothing spent.
            let matched: Bool?? = strings.withString(row, whenNil: { nil }, { text in .some(matches(text, &left)) })
            guard let matched else {
                output[kept] = Int32(truncatingIfNeeded: row)
                kept &+= nilResult ? 1 : 0
                continue
            }
            guard let holds = matched else {
                suspect(row)
                continue
            }
            charge(row, allowed - max(0, left))
            guard failed[row - chunkStart] == 0 else { continue }
            output[kept] = Int32(truncatingIfNeeded: row)
            kept &+= holds ? 1 : 0
        }
        return kept
    }

    /// A comparison over a coded string column: each distinct value decided once (the first time
    /// this worker meets the leaf), each row then one look-up of its code.
    private func codedKernel(
        _ leaf: ComparisonLeaf, _ codes: [Int32], _ distinct: [String], _ input: Selection,
        _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        let decisions = codedTables[leaf.id] ?? CodeDecisions(leaf.codedOutcomes(distinct, environment: environment))
        codedTables[leaf.id] = decisions
        var kept = 0
        codes.withUnsafeBufferPointer { codes in
            decisions.answers.withUnsafeBufferPointer { answers in
                decisions.steps.withUnsafeBufferPointer { steps in
                    for index in 0..<input.count where !exhausted {
                        let row = input.row(index)
                        let code = Int(codes[row]) &+ 1
                        if decisions.charges && steps[code] > 0 {
                            let allowed = remaining(row)
                            charge(row, steps[code])
                            if steps[code] > allowed { suspect(row) }
                        }
                        kept &+= decide(answers[code], code, decisions, row: row, output + kept)
                    }
                }
            }
        }
        return kept
    }

    /// A comparison over a column of mixed scalars: integer and double rows take the kernels'
    /// tests in place, nil rows the nil answer, strings their code's decision (each distinct
    /// string decided once), anything else the general semantics (and its errors).
    private func mixedKernel(
        _ leaf: ComparisonLeaf, _ mixed: MixedScalars, _ input: Selection, _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        let decisions =
            codedTables[leaf.id] ?? CodeDecisions(leaf.codedOutcomes(mixed.strings, environment: environment))
        codedTables[leaf.id] = decisions
        let direct = leaf.quantifier == .direct
        // The integer test as the interval test of the masks, its parts in locals.
        let integers = direct ? leaf.integers : nil
        let lower = integers?.lower ?? 0
        let span = UInt64(bitPattern: (integers?.upper ?? 0) &- lower)
        let integersHold = integers.map { !$0.isEmpty } ?? false
        let integersNegated = integers?.negated ?? false
        let doubles = direct ? leaf.doubles : nil
        // A nil row answered without a charge only where the comparison costs the one step the
        // row was charged for it (a constant that is not a collection).
        let nilResult = direct && EvaluationCost.size(leaf.constant) == 1 ? leaf.nilResult : nil
        let fastNumbers = integers != nil && nilResult != nil
        let nilHolds = nilResult == true
        let integerTag = MixedScalars.Tag.integer.rawValue
        let doubleTag = MixedScalars.Tag.double.rawValue
        let absentTag = MixedScalars.Tag.absent.rawValue
        let stringTag = MixedScalars.Tag.string.rawValue
        var kept = 0
        mixed.tags.withUnsafeBufferPointer { tags in
            mixed.payloads.withUnsafeBufferPointer { payloads in
                var index = 0
                while index < input.count && !exhausted {
                    if fastNumbers {
                        // Nil or an integer, the common rows, in a run with nothing that can
                        // fail or charge (so `exhausted` cannot change within it): both answers
                        // computed, one chosen, so the branch taken depends on no row's kind.
                        while index < input.count {
                            let row = input.row(index)
                            let tag = tags[row]
                            guard tag <= integerTag else { break }
                            let integerHolds =
                                ((UInt64(bitPattern: payloads[row] &- lower) <= span) && integersHold)
                                != integersNegated
                            output[kept] = Int32(truncatingIfNeeded: row)
                            kept &+= (tag == integerTag ? integerHolds : nilHolds) ? 1 : 0
                            index &+= 1
                        }
                        guard index < input.count else { break }
                    }
                    let row = input.row(index)
                    index &+= 1
                    let payload = payloads[row]
                    let tag = tags[row]
                    let holds: Bool
                    if tag == integerTag && integers != nil {
                        holds = ((UInt64(bitPattern: payload &- lower) <= span) && integersHold) != integersNegated
                    } else if tag == doubleTag, let doubles {
                        holds = doubles.holds(Double(bitPattern: UInt64(bitPattern: payload)))
                    } else if tag == absentTag, let nilResult {
                        holds = nilResult
                    } else if tag == stringTag {
                        let code = Int(payload) &+ 1
                        let steps = decisions.steps[code]
                        if steps > 0 {
                            let allowed = remaining(row)
                            charge(row, steps)
                            if steps > allowed { suspect(row) }
                        }
                        kept &+= decide(decisions.answers[code], code, decisions, row: row, output + kept)
                        continue
                    } else {
                        guard let result = evaluateGeneric(leaf, mixed.value(at: row), row: row) else { continue }
                        holds = result
                    }
                    output[kept] = Int32(truncatingIfNeeded: row)
                    kept &+= holds ? 1 : 0
                }
            }
        }
        return kept
    }

    /// Writes `row` to `output` and returns 1 if `answer` (a ``CodeDecisions`` answer of `code`)
    /// is true and the row has not failed; records the failure of one that fails or ran out.
    @inline(__always)
    private func decide(
        _ answer: UInt8, _ code: Int, _ decisions: CodeDecisions, row: Int, _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        switch answer {
        case CodeDecisions.isFalse, CodeDecisions.isTrue:
            guard failed[row - chunkStart] == 0 else { return 0 }
            output.pointee = Int32(truncatingIfNeeded: row)
            return Int(answer)
        case CodeDecisions.fails:
            let index = Int(decisions.errorIndex[code])
            if index >= 0 && index < decisions.errorList.count { fail(row, errorAt: index, of: decisions.errorList) }
            return 0
        default:
            suspect(row)
            return 0
        }
    }

    /// The answers of `leaf` for a nil row and for each distinct element of `lists`, decided the
    /// first time this worker meets the leaf.
    private func listDecisions(_ leaf: ComparisonLeaf, _ lists: StringLists) -> (CodeDecisions, CodeDecisions) {
        if let tables = listTables[leaf.id] { return tables }
        let (nilRow, elements) = leaf.listOutcomes(lists.distinct, environment: environment)
        let tables = (CodeDecisions([nilRow]), CodeDecisions(elements))
        listTables[leaf.id] = tables
        return tables
    }

    /// `ANY`/`ALL` over a column of string lists: each distinct element decided once, each row
    /// then its elements' answers looked up in order, stopping where the quantifier is decided
    /// or an element fails, as the general comparison does; charged its cost (elements times
    /// the constant's size) and the steps of the patterns it ran.
    private func listKernel(
        _ leaf: ComparisonLeaf, _ lists: StringLists, _ nils: [UInt8], _ input: Selection,
        _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        let (nilRow, decisions) = listDecisions(leaf, lists)
        // The answer that decides the quantifier: a true element for ANY, a false one for ALL.
        let decisive = leaf.quantifier == .any ? CodeDecisions.isTrue : CodeDecisions.isFalse
        let constantSize = EvaluationCost.size(leaf.constant)
        var kept = 0
        lists.offsets.withUnsafeBufferPointer { offsets in
            lists.elements.withUnsafeBufferPointer { elements in
                decisions.answers.withUnsafeBufferPointer { answers in
                    decisions.steps.withUnsafeBufferPointer { elementSteps in
                        for index in 0..<input.count where !exhausted {
                            let row = input.row(index)
                            guard nils[row] == 0 else {
                                if nilRow.steps[0] > 0 {
                                    let allowed = remaining(row)
                                    charge(row, nilRow.steps[0])
                                    if nilRow.steps[0] > allowed { suspect(row) }
                                }
                                kept &+= decide(nilRow.answers[0], 0, nilRow, row: row, output + kept)
                                continue
                            }
                            let start = Int(offsets[row])
                            let end = Int(offsets[row + 1])
                            let cost = max(1, end - start).multipliedReportingOverflow(by: constantSize)
                            charge(row, cost.overflow ? .max : cost.partialValue)
                            var answer = decisive ^ 1
                            var code = 0
                            var steps = 0
                            for element in start..<end {
                                code = Int(elements[element])
                                if decisions.charges { steps = steps.saturatingAdd(elementSteps[code]) }
                                if answers[code] > CodeDecisions.isTrue || answers[code] == decisive {
                                    answer = answers[code]
                                    break
                                }
                            }
                            if steps > 0 {
                                let allowed = remaining(row)
                                charge(row, steps)
                                if steps > allowed {
                                    suspect(row)
                                    continue
                                }
                            }
                            kept &+= decide(answer, code, decisions, row: row, output + kept)
                        }
                    }
                }
            }
        }
        return kept
    }

    /// `leaf`'s comparison of `value` by the general semantics, its steps charged to `row`;
    /// `nil` when it failed (the failure is recorded).
    private func evaluateGeneric(_ leaf: ComparisonLeaf, _ value: Value, row: Int) -> Bool? {
        let lhs = leaf.constantOnLeft ? leaf.constant : value
        let rhs = leaf.constantOnLeft ? value : leaf.constant
        charge(row, EvaluationCost.comparison(lhs, rhs))
        guard failed[row - chunkStart] == 0 else { return nil }
        let allowed = remaining(row)
        var left = allowed
        do throws(EvaluationError) {
            let holds = try ComparisonOperators.evaluate(
                leaf.op, lhs, rhs, quantifier: leaf.quantifier, options: leaf.options, environment: environment,
                steps: &left)
            charge(row, allowed - max(0, left))
            return failed[row - chunkStart] == 0 ? holds : nil
        } catch {
            fail(row, leaf.site.map(error.at) ?? error)
            return nil
        }
    }

    /// A relational comparison with a number over a column of mixed kinds (`userInfo.rank`
    /// holding integers, doubles and strings): integers and doubles take the kernels' tests in
    /// place, anything else the general semantics (and its errors).
    private func mixedNumbers(
        _ leaf: ComparisonLeaf, _ values: [Value], _ input: Selection, _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        var kept = 0
        values.withUnsafeBufferPointer { values in
            for index in 0..<input.count {
                let row = input.row(index)
                let holds: Bool
                switch values[row] {
                case .int(let integer) where leaf.integers != nil:
                    holds = leaf.integers?.holds(integer) == true
                case .double(let double) where leaf.doubles != nil && !double.isNaN:
                    holds = leaf.doubles?.holds(double) == true
                case .nil where leaf.nilResult != nil:
                    holds = leaf.nilResult == true
                default:
                    guard let result = evaluateGeneric(leaf, values[row], row: row) else { continue }
                    holds = result
                }
                output[kept] = Int32(truncatingIfNeeded: row)
                kept &+= holds ? 1 : 0
            }
        }
        return kept
    }

    /// The general semantics, row by row: for mixed columns, quantifiers and operators without a
    /// kernel.
    private func generic(_ leaf: ComparisonLeaf, _ input: Selection, _ output: UnsafeMutablePointer<Int32>) -> Int {
        let column = columns[leaf.column]
        if case .strings(let values, let nils) = column, leaf.op == .utiConformsTo || leaf.op == .utiEquals {
            return memoized(leaf, values, nils, input, output)
        }
        var kept = 0
        for index in 0..<input.count where !exhausted {
            let row = input.row(index)
            if evaluateGeneric(leaf, column.value(at: row), row: row) == true {
                output[kept] = Int32(truncatingIfNeeded: row)
                kept += 1
            }
        }
        return kept
    }

    /// A type-identifier comparison over a string column: few distinct identifiers, each a walk
    /// of the type table, so each distinct string's answer is remembered for the evaluation.
    /// Only ASCII strings are remembered: `String` keys compare by canonical equivalence, which
    /// for ASCII is byte equality, so no two strings the operator tells apart share an entry.
    private func memoized(
        _ leaf: ComparisonLeaf, _ values: [String], _ nils: [UInt8], _ input: Selection,
        _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        var answers = memos[leaf.id] ?? [:]
        defer { memos[leaf.id] = answers }
        var kept = 0
        for index in 0..<input.count {
            let row = input.row(index)
            let holds: Bool
            let memorable = nils[row] == 0 && values[row].utf8.allSatisfy { $0 < 0x80 }
            if memorable, let known = answers[values[row]] {
                holds = known
            } else {
                let value: Value = nils[row] != 0 ? .nil : .string(values[row])
                do throws(EvaluationError) {
                    holds = try ComparisonOperators.evaluate(
                        leaf.op, leaf.constantOnLeft ? leaf.constant : value,
                        leaf.constantOnLeft ? value : leaf.constant,
                        quantifier: leaf.quantifier, options: leaf.options, environment: environment)
                } catch {
                    fail(row, leaf.site.map(error.at) ?? error)
                    continue
                }
                if memorable { answers[values[row]] = holds }
            }
            output[kept] = Int32(truncatingIfNeeded: row)
            kept &+= holds ? 1 : 0
        }
        return kept
    }

    // MARK: - SUBQUERY

    private func subquery(_ leaf: SubqueryLeaf, _ input: Selection) -> Selection {
        let output = pool.take()
        if case .selectionOfRow(let key) = binding.evaluatedObject, binding.variable == nil {
            let path = plan.columns[leaf.collection]
            let count =
                path.count == 1 && path[0].key == key
                ? subqueryOverRowAlone(leaf, input, output) : runScalar(leaf.fallback, input, output)
            return Selection(rows: output, start: 0, count: count)
        }
        var kept = 0
        let collections = columns[leaf.collection]
        for index in 0..<input.count where !exhausted {
            let row = input.row(index)
            let elements: [Value]
            switch collections.value(at: row) {
            case .array(let values), .set(let values): elements = values
            default:
                // nil, or not a collection: the instructions decide (nil SUBQUERY, or the error).
                kept += runScalar(leaf.fallback, Selection(rows: nil, start: row, count: 1), output + kept)
                continue
            }
            // The elements share what is left of the row's budget, so nested SUBQUERYs stop where
            // the VM would instead of running to the end.
            let inner = BatchEvaluation.run(
                leaf.inner, on: ColumnBatch(rows: elements, keyPaths: leaf.inner.columns, rowsAreElements: true),
                binding: RowBinding(
                    evaluatedObject: .fixed(binding.evaluatedObject(for: batch.row(row))), variable: leaf.variable,
                    variables: binding.variables(for: batch.row(row))),
                environment: environment, threads: 1, budget: .shared(remaining(row)))
            charge(row, inner.cost)
            if inner.exhausted || !inner.suspects.isEmpty { suspect(row) }
            if failed[row - chunkStart] != 0 { continue }
            if let first = inner.errors.first {
                fail(row, first.error)
                continue
            }
            switch leaf.outcome(count: inner.matchCount, of: elements.count, environment: environment) {
            case .success(true):
                output[kept] = Int32(truncatingIfNeeded: row)
                kept += 1
            case .success(false):
                break
            case .failure(let error):
                fail(row, error)
            }
        }
        return Selection(rows: output, start: 0, count: kept)
    }

    /// `SUBQUERY(key, $v, inner).@count op k` where the selection is each row alone: the count
    /// is 1 where the inner predicate holds for the row and 0 where it does not, so the inner plan
    /// runs once over the selected rows' own columns.
    private func subqueryOverRowAlone(
        _ leaf: SubqueryLeaf, _ input: Selection, _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        let inner =
            innerWorkers[leaf.id]
            ?? BatchWorker(
                plan: leaf.inner, columns: leaf.inner.columns.map(batch.column), batch: batch,
                binding: RowBinding(
                    evaluatedObject: binding.evaluatedObject, variable: leaf.variable, variables: binding.variables),
                environment: environment, threads: 1, budget: .report)
        innerWorkers[leaf.id] = inner
        let matched = inner.select(input, chunkStart: chunkStart)
        for failure in inner.takeErrors() { fail(failure.row, failure.error) }
        for row in inner.takeSuspects() { suspect(row) }
        for index in 0..<input.count {
            let row = input.row(index)
            charge(row, inner.cost[row - chunkStart] - inner.plan.rowCost)
        }
        let outcomes = [0, 1].map { leaf.outcome(count: $0, of: 1, environment: environment) }
        var kept = 0
        var next = 0
        for index in 0..<input.count {
            let row = input.row(index)
            var count = 0
            if next < matched.count, Int(matched[next]) == row {
                count = 1
                next += 1
            } else if failed[row - chunkStart] != 0 {
                continue
            }
            switch outcomes[count] {
            case .success(true):
                output[kept] = Int32(truncatingIfNeeded: row)
                kept += 1
            case .success(false):
                break
            case .failure(let error):
                fail(row, error)
            }
        }
        return kept
    }

    /// The rows of `input` (rows of the chunk starting at `chunkStart`) for which the plan holds.
    private func select(_ input: Selection, chunkStart: Int) -> [Int32] {
        self.chunkStart = chunkStart
        chunkCount = min(BatchWorker.chunkSize, batch.count - chunkStart)
        failed.initialize(repeating: 0, count: BatchWorker.chunkSize)
        cost.initialize(repeating: plan.rowCost, count: BatchWorker.chunkSize)
        chunkSuspects.removeAll(keepingCapacity: true)
        let result = evaluate(root, input)
        defer { pool.give(result) }
        guard let rows = result.rows else { return [] }
        return Array(UnsafeBufferPointer(start: rows, count: result.count))
    }

    /// The failures found so far, emptying the list.
    private func takeErrors() -> BatchResult.RowErrors {
        defer { errors = BatchResult.RowErrors() }
        return errors
    }

    /// The suspects of the last ``select(_:chunkStart:)``.
    private func takeSuspects() -> [Int] {
        defer { chunkSuspects.removeAll() }
        return chunkSuspects
    }

    // MARK: - Scalar fallback

    private func scalar(_ region: ScalarRegion, _ input: Selection) -> Selection {
        let output = pool.take()
        return Selection(rows: output, start: 0, count: runScalar(region, input, output))
    }

    /// Runs `region` on each row of `input` with the scalar VM; writes the rows where it is true.
    private func runScalar(_ region: ScalarRegion, _ input: Selection, _ output: UnsafeMutablePointer<Int32>) -> Int {
        // Moved out of the table while it runs, so that its scratch arrays stay uniquely owned.
        var machine = machines[region.id] ?? VirtualMachine(program: region.program, environment: environment)
        machines[region.id] = nil
        defer { machines[region.id] = machine }
        var kept = 0
        let steps = environment.limits.maximumSteps
        for index in 0..<input.count where !exhausted {
            let row = input.row(index)
            do {
                let item = batch.row(row)
                let holds = try machine.evaluate(
                    on: binding.evaluatedObject(for: item), variables: binding.variables(for: item))
                charge(row, steps - max(0, machine.remainingSteps))
                if holds && failed[row - chunkStart] == 0 {
                    output[kept] = Int32(truncatingIfNeeded: row)
                    kept += 1
                }
            } catch {
                charge(row, steps - max(0, machine.remainingSteps))
                fail(row, error)
            }
        }
        return kept
    }
}
