import PredicateSemantics
import PredicateValue
import Testing

/// Hostile patterns and tight budgets through every engine, the batch engine included: each
/// answer, errors too (kind, message, range), must be the interpreter's and the scalar VM's
/// (issue 14: the batch engine answered `false` where the others stopped with `limitExceeded`).
@Suite struct BudgetDifferentialTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let rule: String
        let object: Value
        let limits: EvaluationLimits
        var testDescription: String { "\(rule) (steps \(limits.maximumSteps), pattern \(limits.maximumPatternSteps))" }
    }

    static let hostile = String(repeating: "a", count: 40) + "!"
    static let medium = String(repeating: "a", count: 16) + "!"
    static let defaults = EvaluationLimits()
    static let tight = EvaluationLimits(maximumSteps: 1_000_000, maximumPatternSteps: 900_000)
    static let tiny = EvaluationLimits(maximumSteps: 40, maximumPatternSteps: 30)
    static func name(_ text: String) -> Value { .dictionary(["name": .string(text)]) }
    static let names = Value.dictionary(["xs": .array(Array(repeating: .string(medium), count: 200))])
    static let numbers = Value.dictionary(["xs": .array((0..<1_000).map { .int(Int64($0)) })])
    static let nested = Value.dictionary(["xs": .array((0..<20).map { .int(Int64($0)) })])

    static let cases: [Case] = [
        Case(rule: "name MATCHES '(a+)+$'", object: name(hostile), limits: defaults),
        Case(rule: "NOT (name MATCHES '(a+)+$')", object: name(hostile), limits: defaults),
        Case(rule: "name MATCHES '(a+)+$' OR name == 'x'", object: name(hostile), limits: defaults),
        Case(rule: "name == 'x' OR NOT name MATCHES '(a+)+$'", object: name(hostile), limits: defaults),
        Case(rule: "name BEGINSWITH 'a' AND name MATCHES '(a+)+$'", object: name(hostile), limits: defaults),
        Case(rule: "name MATCHES[c] '(A+)+$'", object: name(hostile), limits: defaults),
        Case(rule: "name MATCHES '(a+)+$'", object: name(medium), limits: tight),
        Case(rule: "name MATCHES '(a+)+$'", object: name(medium), limits: tiny),
        Case(rule: "name LIKE '*a*a*a*a*a*a*a*a*b'", object: name(hostile), limits: tiny),
        Case(rule: "NOT name LIKE '*a*a*a*a*a*a*a*a*b'", object: name(hostile), limits: tiny),
        Case(rule: "name MATCHES '(a)\\\\1+(a+)+$'", object: name(hostile), limits: defaults),
        Case(rule: "SUBQUERY(xs, $x, $x MATCHES '(a+)+$').@count > 0", object: names, limits: tight),
        Case(rule: "NOT (SUBQUERY(xs, $x, $x MATCHES '(a+)+$').@count > 0)", object: names, limits: tight),
        Case(rule: "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10", object: numbers, limits: tiny),
        Case(
            rule: "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10", object: numbers,
            limits: EvaluationLimits(maximumSteps: 2_000)),
        Case(rule: "ANY xs > 998", object: numbers, limits: tiny),
        Case(
            rule: "xs.@count > 3 AND ANY xs IN {998, 999}", object: numbers, limits: EvaluationLimits(maximumSteps: 900)
        ),
        Case(
            rule: "SUBQUERY(xs, $a, SUBQUERY(xs, $b, SUBQUERY(xs, $c, $a + $b + $c == 100).@count > 0).@count > 0)"
                + ".@count > 0",
            object: nested, limits: EvaluationLimits(maximumSteps: 50_000)),
        Case(rule: sixNested, object: nested, limits: EvaluationLimits(maximumSteps: 100_000)),
    ]

    /// Six nested `SUBQUERY`s over twenty elements: 64 million innermost evaluations, far past
    /// any budget (`predicate filter` spent 22.7 s on one line of it).
    static let sixNested =
        "SUBQUERY(xs, $a, SUBQUERY(xs, $b, SUBQUERY(xs, $c, SUBQUERY(xs, $d, SUBQUERY(xs, $e, "
        + "SUBQUERY(xs, $f, $a + $b + $c + $d + $e + $f == 200).@count > 0).@count > 0).@count > 0)"
        + ".@count > 0).@count > 0).@count > 0"

    @Test(arguments: cases)
    func enginesAgree(_ testCase: Case) throws {
        let engines = Engines(limits: testCase.limits)
        let verdict = try #require(
            engines.verdict(testCase.rule, isExpression: false, object: testCase.object, variables: [:]))
        #expect(verdict.agrees, "\(verdict.outcomes.map { "\($0.engine): \($0.outcome)" }.joined(separator: "\n"))")
    }
}
