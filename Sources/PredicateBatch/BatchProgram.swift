import Dispatch
import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// A predicate program prepared for the batch engine: evaluated one clause at a time over
/// vectors of rows instead of one row at a time over all clauses.
///
/// Comparisons of a key path with a constant run as loops over typed columns; `AND` narrows the
/// rows the next clause sees and `OR` only evaluates rows still false; everything else runs the
/// program's own instructions on the scalar VM for the rows still in question. Results and
/// errors are the scalar VM's (and so the interpreter's), row by row. Immutable and `Sendable`:
/// one batch program can evaluate many batches on many threads at once.
public struct BatchProgram: Sendable {
    /// The program.
    public let program: Program
    /// What operators need beyond their operands.
    public let environment: EvaluationEnvironment
    let plan: Plan

    /// Prepares `program`, a verified predicate program (an expression program gives every row an
    /// error).
    public init(_ program: Program, environment: EvaluationEnvironment = EvaluationEnvironment()) {
        self.program = program
        self.environment = environment
        plan = Planner.plan(program, environment: environment)
    }

    /// The key paths the vector clauses read from each row: the columns a ``ColumnBatch`` for
    /// this program holds.
    public var columnKeyPaths: [[KeyComponent]] { plan.columns }

    /// The plan for an evaluation with `variables` bound: the program's own, or, when the rule
    /// compares key paths with `$variables` the caller binds, one with their values as constants
    /// (so those comparisons run as kernels, as `%@` arguments do). Making it costs about what
    /// compiling the rule does, once per evaluation of a whole batch.
    private func plan(for variables: [String: Value]) -> Plan {
        guard plan.readsVariables, !variables.isEmpty else { return plan }
        return Planner.plan(program, environment: environment, variables: variables)
    }

    /// The number of cores, for `threads`.
    public static var allCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Evaluates the predicate for every row of `batch`, splitting the rows across `threads`
    /// threads (results do not depend on it).
    public func evaluate(_ batch: ColumnBatch, variables: [String: Value] = [:], threads: Int = 1) -> BatchResult {
        BatchEvaluation.run(
            plan(for: variables), on: batch,
            binding: RowBinding(evaluatedObject: .row, variable: nil, variables: variables),
            environment: environment, threads: threads, budget: .rerun(program))
    }

    /// Evaluates the predicate for every item of `rows` (building the batch is part of the cost).
    public func evaluate(_ rows: [Value], variables: [String: Value] = [:], threads: Int = 1) -> BatchResult {
        evaluate(ColumnBatch(rows: rows, for: self), variables: variables, threads: threads)
    }

    /// Evaluates an activation rule once for each item alone: row `r`'s answer is the rule's
    /// for the context `{contextKey: [items[r]]}` ("which actions would be enabled if the user
    /// selected just this item").
    ///
    /// `SUBQUERY(contextKey, $v, inner).@count op k` is then provably `inner` for the item (the
    /// count is 1 or 0), so `inner` runs as a batch over the items' columns; other clauses run on
    /// the scalar VM with the context built for the row.
    public func evaluateEachAlone(
        _ batch: ColumnBatch, contextKey: String = "fileproviderItems", variables: [String: Value] = [:],
        threads: Int = 1
    ) -> BatchResult {
        BatchEvaluation.run(
            plan(for: variables), on: batch,
            binding: RowBinding(
                evaluatedObject: .selectionOfRow(contextKey: contextKey), variable: nil, variables: variables),
            environment: environment, threads: threads, budget: .rerun(program))
    }

