import PredicateSemantics

/// How ns/item moves with the number of items (10³…10⁷): caches fill up, and per-run setup stops
/// mattering. The slow engines stop at the sample size; match counts are checked at every size.
enum ScalingBenchmark {
    struct Point {
        let workload: String
        let items: Int
        /// Median ns/item by engine, in ``Engine/all`` order; nil where the engine did not run.
        let nanosecondsPerItem: [(engine: String, value: Double?)]
    }

    static func run(options: BenchmarkOptions, dataset: Dataset) -> [Point] {
        let workloads = WorkloadLadder.all.filter { workload in
            options.includes(workload.name) && options.scalingWorkloads.contains(workload.name)
        }
        var points: [Point] = []
        for workload in workloads {
            let compiled = EvaluationBenchmark.compile(workload)
            let input = EngineInput(
                workload: workload, predicate: compiled.predicate, program: compiled.program,
                environment: EvaluationEnvironment(), dataset: dataset)
            let runners = Engine.all.map { engine -> (Engine, Runner?) in
                if case .runner(let runner) = engine.prepare(input) { return (engine, runner) }
                return (engine, nil)
            }
            for size in options.sizes where size <= dataset.items.count - 2 {
                let running = runners.compactMap { engine, runner -> (String, Runner)? in
                    guard let runner, engine.scope == .all || size <= dataset.sampleLimit else { return nil }
                    return (engine.name, runner)
                }
                let measured = EvaluationBenchmark.measure(running.map { ($0.1, size) }, options: options)
                let counts = zip(running, measured).map { ($0.0.0, $0.1.matches) }
                let figures = runners.map { engine, _ -> (engine: String, value: Double?) in
                    let index = running.firstIndex { $0.0 == engine.name }
                    return (engine.name, index.map { measured[$0].timing.median })
                }
                EvaluationBenchmark.check(counts, workload: workload.name, items: size)
                points.append(Point(workload: workload.name, items: size, nanosecondsPerItem: figures))
            }
        }
        return points
    }

    static func printTable(_ points: [Point]) {
        guard let first = points.first else { return }
        print("\nScaling: median ns/item by number of items (— : not run at that size)")
        let engines = first.nanosecondsPerItem.map(\.engine)
        print(column("rule", width: 26) + column("items", width: 10) + engines.map { heading($0) }.joined())
        for point in points {
            print(
                column(point.workload, width: 26) + column(Double(point.items), decimals: 0, width: 9) + " "
                    + point.nanosecondsPerItem.map { cell($0.value) }.joined())
        }
    }
}

/// An engine's name as a right-aligned column heading, shortened to fit.
func heading(_ engine: String) -> String {
    let short = [
        "vm_batch_all_cores": "batch all", "foundation_predicate": "#Predicate", "native_rows": "rows",
        "native_columns": "columns", "vm_batch": "batch 1", "vm_batch_with_columns": "batch+cols",
        "one_line_indices": "1-line idx", "batch_filter_by_hand": "by hand",
        "one_line_filter": "1-line",
    ][engine, default: engine]
    return String(repeating: " ", count: max(1, 12 - short.count)) + short
}

/// A figure in ns, right-aligned in 12 columns with three significant digits, or a reason.
func cell(_ nanoseconds: Double?, orElse reason: String = "—") -> String {
    guard let nanoseconds, nanoseconds.isFinite else {
        return String(repeating: " ", count: max(1, 12 - reason.count)) + reason
    }
    return column(nanoseconds, decimals: decimals(for: nanoseconds), width: 12)
}

/// Decimals that show about three significant digits.
func decimals(for value: Double) -> Int {
    switch abs(value) {
    case 100...: return 0
    case 10..<100: return 1
    case 1..<10: return 2
    default: return 3
    }
}
