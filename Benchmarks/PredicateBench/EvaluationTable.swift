import Foundation

/// The evaluation figures as plain-text tables on standard output.
enum EvaluationTable {
    static func print(_ results: [EvaluationBenchmark.Result], runs: Int) {
        guard let first = results.first else { return }
        let engines = first.engines.map(\.engine)
        let sampled = first.engines.filter { $0.items == first.sampleItems && $0.timing != nil }.map(\.engine)
        Swift.print(
            "\nEvaluation: median ns/item over \(runs) runs after a warm-up, ± (max − min) / median;"
                + " \(first.items) items, \(first.sampleItems) for \(sampled.joined(separator: ", "))")
        Swift.print(column("rule", width: 26) + engines.map { wide(heading($0)) }.joined())
        for result in results {
            let cells = result.engines.map { figures -> String in
                guard let timing = figures.timing else { return wide(cell(nil, orElse: figures.unavailable ?? "—")) }
                let spread = timing.spreadPercent.isFinite ? " ±\(Int(timing.spreadPercent.rounded()))%" : ""
                let text = column(timing.median, decimals: decimals(for: timing.median), width: 0) + spread
                return String(repeating: " ", count: max(1, 15 - text.count)) + text
            }
            Swift.print(column(result.name, width: 26) + cells.joined())
        }

        Swift.print("\nRatios: interpreter ÷ engine (× faster than the interpreter) | engine ÷ native_rows")
        let others = engines.filter { $0 != Engine.reference }
        let relative = engines.filter { $0 != "native_rows" }
        Swift.print(
            column("rule", width: 26) + others.map { narrow($0) }.joined() + " |" + relative.map { narrow($0) }.joined()
        )
        var speedups: [String: [Double]] = [:]
        var natives: [String: [Double]] = [:]
        for result in results {
            let interpreter = result.nanosecondsPerItem(Engine.reference)
            let native = result.nanosecondsPerItem("native_rows")
            let left = others.map { engine -> String in
                let ratio = divide(interpreter, result.nanosecondsPerItem(engine))
                if let ratio { speedups[engine, default: []].append(ratio) }
                return ratioCell(ratio)
            }
            let right = relative.map { engine -> String in
                let ratio = divide(result.nanosecondsPerItem(engine), native)
                if let ratio { natives[engine, default: []].append(ratio) }
                return ratioCell(ratio)
            }
            Swift.print(column(result.name, width: 26) + left.joined() + " |" + right.joined())
        }
        Swift.print(
            column("geometric mean", width: 26) + others.map { ratioCell(geometricMean(speedups[$0])) }.joined() + " |"
                + relative.map { ratioCell(geometricMean(natives[$0])) }.joined())

        Swift.print("\nPer rule: matches, bind + compile time, program size")
        Swift.print(
            column("rule", width: 26) + "      items    matches     sample  sample matches  compile µs  program B"
                + "  serialized B")
        for result in results {
            Swift.print(
                column(result.name, width: 26) + column(Double(result.items), decimals: 0, width: 11)
                    + column(Double(result.matches), decimals: 0, width: 11)
                    + column(Double(result.sampleItems), decimals: 0, width: 11)
                    + column(Double(result.sampleMatches), decimals: 0, width: 16)
                    + column(result.compileMicroseconds, decimals: 1, width: 12)
                    + column(Double(result.programBytes), decimals: 0, width: 11)
                    + column(Double(result.serializedBytes), decimals: 0, width: 14))
        }
        Swift.print(
            "\n—: the engine cannot run the rule (the reason is in its column)."
                + "\n#Predicate: \(WorkloadLadder.foundationLimits)."
                + "\nidiomatic: what an ordinary Swift developer writes with Foundation (lowercased(),"
                + " range(of:options:), NSRegularExpression, a Set), on the items in place as native_rows reads them."
                + "\nActivation rules: one context per item (selecting it and the next 0–2 items), or one context"
                + " selecting every item (ns per selected item).")
    }

    private static func wide(_ text: String) -> String { String(repeating: " ", count: max(1, 15 - text.count)) + text }

    private static func narrow(_ engine: String) -> String {
        let short = [
            "interpreter": "interp", "foundation_predicate": "#Pred", "native_rows": "rows", "native_columns": "cols",
            "vm_batch": "batch", "vm_batch_all_cores": "batch*", "vm_per_call": "vm 1×1",
            "vm_batch_with_columns": "batch+c", "one_line_indices": "1-idx",
            "batch_filter_by_hand": "by hand", "one_line_filter": "1-line", "idiomatic": "idiom",
        ][engine, default: engine]
        return String(repeating: " ", count: max(1, 8 - short.count)) + short
    }

    private static func ratioCell(_ ratio: Double?) -> String {
        guard let ratio, ratio.isFinite else { return "       —" }
        return column(ratio, decimals: decimals(for: ratio), width: 8)
    }
}

func divide(_ numerator: Double?, _ denominator: Double?) -> Double? {
    guard let numerator, let denominator, denominator > 0, numerator.isFinite, denominator.isFinite else { return nil }
    return numerator / denominator
}

func geometricMean(_ values: [Double]?) -> Double? {
    guard let values, !values.isEmpty, values.allSatisfy({ $0 > 0 }) else { return nil }
    return exp(values.map { log($0) }.reduce(0, +) / Double(values.count))
}