    /// Evaluates an activation rule once, for the selection of every row of `batch` (the context
    /// `{contextKey: [row 0, row 1, …]}`), without building that context when the rule is
    /// `SUBQUERY(contextKey, $v, inner).@count op k`: `inner` then runs as a batch over the rows'
    /// columns on `threads` threads. Any other rule is evaluated on the context itself.
    ///
    /// - Returns: The rule's answer, or the error that hides the action.
    public func evaluateSelection(
        _ batch: ColumnBatch, contextKey: String = "fileproviderItems", variables: [String: Value] = [:],
        threads: Int = 1
    ) -> Result<Bool, EvaluationError> {
        func context() -> Value { .dictionary([contextKey: .array((0..<batch.count).map(batch.row))]) }
        let plan = plan(for: variables)
        guard case .subquery(let leaf) = plan.root, plan.columns[leaf.collection].count == 1,
            plan.columns[leaf.collection][0].key == contextKey
        else {
            let result = evaluate([context()], variables: variables, threads: 1)
            return result.errors.first.map { .failure($0.error) } ?? .success(result.matches(0))
        }
        // `SELF` only matters to clauses of the inner predicate that run on the scalar VM.
        let needsContext = leaf.inner.readsEvaluatedObject
        let inner = BatchEvaluation.run(
            leaf.inner, on: batch,
            binding: RowBinding(
                evaluatedObject: .fixed(needsContext ? context() : .nil), variable: leaf.variable, variables: variables),
            environment: environment, threads: threads, budget: .shared(environment.limits.maximumSteps))
        // One evaluation of the rule: past its budget, the VM's answer on the context is the answer.
        guard !inner.exhausted, inner.suspects.isEmpty else { return wholeRule(on: context(), variables: variables) }
        if let first = inner.errors.first { return .failure(first.error) }
        return leaf.outcome(count: inner.matchCount, of: batch.count, environment: environment)
    }

