import PredicateBatch
import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Everything an engine may use to prepare one workload: the rule in each form, the data in each.
struct EngineInput {
    let workload: Workload
    let predicate: PredicateSyntax.PredicateNode
    /// The rule bound to the item (or context) schema and compiled.
    let program: Program
    let environment: EvaluationEnvironment
    let dataset: Dataset
}

/// Evaluates a prepared workload on the first `n` objects and returns how many matched. For
/// ``Workload/Shape/smallSelections(_:)`` the objects are the contexts of items `0 ..< n`; for
/// ``Workload/Shape/oneSelection(_:)`` it is the one context selecting items `0 ..< n` (so the
/// answer is 0 or 1). Called once to count (and warm up), then repeatedly under the clock.
typealias Runner = (_ n: Int) -> Int

/// An engine's answer to a workload: a runner, or a short reason (shown in the table) why not.
enum Preparation {
    case runner(Runner)
    case unavailable(String)
}

/// One column of the comparison. Adding an engine is adding one entry to ``all``.
struct Engine: Sendable {
    /// Which items the engine is measured on.
    enum Scope: Sendable {
        /// The first ``Dataset/sampleLimit`` items: the per-item engines that take microseconds an
        /// item, so that the default run stays near a minute. ns/item stays comparable.
        case sample
        /// Every item (1,000,000 by default).
        case all
    }

    /// The key in the JSON report and the column heading.
    let name: String
    let scope: Scope
    let prepare: @Sendable (EngineInput) -> Preparation

    /// The engines, in the order of the table and of `ns_per_item` in the JSON report.
    static let all: [Engine] = [
        Engine(name: "interpreter", scope: .sample) { input in
            let interpreter = Interpreter(environment: input.environment)
            let predicate = input.predicate
            return .runner(valueRunner(input) { (try? interpreter.evaluate(predicate, on: $0)) == true })
        },
        Engine(name: "vm", scope: .sample) { input in machineRunner(input, program: input.program) },
        // One `evaluate(item:)` call per item, as a caller evaluating items one at a time pays
        // for it (`vm` runs an array of items with `evaluate(items:into:)`).
        Engine(name: "vm_per_call", scope: .sample) { input in
            machineRunner(input, program: input.program, perCall: true)
        },
        Engine(name: "vm_unfused", scope: .sample) { input in
            // The same rule without `TEST` superinstructions: what they and the prepared constants
            // behind them save.
            let selfType: ValueType
            if case .item = input.workload.shape {
                selfType = EvaluationBenchmark.itemType
            } else {
                selfType = EvaluationBenchmark.contextType
            }
            let bound = Binder.bind(input.predicate, selfType: selfType)
            guard let plain = try? Compiler.compile(bound, source: input.workload.rule, fusing: false) else {
                return .unavailable("does not compile")
            }
            return machineRunner(input, program: plain)
        },
        Engine(name: "vm_batch", scope: .all) { batchRunner($0, threads: 1) },
        Engine(name: "vm_batch_all_cores", scope: .all) { batchRunner($0, threads: BatchProgram.allCores) },
        // `items.filter(rule)` (PredicateKit), and the best hand-written filter on the engines
        // (columns built and matching items gathered under the clock, as a filter must).
        Engine(name: "vm_batch_with_columns", scope: .all, prepare: batchWithColumnsRunner),
        Engine(name: "one_line_indices", scope: .all, prepare: oneLineIndicesRunner),
        Engine(name: "batch_filter_by_hand", scope: .all, prepare: batchFilterByHandRunner),
        Engine(name: "one_line_filter", scope: .all, prepare: oneLineFilterRunner),
        Engine(name: "foundation_predicate", scope: .sample, prepare: foundationRunner),
        // What an ordinary Swift developer writes with Foundation: the baseline without the library.
        Engine(name: "idiomatic", scope: .sample, prepare: idiomaticRunner),
        Engine(name: "native_rows", scope: .all, prepare: rowRunner),
        Engine(name: "native_columns", scope: .all, prepare: columnRunner),
    ]

    /// The engine every other one's match count is checked against.
    static let reference = "interpreter"
}

/// The scalar VM: items are read in place through a pointer (as `native_rows` reads them), the
/// array of them in one `evaluate(items:into:)` (or one call per item, `perCall`), and an
/// activation rule's selection is the same items in place (`evaluate(selection:key:)`), so no
/// context is built and no item boxed, as `native_rows` counts them.
private func machineRunner(_ input: EngineInput, program: Program, perCall: Bool = false) -> Preparation {
    var machine = VirtualMachine(program: program, environment: input.environment)
    let items = input.dataset.items
    let shape = input.workload.shape
    let key = FileProviderContext.selectionKey
    var answers = [Bool](repeating: false, count: items.count)
    return .runner { n in
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var matches = 0
            switch shape {
            case .item where perCall:
                for index in 0..<min(n, buffer.count) where (try? machine.evaluate(item: base + index)) == true {
                    matches += 1
                }
            case .item:
                let count = min(n, buffer.count)
                answers.withUnsafeMutableBufferPointer { out in
                    let slice = UnsafeMutableBufferPointer(rebasing: out[..<count])
                    _ = machine.evaluate(items: UnsafeBufferPointer(rebasing: buffer[..<count]), into: slice)
                    for answer in slice where answer { matches += 1 }
                }
            case .smallSelections:
                for index in 0..<n {
                    let selection = UnsafeBufferPointer(start: base + index, count: smallSelectionLength(index))
                    if (try? machine.evaluate(selection: selection, key: key)) == true { matches += 1 }
                }
            case .oneSelection:
                let selection = UnsafeBufferPointer(start: base, count: min(n, buffer.count))
                if (try? machine.evaluate(selection: selection, key: key)) == true { matches += 1 }
            }
            return matches
        }
    }
}

