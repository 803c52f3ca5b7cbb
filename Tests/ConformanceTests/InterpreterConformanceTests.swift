import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// The conformance suite through the reference interpreter.
@Suite struct InterpreterConformanceTests {
    @Test(arguments: ConformanceFiles.all)
    func interpreter(_ testCase: ConformanceCase) {
        testCase.check(InterpreterConformanceTests.run(testCase), engine: "interpreter")
    }

    /// The suite keeps covering SPEC §4, §5 and §7: deleting a case file cannot go unnoticed.
    @Test func suiteIsComplete() {
        #expect(ConformanceFiles.all.count >= 450, "only \(ConformanceFiles.all.count) conformance cases")
    }

    static func run(_ testCase: ConformanceCase) -> ConformanceOutcome {
        let interpreter = Interpreter()
        return ConformanceOutcome.of {
            if testCase.isExpression {
                let expression = try PredicateParser.parseExpression(testCase.rule, arguments: testCase.arguments)
                return .value(
                    try interpreter.evaluate(expression.expression, on: testCase.object, variables: testCase.variables))
            }
            let predicate = try PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments)
            return .result(
                try interpreter.evaluate(predicate.predicate, on: testCase.object, variables: testCase.variables))
        }
    }
}