    /// Evaluates an activation rule once per selection, each selection being a range of the
    /// batch's rows (the context `{contextKey: [rows in the range]}`); row `s` of the result is
    /// selection `s`'s answer.
    ///
    /// For `SUBQUERY(contextKey, $v, inner).@count op k` whose inner predicate does not read
    /// `SELF`, `inner` runs once per row over the columns, and each selection's count is summed
    /// from those answers (a selection fails with the error of its first failing row, where the
    /// scalar `SUBQUERY` stops). Any other rule is evaluated on each selection's context.
    public func evaluateSelections(
        _ batch: ColumnBatch, ranges: [Range<Int>], contextKey: String = "fileproviderItems",
        variables: [String: Value] = [:], threads: Int = 1
    ) -> BatchResult {
        let plan = plan(for: variables)
        guard case .subquery(let leaf) = plan.root, plan.columns[leaf.collection].count == 1,
            plan.columns[leaf.collection][0].key == contextKey, !leaf.inner.readsEvaluatedObject
        else {
            let contexts = ranges.map { range in
                Value.dictionary([contextKey: .array(range.clamped(to: 0..<batch.count).map(batch.row))])
            }
            return evaluate(contexts, variables: variables, threads: threads)
        }
        let inner = BatchEvaluation.run(
            leaf.inner, on: batch,
            binding: RowBinding(evaluatedObject: .fixed(.nil), variable: leaf.variable, variables: variables),
            environment: environment, threads: threads, budget: .report)
        // A row past its budget: the selections are evaluated as contexts, where the VM decides.
        guard inner.suspects.isEmpty else {
            let contexts = ranges.map { range in
                Value.dictionary([contextKey: .array(range.clamped(to: 0..<batch.count).map(batch.row))])
            }
            return evaluate(contexts, variables: variables, threads: threads)
        }
        // The first failing row at or after each row, built only when some row failed.
        var failureAt: [Int] = []
        var failures: [Int: EvaluationError] = [:]
        if !inner.errors.isEmpty {
            failureAt = [Int](repeating: batch.count, count: batch.count + 1)
            for failure in inner.errors { failures[failure.row] = failure.error }
            // The errors are sorted by row: walk them backwards alongside the rows.
            var nextFailure = batch.count
            var pending = inner.errors.count - 1
            for row in stride(from: batch.count - 1, through: 0, by: -1) {
                if pending >= 0, inner.errors[pending].row == row {
                    nextFailure = row
                    pending -= 1
                }
                failureAt[row] = nextFailure
            }
        }
        let bitmap = inner.bitmap
        var words = [UInt64](repeating: 0, count: (ranges.count + 63) / 64)
        var errors = BatchResult.RowErrors()
        // The answer depends only on (matches, items): for small selections a table of codes
        // (0 false, 1 true, 2 an error), made first, so the loop copies no `Result`.
        let smallest = 8
        var codes = [UInt8](repeating: 0, count: smallest * smallest)
        var tableErrors: [Int: EvaluationError] = [:]
        for total in 0..<smallest {
            for count in 0...total {
                switch leaf.outcome(count: count, of: total, environment: environment) {
                case .success(let flag): codes[total * smallest + count] = flag ? 1 : 0
                case .failure(let error):
                    codes[total * smallest + count] = 2
                    tableErrors[total * smallest + count] = error
                }
            }
        }
        var outcomes: [Pair: Result<Bool, EvaluationError>] = [:]
        let rows = batch.count
        /// Selection `index`, over `range` (clamped), the general way: its first failing row, its
        /// count, its outcome by table or computed; its code (0, 1, or 2 when it failed).
        func general(_ index: Int, _ range: Range<Int>) -> UInt8 {
            if !failureAt.isEmpty {
                let firstFailure = failureAt[range.lowerBound]
                if firstFailure < range.upperBound, let error = failures[firstFailure] {
                    errors.append(row: index, error: error)
                    return 2
                }
            }
            let count = Self.matches(in: range, of: bitmap)
            if range.count < smallest {
                let slot = range.count * smallest + count
                if codes[slot] == 2, let error = tableErrors[slot] {
                    errors.append(row: index, error: error)
                }
                return codes[slot]
            }
            let key = Pair(count: count, total: range.count)
            let outcome = outcomes[key] ?? leaf.outcome(count: count, of: range.count, environment: environment)
            outcomes[key] = outcome
            switch outcome {
            case .success(let flag): return flag ? 1 : 0
            case .failure(let error):
                errors.append(row: index, error: error)
                return 2
            }
        }
        let failing = !failureAt.isEmpty || !tableErrors.isEmpty
        // The same codes by a small selection's bits themselves (`total << 8 | bits`), so its
        // answer is one look-up without counting the bits.
        var byBits = [UInt8](repeating: 0, count: smallest << 8)
        for total in 0..<smallest {
            for bits in 0..<(1 << total) { byBits[total << 8 | bits] = codes[total * smallest + bits.nonzeroBitCount] }
        }
        // Small selections within one word are answered by look-up, on several threads when there
        // are many (each thread its own whole words); the others, in order, the general way.
        var deferred: [Int] = []
        ranges.withUnsafeBufferPointer { ranges in
            bitmap.withUnsafeBufferPointer { bits in
                byBits.withUnsafeBufferPointer { byBits in
                    words.withUnsafeMutableBufferPointer { words in
                        let pass = SmallSelections(
                            ranges: ranges, bits: bits, byBits: byBits, words: words, rows: rows, smallest: smallest)
                        let wordCount = words.count
                        let parts = failing ? 1 : max(1, min(threads, ranges.count / 16_384))
                        let wordsPerPart = (wordCount + parts - 1) / parts
                        let output = DeferredSelections(parts: parts)
                        defer { output.deallocate() }
                        let count = ranges.count
                        let work: @Sendable (Int) -> Void = { part in
                            let lower = min(count, part * wordsPerPart * 64)
                            let upper = min(count, (part + 1) * wordsPerPart * 64)
                            output.indices[part] = failing ? Array(lower..<upper) : pass.answer(lower..<upper)
                        }
                        if parts == 1 {
                            work(0)
                        } else {
                            DispatchQueue.concurrentPerform(iterations: parts, execute: work)
                        }
                        for part in 0..<parts { deferred += output.indices[part] }
                    }
                }
            }
        }
        for index in deferred {
            let lower = min(max(ranges[index].lowerBound, 0), rows)
            let upper = min(max(ranges[index].upperBound, lower), rows)
            words[index >> 6] |= UInt64(general(index, lower..<upper) & 1) << UInt64(index & 63)
        }
        return BatchResult(count: ranges.count, bitmap: words, errors: errors)
    }

    /// The bits set in `words` for the rows of `range`, a word at a time.
    private static func matches(in range: Range<Int>, of words: [UInt64]) -> Int {
        var count = 0
        var row = range.lowerBound
        while row < range.upperBound {
            let bit = row & 63
            let take = min(64 - bit, range.upperBound - row)
            let mask: UInt64 = take == 64 ? ~0 : ((1 << UInt64(take)) - 1) << UInt64(bit)
            count &+= (words[row >> 6] & mask).nonzeroBitCount
            row += take
        }
        return count
    }

    /// The whole rule on the scalar VM, for an evaluation the batch engine could not finish within
    /// its budget.
    private func wholeRule(on context: Value, variables: [String: Value]) -> Result<Bool, EvaluationError> {
        var machine = VirtualMachine(program: program, environment: environment)
        return Result { () throws(EvaluationError) -> Bool in try machine.evaluate(on: context, variables: variables) }
    }

