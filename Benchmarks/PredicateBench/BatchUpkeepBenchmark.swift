import Foundation
import PredicateBatch
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// What a sync engine pays to keep the batch engine's columns current instead of building them
/// again (issue 14): one batch with the columns of several rules over all the items, then a 1%
/// append, a thousand replaced rows and a thousand removed rows, against building the batch anew
/// for the same items. And a rule with `$variables` the caller binds against the same rule with
/// the values written in, on the batch engine.
enum BatchUpkeepBenchmark {
    struct Result: Encodable {
        let items: Int
        let rebuildMilliseconds: Double
        let firstChangeMilliseconds: Double
        let appendMilliseconds: Double
        let appendedRows: Int
        let replaceMilliseconds: Double
        let replacedRows: Int
        let removeMilliseconds: Double
        let removedRows: Int
        let variablesNanosecondsPerItem: Double
        let constantsNanosecondsPerItem: Double

        enum CodingKeys: String, CodingKey {
            case items
            case rebuildMilliseconds = "rebuild_ms"
            case firstChangeMilliseconds = "first_change_ms"
            case appendMilliseconds = "append_ms"
            case appendedRows = "appended_rows"
            case replaceMilliseconds = "replace_ms"
            case replacedRows = "replaced_rows"
            case removeMilliseconds = "remove_ms"
            case removedRows = "removed_rows"
            case variablesNanosecondsPerItem = "variables_ns_per_item"
            case constantsNanosecondsPerItem = "constants_ns_per_item"
        }
    }

    /// Booleans, integers, a coded content type, mixed `userInfo` values and file names read in place.
    static let rules = [
        "isUploaded == NO AND documentSize > 1e6", "contentType.identifier UTI-CONFORMS-TO 'public.image'",
        "userInfo.rank >= 3", "filename ENDSWITH[c] '.pdf'",
    ]
    static let variableRule = "filename ENDSWITH[c] $ext AND documentSize > $limit"
    static let constantRule = "filename ENDSWITH[c] '.pdf' AND documentSize > 1000000"

    static func run(options: BenchmarkOptions, dataset: Dataset) -> Result? {
        let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
        func program(_ rule: String) -> BatchProgram? {
            guard let parsed = try? PredicateParser.parsePredicate(rule).predicate,
                let compiled = try? Compiler.compile(Binder.bind(parsed, selfType: itemType), source: rule)
            else { return nil }
            return BatchProgram(compiled)
        }
        let programs = rules.compactMap(program)
        guard programs.count == rules.count, let variables = program(variableRule),
            let constants = program(constantRule)
        else { return nil }
        let keyPaths = programs.flatMap(\.columnKeyPaths)
        let items = dataset.items
        let changed = max(1, items.count / 1000)
        let appended = Array(items.prefix(max(1, items.count / 100)))
        let clock = ContinuousClock()
        func milliseconds(_ body: () throws -> Void) -> Double {
            let start = clock.now
            do {
                try body()
            } catch {
                fail("batch upkeep: \(error)")
            }
            return seconds(clock.now - start) * 1e3
        }
        var batch = ColumnBatch(items: items, keyPaths: keyPaths)
        let rebuild = milliseconds { batch = ColumnBatch(items: items, keyPaths: keyPaths) }
        // The batch shares the dataset's array, which the benchmark still holds: the first change
        // copies it, once (a sync engine that hands its items over pays nothing here).
        let firstChange = milliseconds { try batch.replaceRow(0, with: items[0]) }
        let append = milliseconds { try batch.append(contentsOf: appended) }
        let stride = max(1, batch.count / changed)
        let replace = milliseconds {
            try batch.replaceRows((0..<changed).map { $0 * stride }, with: Array(items.prefix(changed)))
        }
        let remove = milliseconds { try batch.removeRows((0..<changed).map { $0 * stride }) }
        let bound: [String: Value] = ["ext": ".pdf", "limit": 1_000_000]
        let rowsBatch = ColumnBatch(items: items, keyPaths: variables.columnKeyPaths + constants.columnKeyPaths)
        let withVariables = Timing.onePassPerRun(runs: options.runs, units: items.count) {
            variables.evaluate(rowsBatch, variables: bound).matchCount
        }.median
        let withConstants = Timing.onePassPerRun(runs: options.runs, units: items.count) {
            constants.evaluate(rowsBatch).matchCount
        }.median
        let result = Result(
            items: items.count, rebuildMilliseconds: rebuild, firstChangeMilliseconds: firstChange,
            appendMilliseconds: append, appendedRows: appended.count,
            replaceMilliseconds: replace, replacedRows: changed, removeMilliseconds: remove, removedRows: changed,
            variablesNanosecondsPerItem: withVariables, constantsNanosecondsPerItem: withConstants)
        print("\nKeeping columns current (\(items.count) items, the columns of \(rules.count) rules; ms)")
        print(
            String(
                format: "  build anew %.1f   first change (copies the items the caller holds) %.1f", rebuild,
                firstChange))
        print(
            String(
                format: "  then: append %d rows %.1f   replace %d rows %.1f   remove %d rows %.1f", appended.count,
                append, changed, replace, changed, remove))
        print("$variables bound by the caller against the same values written in (batch, ns per item)")
        print(String(format: "  variables %.2f   constants %.2f", withVariables, withConstants))
        return result
    }
}
