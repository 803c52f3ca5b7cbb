import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Rule sets: several rules answered in one pass of one program (work shared between rules)
/// against the same rules compiled and run one by one, over the same inputs. Both must give the
/// same answers, or the run stops. Self-contained (its own inputs and clock) so that it does not
/// depend on the rest of the benchmark's helpers.
enum RuleSetBenchmark {
    /// A sync engine's per-item rules: several read the same fields and repeat clauses.
    static let itemRules = [
        "isUploaded == NO", "isUploaded == NO AND documentSize > 1e6", "documentSize > 1e6 AND isTrashed == NO",
        "isTrashed == NO AND (isShared == YES OR favoriteRank != nil)",
        "filename ENDSWITH[c] '.pdf' AND isUploaded == NO",
        "filename ENDSWITH[c] '.pdf' OR filename ENDSWITH[c] '.txt'", "isShared == YES AND isTrashed == NO",
        "documentSize > 1e6 OR isShared == YES",
    ]

    /// An extension's activation rules over selections of 1–3 items (SPEC §5.1 idioms).
    static let activationRules = [
        "fileproviderItems.@count > 0", "fileproviderItems.@count == 1",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count == 0 AND fileproviderItems.@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count == "
            + "fileproviderItems.@count",
        "fileproviderItems.@count == 1 AND SUBQUERY(fileproviderItems, $i, $i.isShared == YES).@count == 1",
    ]

    /// Runs both comparisons and prints their table.
    static func run(quick: Bool) {
        print("\nRule sets: one program for all rules vs each rule alone (ns per input, all rules)")
        print(
            column("workload", width: 34) + column("rules", width: 7) + column("one by one", width: 12)
                + column("rule set", width: 12) + column("ratio", width: 8))
        let count = quick ? 2_000 : 50_000
        var inputs = Inputs(seed: 42)
        let items = (0..<count).map { inputs.item($0) }
        let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
        compare(
            "per item", itemRules, items.map { Value.object($0) }, selfType: itemType, quick: quick)
        let selections = (0..<count).map { index in
            FileProviderContext.activation(selectedItems: (0...(index % 3)).map { items[(index + $0) % count] })
        }
        let contextType = ValueType.record([
            FileProviderContext.selectionKey: .array(.object(SchemaReference(FileProviderItem.schema)))
        ])
        compare("per selection (activation)", activationRules, selections, selfType: contextType, quick: quick)
    }

    private static func compare(_ name: String, _ rules: [String], _ inputs: [Value], selfType: ValueType, quick: Bool)
    {
        let bound: [(predicate: PredicateSyntax.PredicateNode, source: String)]
        let programs: [Program]
        let ruleSet: Program
        do {
            bound = try rules.map { rule in
                (Binder.bind(try PredicateParser.parsePredicate(rule).predicate, selfType: selfType), rule)
            }
            programs = try bound.map { try Compiler.compile($0.predicate, source: $0.source) }
            ruleSet = try Compiler.compileRuleSet(bound)
        } catch {
            fail("\(name): \(error)")
        }
        var machines = programs.map { VirtualMachine(program: $0) }
        var setMachine = VirtualMachine(program: ruleSet)

        // The answers must agree before anything is timed.
        for input in inputs {
            let together = setMachine.evaluateRules(on: input)
            for index in machines.indices {
                let alone = (try? machines[index].evaluate(on: input)) ?? false
                guard together.isSatisfied(index) == alone else {
                    fail("\(name): rule \(index) disagrees: rule set \(!alone), alone \(alone)")
                }
            }
        }
        let runs = quick ? 1 : 5
        let oneByOne = Timing.onePassPerRun(runs: runs, units: inputs.count) {
            var matches = 0
            for input in inputs {
                for index in machines.indices where (try? machines[index].evaluate(on: input)) == true { matches += 1 }
            }
            return matches
        }.median
        let together = Timing.onePassPerRun(runs: runs, units: inputs.count) {
            var matches = 0
            for input in inputs { matches += setMachine.evaluateRules(on: input).mask.nonzeroBitCount }
            return matches
        }.median
        print(
            column(name, width: 34) + column("\(rules.count)", width: 7) + column(oneByOne, width: 12)
                + column(together, width: 12) + column(oneByOne / together, decimals: 2, width: 8))
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("predicate-bench: rule sets: \(message)\n".utf8))
        exit(1)
    }

    private static func column(_ text: String, width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func column(_ value: Double, decimals: Int = 0, width: Int) -> String {
        column(String(format: "%.\(decimals)f", value), width: width)
    }

    /// Deterministic File Provider items (SplitMix64).
    private struct Inputs {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }

        mutating func item(_ index: Int) -> FileProviderItem {
            let names = ["Report \(index).pdf", "notes \(index).txt", "IMG_\(index).JPG", "Folder \(index)"]
            let types = ["com.adobe.pdf", "public.plain-text", "public.jpeg", "public.folder"]
            let kind = next(4)
            var item = FileProviderItem(
                itemIdentifier: "id-\(index)", parentItemIdentifier: "root", filename: names[kind])
            item.contentType = UniformType(types[kind])
            item.isUploaded = next(10) < 7
            item.isShared = next(4) == 0
            item.isTrashed = next(20) == 0
            item.documentSize = kind == 3 ? nil : Int64(next(20_000_000))
            item.favoriteRank = next(10) == 0 ? UInt64(next(100)) : nil
            return item
        }
    }
}