    /// The key paths ``evaluateEachAlone(_:contextKey:variables:threads:)`` reads from each item:
    /// the columns of a ``ColumnBatch`` of items for it.
    public var eachAloneKeyPaths: [[KeyComponent]] {
        var paths: [[KeyComponent]] = []
        plan.root.forEachSubquery { leaf in paths += leaf.inner.columns }
        return paths
    }

    /// The key paths ``evaluateSelection(_:contextKey:variables:threads:)`` reads from each row
    /// (the same as ``eachAloneKeyPaths``).
    public var selectionKeyPaths: [[KeyComponent]] { eachAloneKeyPaths }

    /// The plan, one node a line: which clauses run as vector kernels and which on the scalar VM.
    public var planDescription: String { plan.description }

    /// The plan of an evaluation with `variables` bound: comparisons with the `$variables` the
    /// caller binds run as kernels, with the values as constants.
    public func planDescription(variables: [String: Value]) -> String { plan(for: variables).description }
}

/// The look-up of small selections' answers by their bits (``BatchProgram/evaluateSelections(_:ranges:contextKey:variables:threads:)``),
/// over plain pointers that threads share: each thread writes only its own whole words of the
/// answers (hence `@unchecked`).
private struct SmallSelections: @unchecked Sendable {
    let ranges: UnsafeBufferPointer<Range<Int>>
    let bits: UnsafeBufferPointer<UInt64>
    let byBits: UnsafeBufferPointer<UInt8>
    let words: UnsafeMutableBufferPointer<UInt64>
    let rows: Int
    let smallest: Int

    /// Answers the selections of `indices` that are small and within one word of the bitmap;
    /// returns the others, in order.
    func answer(_ indices: Range<Int>) -> [Int] {
        var others: [Int] = []
        for index in indices {
            let lower = min(max(ranges[index].lowerBound, 0), rows)
            let upper = min(max(ranges[index].upperBound, lower), rows)
            let total = upper - lower
            guard total < smallest else {
                others.append(index)
                continue
            }
            // Its bits in one or two shifts and a mask, its answer in one look-up. A selection
            // that crosses a word takes the next word's low bits: left to the serial general
            // pass, the one in sixty that cross took 40% of the time on one core, and held back
            // the second.
            var inWord: UInt64 = 0
            if total > 0 {
                let word = lower >> 6
                let shift = lower & 63
                inWord = bits[word] >> UInt64(shift)
                if shift + total > 64 { inWord |= bits[word + 1] << UInt64(64 - shift) }
            }
            let code = byBits[total << 8 | Int(truncatingIfNeeded: inWord & ((1 << UInt64(total)) - 1))]
            words[index >> 6] |= UInt64(code & 1) << UInt64(index & 63)
        }
        return others
    }
}

/// Each thread's deferred selections, in its own slot (hence `@unchecked`).
private struct DeferredSelections: @unchecked Sendable {
    let indices: UnsafeMutablePointer<[Int]>
    let parts: Int

    init(parts: Int) {
        self.parts = parts
        indices = .allocate(capacity: parts)
        indices.initialize(repeating: [], count: parts)
    }

    func deallocate() {
        indices.deinitialize(count: parts)
        indices.deallocate()
    }
}

/// A selection's count of matches and of items: what its answer depends on.
private struct Pair: Hashable {
    let count: Int
    let total: Int
}

/// Runs a plan over a batch on one or more threads.
enum BatchEvaluation {
    /// How many parts each thread's share of the rows is cut into, for the threads to balance.
    static let partsPerThread = 8

