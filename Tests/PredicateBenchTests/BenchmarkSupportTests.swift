import Foundation
import Testing

@testable import predicate_bench

// The benchmark's own logic: option parsing, statistics, the JSON and SVG writers, and — the part a
// wrong figure would come from — every hand-written engine agreeing with the interpreter.

@Test(
    arguments: [
        (["--items", "1e6"], 1_000_000, nil),
        (["--items", "1_000"], 1_000, nil),
        (["--items", "0"], nil, "--items needs a whole number between 1 and 100,000,000, not '0'"),
        (["--items", "2.5"], nil, "--items needs a whole number between 1 and 100,000,000, not '2.5'"),
        (["--items", "1e9"], nil, "--items needs a whole number between 1 and 100,000,000, not '1e9'"),
        (["--items"], nil, "--items needs a value"),
        (["--bogus"], nil, "unknown option --bogus"),
    ] as [([String], Int?, String?)])
func itemCountOptions(arguments: [String], items: Int?, problem: String?) {
    let options = BenchmarkOptions(arguments: arguments)
    #expect(options.problem == problem)
    if let items { #expect(options.items == items) }
}

@Test func sizesAreSortedAndTheSampleNeverExceedsTheItems() {
    let options = BenchmarkOptions(arguments: ["--sizes", "1e4,1e3", "--items", "500", "--sample", "1e6"])
    #expect(options.problem == nil)
    #expect(options.sizes == [1_000, 10_000])
    #expect(options.sampleItems == 500)
    #expect(options.generatedItems == 10_000)
    #expect(BenchmarkOptions(arguments: ["--sizes", "1e3,x"]).problem != nil)
    #expect(BenchmarkOptions(arguments: ["--runs", "9"]).runs == 9)
    #expect(BenchmarkOptions(arguments: ["--quick"]).runs == 2)
    #expect(BenchmarkOptions(arguments: ["--scaling", "none"]).scalingWorkloads.isEmpty)
    #expect(BenchmarkOptions(arguments: ["--scaling", "none", "--items", "7"]).generatedItems == 7)
}

@Test func timingQuantilesInterpolate() {
    let timing = Timing(samples: [4, 1, 3, 2])
    #expect(timing.median == 2.5)
    #expect(timing.quantile(0.25) == 1.75)
    #expect(timing.minimum == 1)
    #expect(timing.maximum == 4)
    #expect(abs(timing.spreadPercent - 120) < 1e-9)
    #expect(Timing(samples: []).median.isNaN)
}

@Test func engineFiguresEncodeMissingValuesAsNull() throws {
    let figures = BenchmarkReport.NullableFigures([("vm", 1.5), ("vm_batch", nil), ("native_rows", .nan)])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(figures), as: UTF8.self)
    #expect(text == #"{"native_rows":null,"vm":1.5,"vm_batch":null}"#)
}

@Test func theEngineListHasEveryColumnOfTheReport() {
    #expect(
        Engine.all.map(\.name) == [
            "interpreter", "vm", "vm_per_call", "vm_unfused", "vm_batch", "vm_batch_all_cores", "vm_batch_with_columns",
            "one_line_indices", "batch_filter_by_hand",
            "one_line_filter", "foundation_predicate", "idiomatic",
            "native_rows", "native_columns",
        ])
}

@Test func svgTextIsEscapedAndTheDocumentIsComplete() {
    #expect(SVGText.escaped(#"a < b & "c" > d"#) == "a &lt; b &amp; &quot;c&quot; &gt; d")
    var svg = SVGText()
    svg.text("x & y", x: 1, y: 2, size: 3)
    svg.polyline([(0, 0), (1, 1)], stroke: "#000")
    let document = svg.document(width: 10, height: 20)
    #expect(document.hasPrefix("<?xml"))
    #expect(document.hasSuffix("</svg>\n"))
    #expect(document.contains(">x &amp; y</text>"))
    #expect(document.contains(#"points="0.0,0.0 1.0,1.0""#))
}

@Test func generatedItemsAreAFixedSequence() {
    var first = ItemGenerator(seed: 0x5EED)
    var second = ItemGenerator(seed: 0x5EED)
    #expect(first.items(10) == Array(second.items(20).prefix(10)))
}

/// Every engine that can run a workload finds the interpreter's matches, on every prefix size
/// used here: the check the benchmark makes on each run, on a small set.
@Test(arguments: WorkloadLadder.all.map(\.name))
func everyEngineAgreesWithTheInterpreter(workload name: String) throws {
    let workload = try #require(WorkloadLadder.all.first { $0.name == name })
    let dataset = Dataset(count: 400, sampleLimit: 400)
    let compiled = EvaluationBenchmark.compile(workload)
    let input = EngineInput(
        workload: workload, predicate: compiled.predicate, program: compiled.program,
        environment: .init(), dataset: dataset)
    var counts: [String: [Int]] = [:]
    for engine in Engine.all {
        guard case .runner(let runner) = engine.prepare(input) else { continue }
        counts[engine.name] = [1, 37, 400].map { runner($0) }
    }
    let expected = try #require(counts["interpreter"])
    #expect(counts.count >= 4)
    for (engine, found) in counts { #expect(found == expected, "\(engine) on '\(name)'") }
}

@Test func theDatabaseStageIsSmallUnderQuickAndCanBeSkipped() {
    #expect(BenchmarkOptions(arguments: []).databaseRows == 1_000_000)
    #expect(BenchmarkOptions(arguments: ["--quick"]).databaseRows == 20_000)
    #expect(BenchmarkOptions(arguments: ["--database-rows", "5e3"]).databaseRows == 5_000)
    #expect(BenchmarkOptions(arguments: []).database)
    #expect(!BenchmarkOptions(arguments: ["--no-database"]).database)
    #expect(BenchmarkOptions(arguments: []).databaseRuns == 3)
    #expect(BenchmarkOptions(arguments: ["--runs", "7"]).databaseRuns == 7)
    #expect(
        BenchmarkOptions(arguments: ["--database-rows", "0"]).problem
            == "--database-rows needs a whole number between 1 and 100,000,000, not '0'")
}

/// The database stage on a few thousand rows: every engine (each push-down, the VM and the batch
/// engine on the loaded rows) must find the same rows, or the stage stops the process; the
/// report has a figure for every SQLite engine and says why PostgreSQL is missing, if it is.
@Test func theDatabaseStageAgreesAcrossEngines() throws {
    let options = BenchmarkOptions(arguments: ["--quick", "--database-rows", "2000", "--runs", "1"])
    let dataset = Dataset(count: 200, sampleLimit: 200)  // fewer than the rows: the stage generates its own
    let result = DatabaseBenchmark.run(options: options, dataset: dataset)
    #expect(result.rows == 2_000)
    #expect(result.workloads.map(\.rule) == DatabaseBenchmark.rules.map(\.text))
    for workload in result.workloads {
        #expect(workload.matches > 0, "\(workload.rule)")
        #expect(workload.exact["sqlite"] == true, "\(workload.rule)")
        for engine in ["sqlite_pushdown", "sqlite_pushdown_indexed", "sqlite_load_vm", "sqlite_load_batch"] {
            #expect(workload.nanosecondsPerItem(engine) != nil, "\(engine) on \(workload.rule)")
        }
    }
    #expect((result.postgresSkipped == nil) == (result.loadNanosecondsPerRow["postgres"] != nil))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(result), as: UTF8.self)
    #expect(text.contains(#""ns_per_item":{"#))
    #expect(text.contains(#""rows_per_second":{"#))
    #expect(text.contains(#""translation_us":{"postgres":"#))
}
