import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Evaluation: every engine on the same items, rule by rule. Every engine's match count must
/// equal the interpreter's on the same items, or the run stops naming the rule.
enum EvaluationBenchmark {
    /// One engine's figures on one workload.
    struct EngineFigures {
        let engine: String
        /// Why the engine has no figure, when it has none.
        let unavailable: String?
        let items: Int
        let timing: Timing?
    }

    struct Result {
        let name: String
        let rule: String
        /// Items the `.all` engines ran on, and their match count.
        let items: Int
        let matches: Int
        /// Items the `.sample` engines ran on (a prefix of the same items), and the count there.
        let sampleItems: Int
        let sampleMatches: Int
        let engines: [EngineFigures]
        let compileMicroseconds: Double
        /// Instructions and constants as serialized (no source text, no source ranges).
        let programBytes: Int
        /// The whole serialized program, with its source text and ranges.
        let serializedBytes: Int

        func nanosecondsPerItem(_ engine: String) -> Double? {
            engines.first { $0.engine == engine }?.timing?.median
        }
    }

    /// A workload parsed, bound and compiled, with the cost of binding and compiling.
    struct Compiled {
        let predicate: PredicateSyntax.PredicateNode
        let program: Program
        let compileMicroseconds: Double
    }

    static let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
    static let contextType = ValueType.record([FileProviderContext.selectionKey: .array(itemType)])

    static func compile(_ workload: Workload) -> Compiled {
        let selfType: ValueType
        if case .item = workload.shape { selfType = itemType } else { selfType = contextType }
        let parsed: PredicateSyntax.PredicateNode
        let program: Program
        do {
            parsed = try PredicateParser.parsePredicate(workload.rule).predicate
            program = try Compiler.compile(Binder.bind(parsed, selfType: selfType), source: workload.rule)
        } catch {
            fail("benchmark rule '\(workload.name)' does not compile: \(error)")
        }
        // The median of 15 batches of 20, so that a burst of load elsewhere on a shared machine
        // (which lands in one batch) does not move the figure.
        let repetitions = 20
        let batches = (0..<15).map { _ in
            let start = ContinuousClock.now
            for _ in 0..<repetitions {
                blackHole(try? Compiler.compile(Binder.bind(parsed, selfType: selfType), source: workload.rule))
            }
            return seconds(ContinuousClock.now - start) * 1e6 / Double(repetitions)
        }.sorted()
        return Compiled(predicate: parsed, program: program, compileMicroseconds: batches[batches.count / 2])
    }

    static func run(options: BenchmarkOptions, dataset: Dataset) -> [Result] {
        let items = options.items
        let sampleItems = min(options.sampleItems, items)
        var results: [Result] = []
        for workload in WorkloadLadder.all where options.includes(workload.name) {
            let compiled = compile(workload)
            let input = EngineInput(
                workload: workload, predicate: compiled.predicate, program: compiled.program,
                environment: EvaluationEnvironment(), dataset: dataset)
            var figures: [EngineFigures] = []
            var sampleCounts: [(String, Int)] = []
            var fullCounts: [(String, Int)] = []
            var jobs: [(engine: String, runner: Runner, items: Int)] = []
            for engine in Engine.all {
                guard options.runsEngine(engine.name) else {
                    figures.append(
                        EngineFigures(engine: engine.name, unavailable: "not selected", items: 0, timing: nil))
                    continue
                }
                switch engine.prepare(input) {
                case .unavailable(let reason):
                    figures.append(EngineFigures(engine: engine.name, unavailable: reason, items: 0, timing: nil))
                case .runner(let runner):
                    jobs.append((engine.name, runner, engine.scope == .sample ? sampleItems : items))
                    figures.append(EngineFigures(engine: engine.name, unavailable: nil, items: 0, timing: nil))
                }
            }
            let measured = measure(jobs.map { ($0.runner, $0.items) }, options: options)
            for (job, (matches, timing)) in zip(jobs, measured) {
                if let index = figures.firstIndex(where: { $0.engine == job.engine }) {
                    figures[index] = EngineFigures(
                        engine: job.engine, unavailable: nil, items: job.items, timing: timing)
                }
                sampleCounts.append((job.engine, job.items == sampleItems ? matches : job.runner(sampleItems)))
                if job.items == items { fullCounts.append((job.engine, matches)) }
            }
            let sampleMatches = check(sampleCounts, workload: workload.name, items: sampleItems)
            let matches = fullCounts.isEmpty ? sampleMatches : check(fullCounts, workload: workload.name, items: items)
            results.append(
                Result(
                    name: workload.name, rule: workload.rule, items: fullCounts.isEmpty ? sampleItems : items,
                    matches: matches, sampleItems: sampleItems, sampleMatches: sampleMatches, engines: figures,
                    compileMicroseconds: compiled.compileMicroseconds,
                    programBytes: programBytes(compiled.program),
                    serializedBytes: (try? compiled.program.serialized().count) ?? 0))
        }
        return results
    }

    /// Each runner counts once (which also warms it up); then the timed runs go round the
    /// engines, one run of each in turn, so that a burst of load from elsewhere on a shared
    /// machine spreads over all engines instead of skewing one. ns per item.
    static func measure(
        _ jobs: [(runner: Runner, items: Int)], options: BenchmarkOptions
    ) -> [(
        matches: Int, timing: Timing
    )] {
        let counts = jobs.map { $0.runner($0.items) }
        var samples = [[Double]](repeating: [], count: jobs.count)
        for _ in 0..<options.runs {
            for (index, job) in jobs.enumerated() {
                samples[index].append(
                    Timing.sample(minimumSeconds: options.minimumRunSeconds, units: job.items) {
                        blackHole(job.runner(job.items))
                    })
            }
        }
        return zip(counts, samples).map { ($0, Timing(samples: $1)) }
    }

    /// The count every engine agrees on: the reference's if it ran, else the first engine's.
    /// A disagreement stops the run.
    @discardableResult
    static func check(_ counts: [(String, Int)], workload: String, items: Int) -> Int {
        guard let expected = counts.first(where: { $0.0 == Engine.reference }) ?? counts.first else { return 0 }
        for (engine, matches) in counts where matches != expected.1 {
            fail(
                "MISMATCH on '\(workload)' (first \(items) items): \(engine) found \(matches) matches, "
                    + "\(expected.0) \(expected.1)")
        }
        return expected.1
    }

    /// The bytes of the program a VM needs: code, constants, key paths, variables and limits as
    /// serialized, without the source text and source ranges kept for error messages.
    static func programBytes(_ program: Program) -> Int {
        let bare = Program(
            kind: program.kind, code: program.code, constants: program.constants, keyPaths: program.keyPaths,
            variables: program.variables, sourceRanges: [], maximumStackDepth: program.maximumStackDepth,
            maximumSubqueryDepth: program.maximumSubqueryDepth, source: "")
        return (try? bare.serialized().count) ?? program.codeSize
    }
}

/// Stops the run with a message on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("predicate-bench: \(message)\n".utf8))
    exit(1)
}
