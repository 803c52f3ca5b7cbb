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
            rule: "a == 1 AND b == 2", limits: ProgramLimits(maximumInstructions: 2),
            expected: "the rule compiles to 3 instructions, more than the limit of 2"),
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

    /// `(a+)+\1?$` on forty `a`s and `!` (a back-reference, so ICU runs it, backtracking):
    /// stopped by the default budget, answered when unlimited on a shorter string (the work
    /// doubles with each `a`). Without the back-reference the automaton answers at once.
    @Test func catastrophicRegularExpressionIsBounded() throws {
        let matcher = try RegularExpressionMatcher("(a+)+\\1?$", options: [])
        let hostile = String(repeating: "a", count: 40) + "!"
        #expect(throws: EvaluationError.self) { try matcher.matches(hostile, limits: EvaluationLimits()) }
        let short = String(repeating: "a", count: 12) + "!"
        #expect(try matcher.matches(short, limits: .unlimited) == false)
        #expect(try matcher.matches(String(repeating: "a", count: 40), limits: EvaluationLimits()))
        #expect(
            try RegularExpressionMatcher("(a+)+$", options: []).matches(hostile, limits: EvaluationLimits()) == false)
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

/// Pattern matching spends the evaluation's budget too: many expensive matches in one rule stop
/// at the rule's limit, each within the per-match limit, in both engines alike.
@Suite struct PatternBudgetTests {
    @Test func manyExpensiveMatchesShareTheEvaluationBudget() throws {
        // Each match backtracks about 2^16 × 2 engine steps (under the per-match limit); 200 of
        // them need far more than the evaluation's 1,000,000.
        let rule = "SUBQUERY(xs, $x, $x MATCHES '(a+)+\\\\1?$').@count > 0"
        let subject = Value.string(String(repeating: "a", count: 16) + "!")
        let object = Value.dictionary(["xs": .array(Array(repeating: subject, count: 200))])
        let limits = EvaluationLimits(maximumSteps: 1_000_000, maximumPatternSteps: 900_000)
        let environment = EvaluationEnvironment(limits: limits)
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        var machine = VirtualMachine(program: try Compiler.compile(predicate), environment: environment)
        let interpreted = #expect(throws: EvaluationError.self) {
            try Interpreter(environment: environment).evaluate(predicate, on: object)
        }
        let run = #expect(throws: EvaluationError.self) { try machine.evaluate(on: object) }
        #expect(interpreted == limits.stepsExceeded().at(SourceRange(0, rule.utf8.count)))
        #expect(run == interpreted)
        // With the budget off, the same rule answers (false: nothing matches).
        let unlimited = EvaluationEnvironment(limits: .unlimited)
        #expect(try Interpreter(environment: unlimited).evaluate(predicate, on: object) == false)
    }
}
