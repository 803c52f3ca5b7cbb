import Dispatch
import Foundation
import PredicateActions
import PredicateBatch
import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// Issue 18, deliverable 5: the public API from many threads at once, for ThreadSanitizer (CI runs
/// these suites under it) and for answers: every thread must get exactly the serial run's.
///
/// The VM and the batch engine each have their own concurrency suite (`ConcurrencyTests`,
/// `BatchConcurrencyTests`); these cover rule sets, and the whole pipeline a host runs per
/// request (parse, print, bind, compile, serialize and load, VM, interpreter, explain, batch,
/// `Info.plist` checking and actions), each thread from scratch, so that the process-wide state
/// behind it (pattern caches, the uniform-type registry, schema tables, lazily built
/// diagnostics) is shared by threads that race to fill it.
@Suite struct PublicAPIConcurrencyTests {
    static let threads = 8

    /// Rules touching every shared cache: `MATCHES` (the automaton, and ICU for a
    /// back-reference), `LIKE`, uniform types, `SUBQUERY`, functions, and errors.
    static let rules = [
        "name MATCHES 'f[0-9]+\\\\.pdf' OR name LIKE[c] '*.TXT'",
        "name MATCHES '(.)\\\\1.*'",
        "SUBQUERY(tags, $t, $t BEGINSWITH[cd] 'é' OR $t == 2).@count > 0",
        "kind UTI-CONFORMS-TO 'public.image' AND size > 10",
        "uppercase:(name) CONTAINS 'F' AND size BETWEEN {1, 100}",
        "size < 'ten'",
        "missing.key.path == 1 OR name ENDSWITH 'x'",
    ]

    static let objects: [Value] = (0..<24).map(object)

    static func object(_ index: Int) -> Value {
        let names = ["f\(index).pdf", "notes.txt", "zz\(index)", "Élan"]
        let kinds = ["public.jpeg", "com.adobe.pdf", "public.png"]
        let tags: [Value] = [.string(index % 2 == 0 ? "été" : "x"), .int(Int64(index % 3))]
        let fields: [String: Value] = [
            "name": .string(names[index % 4]), "size": .int(Int64(index * 7)), "kind": .string(kinds[index % 3]),
            "tags": .array(tags),
        ]
        return .dictionary(fields)
    }

    /// One thread's run of the whole pipeline, as text: for each rule, its printed form and
    /// each engine's answers, errors included.
    static func transcript() -> [String] {
        var lines: [String] = []
        let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: 100_000))
        for rule in rules {
            do {
                let predicate = try PredicateParser.parsePredicate(rule).predicate
                let loaded = try Program(bytes: try Compiler.compile(predicate, source: rule).serialized())
                var machine = VirtualMachine(program: loaded, environment: environment)
                let interpreter = Interpreter(environment: environment)
                let batch = BatchProgram(loaded, environment: environment).evaluate(objects)
                lines.append(predicate.format(.roundTripSafe))
                for (row, object) in objects.enumerated() {
                    let vm = outcome { () throws(EvaluationError) in try machine.evaluate(on: object) }
                    let interpreted = outcome { () throws(EvaluationError) in
                        try interpreter.evaluate(predicate, on: object)
                    }
                    let explained = "\(interpreter.explain(predicate, on: object).outcome)"
                    let batched =
                        batch.errors.first { $0.row == row }.map { describe($0.error) }
                        ?? "\(batch.matches(row))"
                    lines.append("\(row): vm \(vm) interpreter \(interpreted) batch \(batched) explain \(explained)")
                }
            } catch {
                lines.append("\(rule): \(error)")
            }
        }
        let plist = Array(Data(PropertyListSamples.info.utf8))
        let check = InfoPlistCheck(propertyListBytes: plist)
        lines += check.findings.map { "\($0.location.line ?? 0): \($0.message)" }
        if let actions = try? FileProviderActionList(propertyListBytes: plist) {
            let item = FileProviderItem(itemIdentifier: "1", parentItemIdentifier: "root", filename: "a.pdf")
            lines += actions.outcomes(selectedItems: [item]).map {
                "\($0.action.identifier): \($0.isEnabled) \($0.problem?.message ?? "")"
            }
        }
        return lines
    }

    @Test func eightThreadsAgreeWithOne() {
        let serial = Self.transcript()
        let transcripts = Slots<[String]>(count: Self.threads, empty: [])
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            transcripts.store(Self.transcript(), at: thread)
        }
        for thread in 0..<Self.threads { #expect(transcripts.value(at: thread) == serial, "thread \(thread)") }
        let answers = serial.joined(separator: "\n")
        #expect(answers.contains("true") && answers.contains("false") && answers.contains("error"))
    }
}

