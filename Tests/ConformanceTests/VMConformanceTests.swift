import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// The conformance suite through the compiler and the VM, unprepared and bound to the object's
/// type: the same answers, errors and error positions as the interpreter.
@Suite struct VMConformanceTests {
    @Test(arguments: ConformanceFiles.all)
    func virtualMachine(_ testCase: ConformanceCase) {
        let outcome = VMConformanceTests.run(testCase, bound: false)
        testCase.check(outcome, engine: "vm")
        VMConformanceTests.expectSamePosition(outcome, InterpreterConformanceTests.run(testCase), testCase)
    }

    @Test(arguments: ConformanceFiles.all)
    func boundVirtualMachine(_ testCase: ConformanceCase) {
        testCase.check(VMConformanceTests.run(testCase, bound: true), engine: "vm (bound)")
    }

    static func expectSamePosition(
        _ vm: ConformanceOutcome, _ interpreter: ConformanceOutcome, _ testCase: ConformanceCase
    ) {
        if case .error(let vmError) = vm, case .error(let interpreterError) = interpreter {
            #expect(vmError.range == interpreterError.range, "error position differs: \(testCase.location)")
            #expect(vmError.message == interpreterError.message, "error message differs: \(testCase.location)")
        }
    }

    static func run(_ testCase: ConformanceCase, bound: Bool) -> ConformanceOutcome {
        let selfType = Binder.type(describing: testCase.object)
        let variableTypes = testCase.variables.mapValues { Binder.type(describing: $0) }
        return ConformanceOutcome.of {
            if testCase.isExpression {
                var expression = try PredicateParser.parseExpression(testCase.rule, arguments: testCase.arguments)
                    .expression
                if bound { expression = Binder.bind(expression, selfType: selfType, variables: variableTypes) }
                var machine = VirtualMachine(program: try Compiler.compile(expression, source: testCase.rule))
                return .value(try machine.evaluateExpression(on: testCase.object, variables: testCase.variables))
            }
            var predicate = try PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments).predicate
            if bound { predicate = Binder.bind(predicate, selfType: selfType, variables: variableTypes) }
            var machine = VirtualMachine(program: try Compiler.compile(predicate, source: testCase.rule))
            return .result(try machine.evaluate(on: testCase.object, variables: testCase.variables))
        }
    }
}
