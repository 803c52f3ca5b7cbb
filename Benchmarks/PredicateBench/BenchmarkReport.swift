import Foundation

/// Everything one run measured, as written by `--json FILE`.
struct BenchmarkReport: Encodable {
    let machine: MachineDescription
    let parse: [ParseBenchmark.Result]
    let evaluation: [EvaluationBenchmark.Result]

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
