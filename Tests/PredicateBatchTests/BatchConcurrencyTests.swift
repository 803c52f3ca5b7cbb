import Dispatch
import PredicateBatch
import PredicateFileProvider
import PredicateValue
import Testing

/// One batch program and one batch shared by eight threads at once, each evaluation itself on
/// one or two threads: every answer equals the serial run's, errors included.
@Suite struct BatchConcurrencyTests {
    static let rules = [
        "isUploaded == NO AND documentSize > 4000", "filename ENDSWITH[c] '.pdf' OR userInfo.rank >= 3",
        "contentType.identifier UTI-CONFORMS-TO 'public.image' AND NOT (favoriteRank == nil)",
    ]

    @Test(arguments: rules)
    func eightThreadsAgreeWithOne(_ rule: String) throws {
        let program = BatchProgram(try TestRules.program(rule))
        let batch = ColumnBatch(items: TestItems.make(6000), for: program)
        let serial = TestRules.outcomes(program.evaluate(batch))
        let answers = Answers(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var outcomes: [String] = []
            for _ in 0..<3 { outcomes = TestRules.outcomes(program.evaluate(batch, threads: 1 + thread % 2)) }
            answers.store(outcomes, at: thread)
        }
        for thread in 0..<8 { #expect(answers.outcomes(at: thread) == serial, "thread \(thread)") }
        #expect(serial.contains("true") && serial.contains("false"), "the rule should split the items")
    }
}

/// Answers written by concurrent workers, each to its own slot, behind a serial queue.
private final class Answers: @unchecked Sendable {
    private var slots: [[String]]
    private let queue = DispatchQueue(label: "BatchConcurrencyTests.answers")

    init(count: Int) { slots = Array(repeating: [], count: count) }

    func store(_ outcomes: [String], at index: Int) { queue.sync { slots[index] = outcomes } }

    func outcomes(at index: Int) -> [String] { queue.sync { slots[index] } }
}
