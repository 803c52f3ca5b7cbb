import Foundation
import PredicateSyntax
import PredicateValue

/// Parse throughput: how fast rule text becomes a syntax tree (and goes back to text).
enum ParseBenchmark {
    /// Realistic rules: File Provider activation rules (SPEC §5.1) and sync-engine item filters.
    static let corpus: [(name: String, rule: String)] = [
        ("bool", "isUploaded == NO"),
        ("numeric range", "documentSize > 1e6 AND documentSize <= 5000000000"),
        ("suffix [c]", "filename ENDSWITH[c] '.pdf'"),
        ("contains [cd]", "filename CONTAINS[cd] 'résumé'"),
        ("userInfo key", "userInfo.\"com.example.rank\" >= 3"),
        (
            "or of ands",
            "(isShared == YES AND isSharedByCurrentUser == NO) OR (isTrashed == NO AND favoriteRank != nil)"
        ),
        ("like", "filename LIKE[c] 'IMG_????.*'"),
        ("matches", "filename MATCHES '^[A-Z]{3}-[0-9]+\\\\.txt$'"),
        ("uti", "contentType.identifier UTI-CONFORMS-TO 'public.image'"),
        ("any tags", "ANY tags IN {'red', 'green', 'blue'}"),
        (
            "activation: uploaded",
            "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.isUploaded == YES).@count > 0"
        ),
        (
            "activation: test bit",
            "SUBQUERY(fileproviderItems, $fileproviderItem, "
                + "$fileproviderItem.userInfo.\"com.example.testBit\" == YES).@count > 0"
        ),
        (
            "activation: all folders",
            "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO \"public.folder\").@count "
                + "== fileproviderItems.@count"
        ),
        ("arithmetic", "(capabilities & 8) != 0 AND modulus:by:(childItemCount, 2) == 0 AND documentSize * 2 + 1 > 10"),
    ]

    struct Result: Encodable {
        let name: String
        let bytes: Int
        let parseNanoseconds: Timing
        let printNanoseconds: Timing

        var parseMegabytesPerSecond: Double { Double(bytes) / parseNanoseconds.median * 1e3 }
    }

    static func run(options: BenchmarkOptions) -> [Result] {
        var results: [Result] = []
        for (name, rule) in corpus where options.includes(name) {
            results.append(measure(name: name, rule: rule, options: options))
        }
        if options.includes("large") {
            let clauses = options.quick ? 200 : 5_000
            let large = (0..<clauses).map { "(documentSize > \($0) AND filename CONTAINS[c] 'part\($0)')" }
                .joined(separator: " OR ")
            results.append(measure(name: "large (\(large.utf8.count / 1024) KiB)", rule: large, options: options))
        }
        return results
    }

    private static func measure(name: String, rule: String, options: BenchmarkOptions) -> Result {
        // A benchmark of a rule that does not parse would measure the error path: refuse it.
        do {
            _ = try PredicateParser.parsePredicate(rule)
        } catch {
            print("benchmark rule '\(name)' does not parse:\n\(error.rendered())")
            exit(1)
        }
        let parse = Timing.measure(runs: options.runs, minimumSeconds: options.minimumRunSeconds, units: 1) {
            blackHole(try? PredicateParser.parsePredicate(rule))
        }
        let tree = try? PredicateParser.parsePredicate(rule).predicate
        let print = Timing.measure(runs: options.runs, minimumSeconds: options.minimumRunSeconds, units: 1) {
            blackHole(tree?.format)
        }
        return Result(name: name, bytes: rule.utf8.count, parseNanoseconds: parse, printNanoseconds: print)
    }

    static func printTable(_ results: [Result]) {
        print("Parsing (median of runs; spread = (max - min) / median)")
        print(column("rule", width: 26) + "  bytes     parse µs   spread    MB/s    print µs")
        for result in results {
            print(
                column(result.name, width: 26) + column(Double(result.bytes), decimals: 0, width: 7)
                    + column(result.parseNanoseconds.median / 1000, decimals: 2, width: 13)
                    + column(result.parseNanoseconds.spreadPercent, decimals: 0, width: 8) + "%"
                    + column(result.parseMegabytesPerSecond, decimals: 1, width: 8)
                    + column(result.printNanoseconds.median / 1000, decimals: 2, width: 12))
        }
        let totalBytes = results.reduce(0) { $0 + $1.bytes }
        let totalNanoseconds = results.reduce(0) { $0 + $1.parseNanoseconds.median }
        print("overall parse throughput: \(column(Double(totalBytes) / totalNanoseconds * 1e3, width: 0)) MB/s")
    }
}
