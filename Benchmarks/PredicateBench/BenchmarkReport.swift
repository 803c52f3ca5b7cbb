import Foundation

/// Everything one run measured, as written by `--json FILE`: the keys issue 6 names (`machine`,
/// and per workload `name`, `rule`, `items`, `matches`, `ns_per_item` with every engine, null where
/// it cannot run, `compile_us`, `program_bytes`), plus spreads, ratios, parsing, scaling, memory.
struct BenchmarkReport: Encodable {
    let machine: MachineDescription
    let workloads: [WorkloadEntry]
    let parse: [ParseBenchmark.Result]
    let scaling: [ScalingEntry]
    let buildSeconds: [String: Double]
    let peakMemoryMiB: Double
    let runs: Int
    /// A rule set with rules failing on every item against one with false rules (issue 18).
    var failingRules: FailingRulesBenchmark.Result?
    /// Columns kept current against built anew, and `$variables` against constants (issue 14).
    var upkeep: BatchUpkeepBenchmark.Result?
    /// The VM on a plain struct with the minimal conformance against a tree-walker and a closure
    /// compiler (issue 13).
    var outside: [OutsideItemsBenchmark.Result] = []
    /// The shared string kernels on ASCII names against names that are not (issue 14).
    var stringKernels: [StringKernelBenchmark.Result] = []
    /// Rules pushed down to SQLite and PostgreSQL against loading every row (issue 19); absent
    /// with `--no-database`.
    var database: DatabaseBenchmark.Result?

    enum CodingKeys: String, CodingKey {
        case machine, workloads, parse, scaling, runs, database
        case outside = "outside_items"
        case stringKernels = "string_kernels"
        case failingRules = "rule_set_with_failing_rules"
        case upkeep = "batch_upkeep"
        case buildSeconds = "build_seconds"
        case peakMemoryMiB = "peak_memory_mib"
    }

    struct WorkloadEntry: Encodable {
        let result: EvaluationBenchmark.Result
        /// Building the batch engine's columns for all the items, per item (not in any engine's
        /// figure), when this run built them.
        var columnBuildNanosecondsPerItem: Double? = nil

        enum CodingKeys: String, CodingKey {
            case name, rule, items, matches
            case nsPerItem = "ns_per_item"
            case compileMicroseconds = "compile_us"
            case programBytes = "program_bytes"
            case serializedBytes = "serialized_bytes"
            case sampleItems = "sample_items"
            case sampleMatches = "sample_matches"
            case engineItems = "engine_items"
            case spread = "ns_per_item_spread"
            case unavailable
            case speedup = "interpreter_over_engine"
            case nativeRatio = "engine_over_native_rows"
            case columnBuild = "column_build_ns_per_item"
            case oneShot = "batch_one_shot_ns_per_item"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(result.name, forKey: .name)
            try container.encode(result.rule, forKey: .rule)
            try container.encode(result.items, forKey: .items)
            try container.encode(result.matches, forKey: .matches)
            try container.encode(NullableFigures(perEngine(\.timing?.median)), forKey: .nsPerItem)
            try container.encode(result.compileMicroseconds, forKey: .compileMicroseconds)
            try container.encode(result.programBytes, forKey: .programBytes)
            try container.encode(result.serializedBytes, forKey: .serializedBytes)
            try container.encode(result.sampleItems, forKey: .sampleItems)
            try container.encode(result.sampleMatches, forKey: .sampleMatches)
            try container.encode(
                NullableFigures(perEngine { $0.timing == nil ? nil : Double($0.items) }), forKey: .engineItems)
            var spread: [String: Spread] = [:]
            var unavailable: [String: String] = [:]
            for figures in result.engines {
                if let timing = figures.timing { spread[figures.engine] = Spread(timing) }
                if let reason = figures.unavailable { unavailable[figures.engine] = reason }
            }
            try container.encode(spread, forKey: .spread)
            try container.encode(unavailable, forKey: .unavailable)
            let interpreter = result.nanosecondsPerItem(Engine.reference)
            let native = result.nanosecondsPerItem("native_rows")
            try container.encode(
                NullableFigures(perEngine { divide(interpreter, $0.timing?.median) }), forKey: .speedup)
            try container.encode(NullableFigures(perEngine { divide($0.timing?.median, native) }), forKey: .nativeRatio)
            try container.encode(columnBuildNanosecondsPerItem, forKey: .columnBuild)
            // What filtering items held in memory once costs with the batch engine: its columns
            // built, then one evaluation on one core.
            let oneShot = columnBuildNanosecondsPerItem.flatMap { build in
                result.nanosecondsPerItem("vm_batch").map { build + $0 }
            }
            try container.encode(oneShot, forKey: .oneShot)
        }

        private func perEngine(_ figure: (EvaluationBenchmark.EngineFigures) -> Double?) -> [(String, Double?)] {
            result.engines.map { ($0.engine, figure($0)) }
        }
    }

    struct ScalingEntry: Encodable {
        let point: ScalingBenchmark.Point

        enum CodingKeys: String, CodingKey {
            case workload, items
            case nsPerItem = "ns_per_item"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(point.workload, forKey: .workload)
            try container.encode(point.items, forKey: .items)
            try container.encode(
                NullableFigures(point.nanosecondsPerItem.map { ($0.engine, $0.value) }), forKey: .nsPerItem)
        }
    }

    /// Minimum, quartiles and maximum of the runs, in ns/item.
    struct Spread: Encodable {
        let min: Double
        let q1: Double
        let median: Double
        let q3: Double
        let max: Double

        init(_ timing: Timing) {
            (min, q1, median, q3, max) = (
                timing.minimum, timing.quantile(0.25), timing.median, timing.quantile(0.75), timing.maximum
            )
        }
    }

    /// An object with one key per engine, in engine order, whose value is a number or null.
    struct NullableFigures: Encodable {
        let entries: [(String, Double?)]

        init(_ entries: [(String, Double?)]) { self.entries = entries }

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in entries {
                if let value, value.isFinite {
                    try container.encode(value, forKey: Key(stringValue: key))
                } else {
                    try container.encodeNil(forKey: Key(stringValue: key))
                }
            }
        }
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
