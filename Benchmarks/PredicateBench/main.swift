import Foundation
import PredicateFileProvider

// predicate-bench: measures the pipeline stage by stage and prints one table per stage.
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

let dataset = Dataset(count: options.generatedItems, sampleLimit: options.sampleItems)
let evaluationResults = EvaluationBenchmark.run(options: options, dataset: dataset)
EvaluationTable.print(evaluationResults, runs: options.runs)
let scalingPoints = ScalingBenchmark.run(options: options, dataset: dataset)
ScalingBenchmark.printTable(scalingPoints)
RuleSetBenchmark.run(quick: options.quick)
let failingRules = FailingRulesBenchmark.run(options: options, dataset: dataset)
let upkeep = BatchUpkeepBenchmark.run(options: options, dataset: dataset)
let outside = OutsideItemsBenchmark.run(options: options)
let stringKernels = StringKernelBenchmark.run(options: options)
let database = options.database ? DatabaseBenchmark.run(options: options, dataset: dataset) : nil

print(
    "\nData preparation (not part of any figure; an item is \(MemoryLayout<FileProviderItem>.stride) bytes in the array):"
)
for (label, seconds) in dataset.buildSeconds {
    print("  \(column(label, width: 40)) \(column(seconds, decimals: 2, width: 7)) s")
}
let peakMemory = peakMemoryMiB()
print("peak memory: \(column(peakMemory, decimals: 0, width: 0)) MiB (ru_maxrss)")

if let path = options.jsonPath {
    let report = BenchmarkReport(
        machine: machine,
        workloads: evaluationResults.map { result in
            let label = "vm_batch columns: \(result.name) (\(result.items) items)"
            let seconds = dataset.buildSeconds.first { $0.0 == label }?.1
            return BenchmarkReport.WorkloadEntry(
                result: result,
                columnBuildNanosecondsPerItem: seconds.map { $0 * 1e9 / Double(max(1, result.items)) })
        },
        parse: parseResults, scaling: scalingPoints.map(BenchmarkReport.ScalingEntry.init),
        buildSeconds: Dictionary(dataset.buildSeconds, uniquingKeysWith: { first, _ in first }),
        peakMemoryMiB: peakMemory, runs: options.runs, failingRules: failingRules, upkeep: upkeep, outside: outside,
        stringKernels: stringKernels, database: database)
    do {
        try report.write(to: path)
        print("wrote \(path)")
    } catch {
        fail("cannot write \(path): \(error)")
    }
}
if let path = options.svgPath {
    let image = SVGChart.render(results: evaluationResults, scaling: scalingPoints, machine: machine)
    do {
        try image.write(toFile: path, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    } catch {
        fail("cannot write \(path): \(error)")
    }
}
