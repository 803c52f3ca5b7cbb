import Foundation
import PredicateBytecode
import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Evaluation: the reference interpreter, the scalar VM and hand-written Swift on the same items,
/// rule by rule. Every engine's match count must equal the interpreter's, or the run stops.
enum EvaluationBenchmark {
    /// One rung of the ladder: a rule, what it runs on, and the same test written by hand.
    struct Workload: Sendable {
        enum Target: Sendable {
            /// `SELF` is one item.
            case item(@Sendable (FileProviderItem) -> Bool)
            /// `SELF` is an activation context holding a selection of 1–3 items.
            case selection(@Sendable ([FileProviderItem]) -> Bool)
        }

        let name: String
        let rule: String
        let target: Target
    }

    private static let registry = UniformTypeRegistry.system
    private static let matchesExpression = try? NSRegularExpression(
        pattern: "^(?:[A-Za-z_]+ [0-9]+\\.txt)\\z", options: [.dotMatchesLineSeparators, .anchorsMatchLines])

    static let ladder: [Workload] = [
        Workload(name: "bool", rule: "isUploaded == NO", target: .item { !$0.isUploaded }),
        Workload(
            name: "numeric range", rule: "documentSize > 1e6 AND documentSize <= 5000000000",
            target: .item { item in item.documentSize.map { Double($0) > 1e6 && $0 <= 5_000_000_000 } ?? false }),
        Workload(
            name: "suffix [c]", rule: "filename ENDSWITH[c] '.pdf'",
            target: .item { $0.filename.lowercased().hasSuffix(".pdf") }),
        Workload(
            name: "contains [cd]", rule: "filename CONTAINS[cd] 'resume'",
            target: .item {
                $0.filename.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).contains("resume")
            }),
        Workload(
            name: "userInfo key", rule: "userInfo.rank >= 3",
            target: .item { item in
                if case .int(let rank)? = item.userInfo?["rank"] { return rank >= 3 }
                return false
            }),
        Workload(
            name: "or of ands",
            rule: "(isShared == YES AND isSharedByCurrentUser == NO) OR (isTrashed == NO AND favoriteRank != nil)",
            target: .item { ($0.isShared && !$0.isSharedByCurrentUser) || (!$0.isTrashed && $0.favoriteRank != nil) }),
        Workload(
            name: "like [c]", rule: "filename LIKE[c] 'img_*'",
            target: .item { $0.filename.lowercased().hasPrefix("img_") }),
        Workload(
            name: "matches", rule: "filename MATCHES '[A-Za-z_]+ [0-9]+\\\\.txt'",
            target: .item { item in
                let range = NSRange(item.filename.startIndex..., in: item.filename)
                return matchesExpression?.firstMatch(in: item.filename, range: range) != nil
            }),
        Workload(
            name: "uti", rule: "contentType.identifier UTI-CONFORMS-TO 'public.image'",
            target: .item { item in
                item.contentType.map { registry.conforms($0.identifier, to: "public.image") } ?? false
            }),
        Workload(
            name: "any tags", rule: "ANY userInfo.tags IN {'red', 'green'}",
            target: .item { item in
                guard case .array(let tags)? = item.userInfo?["tags"] else { return false }
                return tags.contains { $0 == .string("red") || $0 == .string("green") }
            }),
        Workload(
            name: "activation: uploaded",
            rule: "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.isUploaded == YES).@count > 0",
            target: .selection { $0.contains { $0.isUploaded } }),
        Workload(
            name: "activation: test bit",
            rule: "SUBQUERY(fileproviderItems, $i, $i.userInfo.\"com.example.testBit\" == YES).@count > 0",
            target: .selection { items in items.contains { $0.userInfo?["com.example.testBit"] == .bool(true) } }),
        Workload(
            name: "activation: all folders",
            rule: "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count "
                + "== fileproviderItems.@count",
            target: .selection { items in
                items.allSatisfy { item in
                    item.contentType.map { registry.conforms($0.identifier, to: "public.folder") } ?? false
                }
            }),
    ]

    struct Result: Encodable {
        let name: String
        let rule: String
        let items: Int
        let matches: Int
        let nanosecondsPerItem: [String: Double]
        let spreadPercent: [String: Double]
        let compileMicroseconds: Double
        let programBytes: Int
    }

    static func run(options: BenchmarkOptions) -> [Result] {
        let count = options.quick ? 2_000 : 50_000
        var generator = ItemGenerator(seed: 0x5EED)
        let items = generator.items(count)
        let itemValues = items.map { Value.object($0) }
        let selections = (0..<count).map { index in Array(items[index..<min(count, index + 1 + index % 3)]) }
        let selectionValues = selections.map { FileProviderContext.activation(selectedItems: $0) }
        let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
        let contextType = ValueType.record([
            FileProviderContext.selectionKey: .array(itemType)
        ])
        let runs = options.quick ? 2 : 5

        var results: [Result] = []
        for workload in ladder where options.includes(workload.name) {
            let objects: [Value]
            let selfType: ValueType
            let native: () -> Int
            switch workload.target {
            case .item(let test):
                (objects, selfType) = (itemValues, itemType)
                native = { items.reduce(0) { $0 + (test($1) ? 1 : 0) } }
            case .selection(let test):
                (objects, selfType) = (selectionValues, contextType)
                native = { selections.reduce(0) { $0 + (test($1) ? 1 : 0) } }
            }
            guard let parsed = try? PredicateParser.parsePredicate(workload.rule).predicate else {
                print("benchmark rule '\(workload.name)' does not parse")
                exit(1)
            }
            let interpreter = Interpreter()
            let clock = ContinuousClock()
            var program: Program?
            let compileStart = clock.now
            for _ in 0..<100 {
                program = try? Compiler.compile(Binder.bind(parsed, selfType: selfType), source: workload.rule)
            }
            let compileTime = clock.now - compileStart
            guard let program else {
                print("benchmark rule '\(workload.name)' does not compile")
                exit(1)
            }
            var machine = VirtualMachine(program: program, environment: interpreter.environment)

            var counts: [String: Int] = [:]
            let engines: [(String, () -> Int)] = [
                (
                    "interpreter",
                    { objects.reduce(0) { $0 + ((try? interpreter.evaluate(parsed, on: $1)) == true ? 1 : 0) } }
                ),
                ("vm", { objects.reduce(0) { $0 + ((try? machine.evaluate(on: $1)) == true ? 1 : 0) } }),
                ("native_rows", native),
            ]
            var timings: [String: Timing] = [:]
            for (engine, body) in engines {
                counts[engine] = body()
                var samples: [Double] = []
                for _ in 0..<runs {
                    let start = clock.now
                    blackHole(body())
                    let elapsed = clock.now - start
                    samples.append(nanoseconds(elapsed) / Double(objects.count))
                }
                timings[engine] = Timing(samples: samples)
            }
            let expected = counts["interpreter"] ?? -1
            for (engine, matches) in counts where matches != expected {
                print("MISMATCH on '\(workload.name)': \(engine) found \(matches) matches, the interpreter \(expected)")
                exit(1)
            }
            results.append(
                Result(
                    name: workload.name, rule: workload.rule, items: objects.count, matches: expected,
                    nanosecondsPerItem: timings.mapValues(\.median), spreadPercent: timings.mapValues(\.spreadPercent),
                    compileMicroseconds: nanoseconds(compileTime) / 100 / 1000, programBytes: program.codeSize))
        }
        return results
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    static func printTable(_ results: [Result]) {
        guard !results.isEmpty else { return }
        print("\nEvaluation, \(results[0].items) objects (median ns/object; interpreter ÷ vm and vm ÷ native)")
        print(
            column("rule", width: 26)
                + "matches   interpreter        vm    native   interp/vm  vm/native  compile µs  bytes")
        var speedups: [Double] = []
        for result in results {
            let interpreter = result.nanosecondsPerItem["interpreter"] ?? .nan
            let vm = result.nanosecondsPerItem["vm"] ?? .nan
            let native = result.nanosecondsPerItem["native_rows"] ?? .nan
            speedups.append(interpreter / vm)
            print(
                column(result.name, width: 26) + column(Double(result.matches), decimals: 0, width: 7)
                    + column(interpreter, width: 14) + column(vm, width: 10) + column(native, width: 10)
                    + column(interpreter / vm, decimals: 2, width: 12) + column(vm / native, decimals: 1, width: 11)
                    + column(result.compileMicroseconds, decimals: 1, width: 12)
                    + column(Double(result.programBytes), decimals: 0, width: 7))
        }
        let geometricMean = exp(speedups.map { log($0) }.reduce(0, +) / Double(speedups.count))
        print("interpreter ÷ vm, geometric mean: \(column(geometricMean, decimals: 2, width: 0))×")
    }
}
