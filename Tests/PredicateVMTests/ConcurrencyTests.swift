import Dispatch
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A compiled program is an immutable value: many threads evaluate it at once, each with its own
/// machine, and get exactly the serial answers.
@Suite struct ConcurrencyTests {
    static let rules = [
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.filename LIKE[c] '*.pdf').@count > 0",
        "ANY fileproviderItems.filename MATCHES '.*[0-9]+\\\\.txt' OR fileproviderItems.@count == 2",
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.image').@count > 0",
    ]

    static func contexts() -> [Value] {
        let types = ["com.adobe.pdf", "public.jpeg", "public.plain-text", "public.folder"]
        return (0..<400).map { index in
            let items = (0..<(1 + index % 3)).map { offset in
                var item = FileProviderItem(
                    itemIdentifier: "\(index)-\(offset)", parentItemIdentifier: "root",
                    filename: "file \(index + offset).\(["pdf", "txt", "JPG", "md"][(index + offset) % 4])")
                item.isUploaded = (index + offset) % 3 == 0
                item.contentType = UniformType(types[(index * 7 + offset) % types.count])
                return item
            }
            return FileProviderContext.activation(selectedItems: items)
        }
    }

    @Test(arguments: rules)
    func eightThreadsAgreeWithOne(_ rule: String) throws {
        let contexts = ConcurrencyTests.contexts()
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(Binder.bind(parsed, selfType: Binder.type(describing: contexts[0])))
        let environment = EvaluationEnvironment()
        var serialMachine = VirtualMachine(program: program, environment: environment)
        let serial = contexts.map { (try? serialMachine.evaluate(on: $0)) ?? false }

        let threads = 8
        let results = ResultBox(count: threads)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var machine = VirtualMachine(program: program, environment: environment)
            var answers: [Bool] = []
            for _ in 0..<5 {
                answers = contexts.map { (try? machine.evaluate(on: $0)) ?? false }
            }
            results.store(answers, at: thread)
        }
        for thread in 0..<threads { #expect(results.answers(at: thread) == serial, "thread \(thread)") }
        #expect(serial.contains(true) && serial.contains(false), "the rule should split the contexts")
    }
}

/// Results written by concurrent workers, each to its own slot.
private final class ResultBox: @unchecked Sendable {
    private var slots: [[Bool]]
    private let lock = NSLockLike()

    init(count: Int) { slots = Array(repeating: [], count: count) }

    func store(_ answers: [Bool], at index: Int) {
        lock.withLock { slots[index] = answers }
    }

    func answers(at index: Int) -> [Bool] {
        lock.withLock { slots[index] }
    }
}

/// A tiny mutex over a serial queue, so the test needs nothing beyond Dispatch.
private final class NSLockLike: Sendable {
    private let queue = DispatchQueue(label: "ConcurrencyTests.lock")
    func withLock<T>(_ body: () -> T) -> T { queue.sync(execute: body) }
}
