import Foundation
import PredicateSyntax
import PredicateValue

// predicate-bench: measures the pipeline stage by stage and prints one table.
// Figures are medians over several timed runs after a warm-up; compare ratios within one run,
// since absolute times on a shared machine move between runs.

let options = BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
if options.showHelp {
    print(BenchmarkOptions.usage)
    exit(0)
}
if let problem = options.problem {
    FileHandle.standardError.write(Data("predicate-bench: \(problem)\n\n\(BenchmarkOptions.usage)\n".utf8))
    exit(2)
}

let machine = MachineDescription.current()
print("predicate-bench — \(machine.summary)")
print(options.quick ? "quick mode: small sizes, few runs (for CI; figures are not meaningful)\n" : "")

let parseResults = ParseBenchmark.run(options: options)
ParseBenchmark.printTable(parseResults)
let evaluationResults = EvaluationBenchmark.run(options: options)
EvaluationBenchmark.printTable(evaluationResults)
RuleSetBenchmark.run(quick: options.quick)
print("peak memory: \(column(peakMemoryMiB(), width: 0)) MiB")

if let path = options.jsonPath {
    let report = BenchmarkReport(machine: machine, parse: parseResults, evaluation: evaluationResults)
    do {
        try report.write(to: path)
        print("\nwrote \(path)")
    } catch {
        FileHandle.standardError.write(Data("predicate-bench: cannot write \(path): \(error)\n".utf8))
        exit(2)
    }
}
