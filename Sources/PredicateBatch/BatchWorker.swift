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
    /// For `SUBQUERY` over each row alone: a worker for the inner plan, by leaf.
    private var innerWorkers: [Int: BatchWorker] = [:]
    /// Per row of the current chunk: 1 once it failed (it then leaves every selection).
    private let failed: UnsafeMutablePointer<UInt8>
    private var chunkStart = 0
    /// Failures, in the order found (ascending within a chunk's clause; sorted at the end).
    private(set) var errors: [BatchResult.RowError] = []

    init(
        plan: Plan, columns: [Column], batch: ColumnBatch, binding: RowBinding, environment: EvaluationEnvironment,
        threads: Int
    ) {
        self.plan = plan
        self.columns = columns
        self.batch = batch
        self.binding = binding
        self.environment = environment
        self.threads = threads
        machines = Array(repeating: nil, count: plan.regionCount)
        root = ExecutionNode(plan.root, columns: columns, masks: !binding.selfIsNotTheRow)
        failed = .allocate(capacity: BatchWorker.chunkSize)
    }

    deinit {
        pool.deallocate()
        masks.deallocate()
        failed.deallocate()
    }

    /// Evaluates rows `range` (whose start is a multiple of 64) and sets their bits in `words`.
    func run(_ range: Range<Int>, into words: UnsafeMutablePointer<UInt64>) {
        var start = range.lowerBound
        while start < range.upperBound {
            let count = min(BatchWorker.chunkSize, range.upperBound - start)
            chunkStart = start
            chunkCount = count
            if case .mask(let node) = root {
                let mask = masks.take()
                node.fill(mask, start: start, count: count, pool: &masks)
                MaskNode.pack(mask, start: start, count: count, into: words)
                masks.give(mask)
                start += count
                continue
            }
            failed.initialize(repeating: 0, count: count)
            let result = evaluate(root, Selection(rows: nil, start: start, count: count))
            if let matched = result.rows {
                for index in 0..<result.count {
                    let row = Int(matched[index])
                    words[row >> 6] |= 1 << UInt64(row & 63)
                }
            }
            pool.give(result)
            start += count
        }
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

    private func fail(_ row: Int, _ error: EvaluationError) {
        failed[row - chunkStart] = 1
        errors.append(BatchResult.RowError(row: row, error: error))
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
            count = Self.stringKernel(values, nils, leaf.strings, leaf.nilResult, input, output)
        case .values(let values, _) where leaf.integers != nil || leaf.doubles != nil:
            count = mixedNumbers(leaf, values, input, output)
        case .unavailable:
            count = runScalar(leaf.fallback, input, output)
        default:
            count = generic(leaf, input, output)
        }
        return Selection(rows: output, start: 0, count: count)
    }

    private static func stringKernel(
        _ values: [String], _ nils: [UInt8], _ test: StringTest?, _ nilResult: Bool?, _ input: Selection,
        _ output: UnsafeMutablePointer<Int32>
    ) -> Int {
        guard let test, let nilResult else { return 0 }
        return values.withUnsafeBufferPointer { values in
            nils.withUnsafeBufferPointer { nils in
                input.filter(into: output) { row in nils[row] == 0 ? test.holds(values[row]) : nilResult }
            }
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
                    do throws(EvaluationError) {
                        holds = try ComparisonOperators.evaluate(
                            leaf.op, leaf.constantOnLeft ? leaf.constant : values[row],
                            leaf.constantOnLeft ? values[row] : leaf.constant, quantifier: leaf.quantifier,
                            options: leaf.options, environment: environment)
                    } catch {
                        fail(row, leaf.site.map(error.at) ?? error)
                        continue
                    }
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
        for index in 0..<input.count {
            let row = input.row(index)
            let value = column.value(at: row)
            do {
                if try ComparisonOperators.evaluate(
                    leaf.op, leaf.constantOnLeft ? leaf.constant : value, leaf.constantOnLeft ? value : leaf.constant,
                    quantifier: leaf.quantifier, options: leaf.options, environment: environment)
                {
                    output[kept] = Int32(truncatingIfNeeded: row)
                    kept += 1
                }
            } catch {
                fail(row, leaf.site.map(error.at) ?? error)
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
        for index in 0..<input.count {
            let row = input.row(index)
            let elements: [Value]
            switch collections.value(at: row) {
            case .array(let values), .set(let values): elements = values
            default:
                // nil, or not a collection: the instructions decide (nil SUBQUERY, or the error).
                kept += runScalar(leaf.fallback, Selection(rows: nil, start: row, count: 1), output + kept)
                continue
            }
            let inner = BatchEvaluation.run(
                leaf.inner, on: ColumnBatch(rows: elements, keyPaths: leaf.inner.columns, rowsAreElements: true),
                binding: RowBinding(
                    evaluatedObject: .fixed(binding.evaluatedObject(for: batch.row(row))), variable: leaf.variable,
                    variables: binding.variables(for: batch.row(row))),
                environment: environment, threads: input.count == 1 ? threads : 1)
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
                environment: environment, threads: 1)
        innerWorkers[leaf.id] = inner
        let matched = inner.select(input, chunkStart: chunkStart)
        for failure in inner.takeErrors() { fail(failure.row, failure.error) }
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
        let result = evaluate(root, input)
        defer { pool.give(result) }
        guard let rows = result.rows else { return [] }
        return Array(UnsafeBufferPointer(start: rows, count: result.count))
    }

    /// The failures found so far, emptying the list.
    private func takeErrors() -> [BatchResult.RowError] {
        defer { errors.removeAll() }
        return errors
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
        for index in 0..<input.count {
            let row = input.row(index)
            do {
                let item = batch.row(row)
                if try machine.evaluate(
                    on: binding.evaluatedObject(for: item), variables: binding.variables(for: item))
                {
                    output[kept] = Int32(truncatingIfNeeded: row)
                    kept += 1
                }
            } catch {
                fail(row, error)
            }
        }
        return kept
    }
}
