import PredicateBatch
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// The conformance suite through the batch engine: each case's object in batches of 1, 7, 1024
/// and 5,000 rows (the last on two threads), between rows of `nil` and of an empty dictionary so
/// that every column has nils. Batches of 1 and 7 rows run for every case, 1,024 for every
/// second case and 5,000 for every eighth (by line number), which keeps the suite fast in debug
/// builds while every size meets every kind of rule. Every row of the case's object must give the case's answer, and
/// the other rows the scalar VM's.
@Suite struct BatchConformanceTests {
    static let sizes = [1, 7, 1024, 5000]

    @Test(arguments: ConformanceFiles.all.filter { !$0.isExpression })
    func batch(_ testCase: ConformanceCase) throws {
        guard let program = BatchConformanceTests.program(testCase) else { return }
        let batchProgram = BatchProgram(program)
        let fillers: [Value] = [.nil, .dictionary([:])]
        let fillerOutcomes = fillers.map { BatchConformanceTests.scalar(program, $0, testCase.variables) }
        let line = testCase.location.split(separator: ":").last.flatMap { Int($0) } ?? 0
        let sizes = BatchConformanceTests.sizes.filter { $0 < 1000 || ($0 < 5000 ? line % 2 == 0 : line % 8 == 0) }
        for size in sizes {
            // The object in every third row, so that chunks start on every kind of row.
            let rows = (0..<size).map { $0 % 3 == 0 ? testCase.object : fillers[($0 / 3) % 2] }
            let result = batchProgram.evaluate(rows, variables: testCase.variables, threads: size > 2048 ? 2 : 1)
            let errors = Dictionary(result.errors.map { ($0.row, $0.error) }, uniquingKeysWith: { first, _ in first })
            for row in 0..<size {
                let outcome: ConformanceOutcome = errors[row].map { .error($0) } ?? .result(result.matches(row))
                if row % 3 == 0 {
                    testCase.check(outcome, engine: "batch of \(size), row \(row)")
                    if row > 0 { continue }
                    VMConformanceTests.expectSamePosition(outcome, InterpreterConformanceTests.run(testCase), testCase)
                } else {
                    let expected = fillerOutcomes[(row / 3) % 2]
                    if !BatchConformanceTests.same(outcome, expected) {
                        Issue.record(
                            "\(testCase.location): batch of \(size), filler row \(row): \(outcome), scalar VM: \(expected)"
                        )
                        break
                    }
                }
            }
        }
    }

    /// The case's rule compiled, or `nil` when it is not meant to parse or compile.
    static func program(_ testCase: ConformanceCase) -> Program? {
        guard let parsed = try? PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments) else {
            return nil
        }
        return try? Compiler.compile(parsed.predicate, source: testCase.rule)
    }

    static func same(_ a: ConformanceOutcome, _ b: ConformanceOutcome) -> Bool {
        switch (a, b) {
        case (.result(let x), .result(let y)): return x == y
        case (.error(let x), .error(let y)): return x.kind == y.kind && x.range == y.range && x.message == y.message
        default: return false
        }
    }

    static func scalar(_ program: Program, _ object: Value, _ variables: [String: Value]) -> ConformanceOutcome {
        ConformanceOutcome.of {
            var machine = VirtualMachine(program: program)
            return .result(try machine.evaluate(on: object, variables: variables))
        }
    }
}