    static func run(
        _ plan: Plan, on batch: ColumnBatch, binding: RowBinding, environment: EvaluationEnvironment, threads: Int,
        budget: RowBudget
    ) -> BatchResult {
        let count = batch.count
        // When each row is an item alone in a selection, `SELF`'s key paths are not the items'.
        let columns =
            binding.selfIsNotTheRow ? plan.columns.map { _ in Column.unavailable } : plan.columns.map(batch.column)
        let wordCount = (count + 63) / 64
        // Whole words per part, so no two threads write one word; at least a chunk each. Several
        // parts a thread, taken in turn by whichever thread is free: on a shared machine one
        // core is often slower than the other, and halves fixed in advance left the faster core
        // waiting for the slower.
        // A shared budget is spent in row order by one thread, so where it runs out does not vary.
        let shared = budget.sharedSteps < .max
        let chunks = (count + BatchWorker.chunkSize - 1) / BatchWorker.chunkSize
        let parts = shared || threads <= 1 ? 1 : max(1, min(threads * Self.partsPerThread, chunks))
        let wordsPerPart = (wordCount + parts - 1) / max(1, parts)
        let output = Output(words: wordCount, parts: parts)
        defer { output.deallocate() }
        let work: @Sendable (Int) -> Void = { part in
            let lower = min(count, part * wordsPerPart * 64)
            let upper = min(count, (part + 1) * wordsPerPart * 64)
            guard lower < upper else { return }
            let worker = BatchWorker(
                plan: plan, columns: columns, batch: batch, binding: binding, environment: environment,
                threads: threads, budget: budget)
            worker.run(lower..<upper, into: output.words)
            output.errors[part] = worker.errors
            output.suspects[part] = worker.suspects
            output.costs[part] = worker.totalCost
            output.exhausted[part] = worker.exhausted
        }
        if parts == 1 {
            work(0)
        } else {
            let next = PartCounter()
            DispatchQueue.concurrentPerform(iterations: min(threads, parts)) { _ in
                while let part = next.take(below: parts) { work(part) }
            }
        }
        // One part's failures are taken whole, and left nowhere else: copied, each would be
        // copied again (reference counts and all) by the sort below.
        var allErrors = parts == 1 ? output.takeErrors(0) : BatchResult.RowErrors()
        if parts > 1 { allErrors.reserveCapacity((0..<parts).reduce(0) { $0 + output.errors[$1].count }) }
        var suspects: [Int] = []
        var cost = 0
        var exhausted = false
        for part in 0..<parts {
            if parts > 1 { allErrors.append(contentsOf: output.takeErrors(part)) }
            suspects += output.suspects[part]
            cost = cost.saturatingAdd(output.costs[part])
            exhausted = exhausted || output.exhausted[part]
        }
        allErrors.sortByRow()
        return BatchResult(
            count: count, bitmap: Array(UnsafeBufferPointer(start: output.words, count: wordCount)), errors: allErrors,
            suspects: suspects.sorted(), cost: cost, exhausted: exhausted)
    }
}

/// The next part of an evaluation for a thread to take: a lock taken once a part (thousands of
/// rows), never once a row.
private final class PartCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0

    /// The next part below `count`, or `nil` when all are taken.
    func take(below count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }
}

/// Where the parts of one evaluation write: each part its own whole words of the bitmap and its
/// own slot of the error table, so the writes of the threads never overlap (hence `@unchecked`).
private struct Output: @unchecked Sendable {
    let words: UnsafeMutablePointer<UInt64>
    let errors: UnsafeMutablePointer<BatchResult.RowErrors>
    let suspects: UnsafeMutablePointer<[Int]>
    let costs: UnsafeMutablePointer<Int>
    let exhausted: UnsafeMutablePointer<Bool>
    let parts: Int

    init(words count: Int, parts: Int) {
        words = .allocate(capacity: max(1, count))
        words.initialize(repeating: 0, count: max(1, count))
        errors = .allocate(capacity: parts)
        errors.initialize(repeating: BatchResult.RowErrors(), count: parts)
        suspects = .allocate(capacity: parts)
        suspects.initialize(repeating: [], count: parts)
        costs = .allocate(capacity: parts)
        costs.initialize(repeating: 0, count: parts)
        exhausted = .allocate(capacity: parts)
        exhausted.initialize(repeating: false, count: parts)
        self.parts = parts
    }

    /// Part `part`'s failures, moved out (the slot is left empty).
    func takeErrors(_ part: Int) -> BatchResult.RowErrors {
        let taken = (errors + part).move()
        (errors + part).initialize(to: BatchResult.RowErrors())
        return taken
    }

    func deallocate() {
        words.deallocate()
        errors.deinitialize(count: parts)
        errors.deallocate()
        suspects.deinitialize(count: parts)
        suspects.deallocate()
        costs.deallocate()
        exhausted.deallocate()
    }
}
