import PredicateBytecode
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// The limits are real: each stops what it should, in both engines alike, and raising it lets
/// the same work through.
@Suite struct LimitsTests {
    struct CompileCase: Sendable, CustomTestStringConvertible {
        let rule: String
        let limits: ProgramLimits
        let expected: String
        var testDescription: String { rule }
    }

    static let compileCases: [CompileCase] = [
        .init(rule: "a == 1", limits: ProgramLimits(maximumInstructions: 4), expected: "compiled"),
        .init(
            rule: "a == 1 AND b == 2", limits: ProgramLimits(maximumInstructions: 3),
            expected: "the rule compiles to 8 instructions, more than the limit of 3"),
        .init(
            rule: "a IN {'x', 'y'} OR b == 'z'", limits: ProgramLimits(maximumConstants: 1),
            expected: "the rule needs 2 constants, more than the limit of 1"),
    ]

    @Test(arguments: compileCases)
    func compilerEnforcesProgramLimits(_ testCase: CompileCase) throws {
        let predicate = try PredicateParser.parsePredicate(testCase.rule).predicate
        do {
            _ = try Compiler.compile(predicate, limits: testCase.limits)
            #expect(testCase.expected == "compiled")
        } catch {
            #expect(error.message == testCase.expected)
        }
    }

    /// `(a+)+$` on forty `a`s and `!`: stopped by the default budget, answered when unlimited
    /// on a shorter string (the work doubles with each `a`).
    @Test func catastrophicRegularExpressionIsBounded() throws {
        let matcher = try RegularExpressionMatcher("(a+)+$", options: [])
        let hostile = String(repeating: "a", count: 40) + "!"
        #expect(throws: EvaluationError.self) { try matcher.matches(hostile, limits: EvaluationLimits()) }
        let short = String(repeating: "a", count: 12) + "!"
        #expect(try matcher.matches(short, limits: .unlimited) == false)
        #expect(try matcher.matches(String(repeating: "a", count: 40), limits: EvaluationLimits()))
    }

    /// The budget error is the same in both engines: kind, message and the whole rule's range.
    @Test(arguments: [1, 5, 50, 500])
    func stepBudgetErrorsAgree(_ steps: Int) throws {
        let rule = "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10"
        let object = Value.dictionary(["xs": .array((0..<1_000).map { .int(Int64($0)) })])
        let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: steps))
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        var machine = VirtualMachine(program: try Compiler.compile(predicate), environment: environment)
        let interpreted = #expect(throws: EvaluationError.self) {
            try Interpreter(environment: environment).evaluate(predicate, on: object)
        }
        let run = #expect(throws: EvaluationError.self) { try machine.evaluate(on: object) }
        #expect(interpreted == run)
        #expect(interpreted?.kind == .limitExceeded)
        #expect(interpreted?.range == SourceRange(0, rule.utf8.count))
    }

    /// With the defaults the same rule runs to the end, in both engines.
    @Test func defaultsLetOrdinaryWorkThrough() throws {
        let rule = "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10"
        let object = Value.dictionary(["xs": .array((0..<1_000).map { .int(Int64($0)) })])
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        #expect(try Interpreter().evaluate(predicate, on: object))
        #expect(try Compiler.compile(predicate).evaluate(on: object))
    }
}
