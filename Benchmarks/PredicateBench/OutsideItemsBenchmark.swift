import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// The scalar VM on items and rules we did not pick (issue 13): ``OutsideItem``s with the minimal
/// conformance, evaluated in place (`evaluate(items:into:)`), against the two interpreters a
/// skilled engineer would write instead (a tree-walker over an enum syntax tree and a closure
/// compiler, ``OutsideTree``) and a hand-written loop, all over the same array in one process.
enum OutsideItemsBenchmark {
    /// One rule's figures, ns per item.
    struct Result: Encodable {
        let name: String
        let rule: String
        let items: Int
        let matches: Int
        let vm: Double
        /// The VM on the same items conforming through a key-path table (``OutsideKeyPathItem``).
        let vmKeyPaths: Double
        let treeWalker: Double
        let closures: Double
        let native: Double

        enum CodingKeys: String, CodingKey {
            case name, rule, items, matches, vm, native
            case treeWalker = "tree_walker"
            case vmKeyPaths = "vm_key_path_table"
            case closures = "closure_compiler"
        }
    }

    /// Each rule on as many items as stay in the caches between passes (20,000: 2.2 MB of items,
    /// their strings and dictionaries about 12 MB more), then on ten times as many, which do not:
    /// a sync engine's batches are of both kinds, and the engines' costs differ between them.
    static func run(options: BenchmarkOptions) -> [Result] {
        let counts = options.quick ? [2_000] : [20_000, 200_000]
        return counts.flatMap { run(count: $0, options: options) }
    }

    private static func run(count: Int, options: BenchmarkOptions) -> [Result] {
        let items = OutsideItem.generate(count)
        let tableItems = items.map(OutsideKeyPathItem.init)
        let rules = OutsideRule.all.filter { options.filter.map($0.name.contains) ?? true }
        let results = rules.map { measure($0, items, tableItems, options) }
        guard !results.isEmpty else { return [] }
        print(
            "\nOutside items: a plain struct of \(MemoryLayout<OutsideItem>.stride) bytes, \(count) items, ns/item; vm with"
                + " the minimal KeyValueCoding conformance, vm (table) with a Queryable key-path table")
        print(
            "\(column("rule", width: 14)) \(column("vm", width: 9)) \(column("vm (table)", width: 11))"
                + " \(column("tree walker", width: 12)) \(column("closures", width: 9)) \(column("native", width: 8))"
                + "  vm ÷ walker  vm ÷ closures  table ÷ walker  table ÷ closures")
        for result in results {
            print(
                "\(column(result.name, width: 14))\(column(result.vm, width: 10))\(column(result.vmKeyPaths, width: 12))"
                    + "\(column(result.treeWalker, width: 13))\(column(result.closures, width: 10))"
                    + "\(column(result.native, width: 9))\(column(result.vm / result.treeWalker, decimals: 2, width: 13))"
                    + "\(column(result.vm / result.closures, decimals: 2, width: 15))"
                    + "\(column(result.vmKeyPaths / result.treeWalker, decimals: 2, width: 16))"
                    + "\(column(result.vmKeyPaths / result.closures, decimals: 2, width: 18))")
        }
        return results
    }

    private static func measure(
        _ rule: OutsideRule, _ items: [OutsideItem], _ tableItems: [OutsideKeyPathItem], _ options: BenchmarkOptions
    ) -> Result {
        func compile(_ schema: Schema) -> Program {
            do {
                let parsed = try PredicateParser.parsePredicate(rule.rule).predicate
                return try Compiler.compile(
                    Binder.bind(parsed, selfType: .object(SchemaReference(schema))), source: rule.rule)
            } catch {
                fail("\(rule.name): \(error)")
            }
        }
        var machine = VirtualMachine(program: compile(OutsideItem.schema))
        var tableMachine = VirtualMachine(program: compile(OutsideKeyPathItem.queryKeyPaths.schema))
        var answers = [Bool](repeating: false, count: items.count)
        return items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { fail("no items") }
            let vm = {
                answers.withUnsafeMutableBufferPointer { answers in
                    _ = machine.evaluate(items: buffer, into: answers)
                    return answers.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            let table = {
                tableItems.withUnsafeBufferPointer { tableBuffer in
                    answers.withUnsafeMutableBufferPointer { answers in
                        _ = tableMachine.evaluate(items: tableBuffer, into: answers)
                        return answers.reduce(0) { $0 + ($1 ? 1 : 0) }
                    }
                }
            }
            let walker = { OutsideRule.countMatches({ OutsideTree.test(rule.tree, $0) }, base, buffer.count) }
            // Compiled where it runs, once a pass (about a microsecond): the optimiser then knows
            // the outermost closure and runs it inline, as in a program that compiles a rule and
            // loops over its items in one place.
            let closures = { OutsideRule.countMatches(OutsideTree.compileTest(rule.tree), base, buffer.count) }
            let native = { rule.native.count(base, buffer.count) }
            // Every engine must find the same items before any is timed.
            let matches = vm()
            guard table() == matches, walker() == matches, closures() == matches, native() == matches else {
                fail("\(rule.name): the engines disagree (vm \(matches), walker \(walker()), native \(native()))")
            }
            // In turn, run by run, so that load from elsewhere spreads over all of them.
            var samples: [[Double]] = [[], [], [], [], []]
            for _ in 0..<options.runs {
                for (index, engine) in [vm, table, walker, closures, native].enumerated() {
                    samples[index].append(
                        Timing.onePassPerRun(runs: 1, units: buffer.count, engine).median)
                }
            }
            let medians = samples.map { Timing(samples: $0).median }
            return Result(
                name: rule.name, rule: rule.rule, items: buffer.count, matches: matches, vm: medians[0],
                vmKeyPaths: medians[1], treeWalker: medians[2], closures: medians[3], native: medians[4])
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("predicate-bench: outside items: \(message)\n".utf8))
        exit(1)
    }
}