/// One rule set shared by many threads, each with its own evaluator (as the README says: one per
/// thread): every answer, errors and lazily built diagnostics included, equals the serial run's.
@Suite struct RuleSetConcurrencyTests {
    static let rules = [
        "isUploaded == NO", "isUploaded == NO AND documentSize > 4000",
        "filename MATCHES '.*[0-9]\\\\.pdf' OR filename LIKE[c] '*.TXT'", "documentSize < 'big'",
        "SUBQUERY(userInfo.tags, $t, $t == 'x').@count > 0", "userInfo.rank >= 3 OR favoriteRank == nil",
    ]

    static func answers(_ evaluator: inout RuleSet.Evaluator, _ items: [Value]) -> [String] {
        items.map { item in
            let answer = evaluator.evaluate(on: item)
            let problems = answer.problems.map { "\($0.rule): \($0.diagnostic.message)" }
            return "\(answer.bits) \(problems)"
        }
    }

    @Test func eightThreadsAgreeWithOne() throws {
        let ruleSet = try RuleSet(rules: Self.rules)
        let items: [Value] = (0..<300).map { index in
            var item = FileProviderItem(
                itemIdentifier: "\(index)", parentItemIdentifier: "root",
                filename: "f\(index).\(["pdf", "txt", "TXT", "md"][index % 4])")
            item.isUploaded = index % 3 == 0
            item.documentSize = Int64(index * 37)
            item.userInfo = ["rank": .int(Int64(index % 5)), "tags": .array([.string(index % 2 == 0 ? "x" : "y")])]
            item.favoriteRank = index % 4 == 0 ? UInt64(index) : nil
            return .object(item)
        }
        var serialEvaluator = ruleSet.makeEvaluator()
        let serial = Self.answers(&serialEvaluator, items)
        let results = Slots<[String]>(count: 8, empty: [])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var evaluator = ruleSet.makeEvaluator()
            var answers: [String] = []
            for _ in 0..<3 { answers = Self.answers(&evaluator, items) }
            results.store(answers, at: thread)
        }
        for thread in 0..<8 { #expect(results.value(at: thread) == serial, "thread \(thread)") }
        #expect(Set(serial).count > 2, "the rules should answer differently across the items")
        #expect(serial.allSatisfy { $0.contains("3: ") }, "rule 3 fails on every item")
    }
}

/// The `Info.plist` the pipeline transcript checks and runs: one action whose rule is true, one
/// false, one that does not parse.
enum PropertyListSamples {
    static let info = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSExtension</key><dict>
        <key>NSExtensionFileProviderActions</key><array>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>open</string>
        <key>NSExtensionFileProviderActionName</key><string>Open</string>
        <key>NSExtensionFileProviderActionActivationRule</key>
        <string>SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH 'pdf').@count > 0</string></dict>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>none</string>
        <key>NSExtensionFileProviderActionName</key><string>None</string>
        <key>NSExtensionFileProviderActionActivationRule</key>
        <string>fileproviderItems.@count > 5</string></dict>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>bad</string>
        <key>NSExtensionFileProviderActionName</key><string>Bad</string>
        <key>NSExtensionFileProviderActionActivationRule</key><string>a == </string></dict>
        </array></dict></dict></plist>
        """
}

/// Values written by concurrent workers, each to its own slot, behind a serial queue.
final class Slots<Element: Sendable>: @unchecked Sendable {
    private var slots: [Element]
    private let queue = DispatchQueue(label: "HardeningTests.slots")

    init(count: Int, empty: Element) { slots = Array(repeating: empty, count: count) }

    func store(_ value: Element, at index: Int) { queue.sync { slots[index] = value } }

    func value(at index: Int) -> Element { queue.sync { slots[index] } }
}

private func outcome(_ body: () throws(EvaluationError) -> Bool) -> String {
    do {
        return "\(try body())"
    } catch {
        return describe(error)
    }
}

private func describe(_ error: EvaluationError) -> String {
    "error \(error.kind) at \(error.range.map { "\($0)" } ?? "?"): \(error.message)"
}