/// Runs `evaluate` on the language's values: one item, or one activation context, per call.
private func valueRunner(_ input: EngineInput, _ evaluate: @escaping (Value) -> Bool) -> Runner {
    let dataset = input.dataset
    switch input.workload.shape {
    case .item, .smallSelections:
        let objects: [Value]
        if case .item = input.workload.shape { objects = dataset.values } else { objects = dataset.smallSelections }
        return { n in
            var matches = 0
            for object in objects[..<n] where evaluate(object) { matches += 1 }
            return matches
        }
    case .oneSelection:
        let values = dataset.values
        // The context for `n` items is built on the counting call, outside the clock.
        var context: (n: Int, value: Value)?
        return { n in
            if context?.n != n {
                context = (n, .dictionary([FileProviderContext.selectionKey: .array(Array(values[..<n]))]))
            }
            return context.map { evaluate($0.value) ? 1 : 0 } ?? 0
        }
    }
}

private func foundationRunner(_ input: EngineInput) -> Preparation {
    let dataset = input.dataset
    switch (input.workload.foundation, input.workload.shape) {
    case (.unsupported(let reason), _):
        return .unavailable(reason)
    case (.item(let predicate), _):
        let mirrors = dataset.mirrors
        return .runner { n in
            var matches = 0
            for mirror in mirrors[..<n] where (try? predicate.evaluate(mirror)) == true { matches += 1 }
            return matches
        }
    case (.selection(let predicate), .oneSelection):
        let mirrors = dataset.mirrors
        var selection: (n: Int, value: SelectionMirror)?
        return .runner { n in
            if selection?.n != n { selection = (n, SelectionMirror(items: Array(mirrors[..<n]))) }
            return selection.map { (try? predicate.evaluate($0.value)) == true ? 1 : 0 } ?? 0
        }
    case (.selection(let predicate), _):
        let selections = dataset.smallSelectionMirrors
        return .runner { n in
            var matches = 0
            for selection in selections[..<n] where (try? predicate.evaluate(selection)) == true { matches += 1 }
            return matches
        }
    }
}

/// Hand-written Swift over the array of structs, reading each item in place through a pointer
/// (passing a large struct by value to a closure would copy it, and that is not what a careful
/// hand-written loop does).
private func rowRunner(_ input: EngineInput) -> Preparation { inPlaceRunner(input, test: input.workload.row) }

/// Foundation code as an ordinary Swift developer writes it, on the items in place as `native_rows`
/// reads them: the difference between the two is the string code, not the data layout or the loop.
private func idiomaticRunner(_ input: EngineInput) -> Preparation {
    switch input.workload.idiomatic {
    case .unsupported(let reason): return .unavailable(reason)
    case .item(let test): return inPlaceRunner(input, test: test)
    }
}

/// Counts the items (or selections) of the first `n` that pass `test`, reading each item in place.
/// An activation rule's `SUBQUERY` is counted over its selection, then compared, as the rule reads
/// (and as the engines do), rather than stopped at the first match: the figure per selected item
/// stays the cost of testing an item.
private func inPlaceRunner(
    _ input: EngineInput, test: @escaping @Sendable (UnsafePointer<FileProviderItem>) -> Bool
) -> Preparation {
    let items = input.dataset.items
    let shape = input.workload.shape
    return .runner { n in
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            func count(_ range: Range<Int>) -> Int {
                var matches = 0
                for index in range where test(base + index) { matches += 1 }
                return matches
            }
            switch shape {
            case .item:
                return count(0..<n)
            case .smallSelections(let quantifier):
                var matches = 0
                for index in 0..<n {
                    let length = smallSelectionLength(index)
                    if quantifier.holds(matching: count(index..<index + length), of: length) { matches += 1 }
                }
                return matches
            case .oneSelection(let quantifier):
                return quantifier.holds(matching: count(0..<n), of: n) ? 1 : 0
            }
        }
    }
}

/// Hand-written Swift over the columns: the workload's kernel writes a byte mask (one plain loop),
/// then the mask is summed, per item or per selection.
private func columnRunner(_ input: EngineInput) -> Preparation {
    let columns = input.dataset.columns
    let kernel = input.workload.columns
    let shape = input.workload.shape
    var mask = [UInt8](repeating: 0, count: columns.count)
    return .runner { n in
        mask.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            func sum(_ range: Range<Int>) -> Int {
                var total = 0
                for index in range { total &+= Int(base[index]) }
                return total
            }
            switch shape {
            case .item:
                kernel(columns, n, base)
                return sum(0..<n)
            case .smallSelections(let quantifier):
                kernel(columns, min(columns.count, n + 2), base)
                var matches = 0
                for index in 0..<n {
                    let length = smallSelectionLength(index)
                    if quantifier.holds(matching: sum(index..<index + length), of: length) { matches += 1 }
                }
                return matches
            case .oneSelection(let quantifier):
                kernel(columns, n, base)
                return quantifier.holds(matching: sum(0..<n), of: n) ? 1 : 0
            }
        }
    }
}
