import PredicateBatch
import PredicateFileProvider
import PredicateKit

/// `items.filter(rule)`, the one-line filter of ``Rule``, as an embedder writes it: the rule is
/// compiled from its text when prepared; each run picks the engine, builds the columns it needs
/// and returns the matching items themselves (copies of the structs), all under the clock.
func oneLineFilterRunner(_ input: EngineInput) -> Preparation {
    guard case .item = input.workload.shape else { return .unavailable("item rules") }
    guard let rule = try? Rule<FileProviderItem>(input.workload.rule, environment: input.environment) else {
        return .unavailable("does not compile")
    }
    let items = input.dataset.items
    return .runner { n in items[..<n].filter(rule).count }
}

/// `rule.matchingIndices(in: items)`: the one line that returns positions instead of copies,
/// against `vm` and `vm_batch_with_columns`, which count answers.
func oneLineIndicesRunner(_ input: EngineInput) -> Preparation {
    guard case .item = input.workload.shape else { return .unavailable("item rules") }
    guard let rule = try? Rule<FileProviderItem>(input.workload.rule, environment: input.environment) else {
        return .unavailable("does not compile")
    }
    let items = input.dataset.items
    return .runner { n in rule.matchingIndices(in: items[..<n]).count }
}

/// The batch engine on all cores with its columns built under the clock, counting matches.
func batchWithColumnsRunner(_ input: EngineInput) -> Preparation {
    guard case .item = input.workload.shape else { return .unavailable("item rules") }
    let program = BatchProgram(input.program, environment: input.environment)
    let items = input.dataset.items
    return .runner { n in
        let columns = ColumnBatch(items: items[..<n], keyPaths: program.columnKeyPaths)
        return program.evaluate(columns, threads: BatchProgram.allCores).matchCount
    }
}

/// The best hand-written filter on the library's engines, which ``oneLineFilterRunner(_:)`` is
/// measured against: the batch engine on all cores over columns built under the clock, then the
/// matching items gathered into an array, as a filter must (`vm_batch_all_cores` times the
/// evaluation alone, `vm` the scalar VM's answers alone).
func batchFilterByHandRunner(_ input: EngineInput) -> Preparation {
    guard case .item = input.workload.shape else { return .unavailable("item rules") }
    let program = BatchProgram(input.program, environment: input.environment)
    let items = input.dataset.items
    return .runner { n in
        let columns = ColumnBatch(items: items[..<n], keyPaths: program.columnKeyPaths)
        let rows = program.evaluate(columns, threads: BatchProgram.allCores).matchingRows
        return rows.map { items[$0] }.count
    }
}
