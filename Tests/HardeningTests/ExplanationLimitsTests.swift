import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// `Interpreter.explain` observes the interpreter's own evaluation: it stops at the same limits
/// with the same errors, and what it records stays bounded however much the rule evaluates.
@Suite struct ExplanationLimitsTests {
    /// Six `SUBQUERY`s nested over the same 20 elements: 20⁶ inner evaluations, far past the
    /// default step budget. Before explanations observed the interpreter, `explain` had no budget
    /// and grew without bound (past 4 GB) here.
    static let sixNested =
        "SUBQUERY(a, $x1, SUBQUERY(a, $x2, SUBQUERY(a, $x3, SUBQUERY(a, $x4, SUBQUERY(a, $x5, "
        + "SUBQUERY(a, $x6, $x6 == 1).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0"

    static func numbers(_ count: Int) -> Value { .array((0..<count).map { .int(Int64($0)) }) }

    @Test func explainStopsAtTheStepLimitWithEvaluatesError() throws {
        let predicate = try PredicateParser.parsePredicate(Self.sixNested).predicate
        let object = Value.dictionary(["a": Self.numbers(20)])
        let interpreter = Interpreter()
        let evaluated = #expect(throws: EvaluationError.self) { try interpreter.evaluate(predicate, on: object) }
        let explanation = interpreter.explain(predicate, on: object)
        #expect(evaluated?.kind == .limitExceeded)
        #expect(evaluated?.range == SourceRange(0, Self.sixNested.utf8.count))
        #expect(explanation.outcome == evaluated.map(Explanation.Outcome.error))
        // The budget, and past it the path to the error: at most a syntax node and a SUBQUERY
        // element per level of the rule.
        #expect(Self.count(explanation) <= Explanation.maximumRecordedNodes + 2 * predicate.depth)
        #expect(Self.count(explanation) > Explanation.maximumRecordedNodes)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let rule: String
        let object: Value
        var limits = EvaluationLimits()
        var testDescription: String { rule }
    }

    /// Rules that answer, fail, and run into each of ``EvaluationLimits``' limits.
    static let cases: [Case] = [
        Case(rule: "a == 1 AND b == 2", object: .dictionary(["a": .int(1), "b": .int(2)])),
        Case(rule: "a == 1 OR b == 2", object: .dictionary(["a": .int(3)])),
        Case(rule: "a < 1", object: .dictionary(["a": .string("x")])),
        Case(rule: "SUBQUERY(a, $x, $x.b == 1).@count > 0", object: .dictionary(["a": numbers(3)])),
        Case(
            rule: sixNested, object: .dictionary(["a": numbers(20)]), limits: EvaluationLimits(maximumSteps: 100_000)),
        // Steps: one rule, budgets that run out at different nodes.
        Case(
            rule: "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10", object: .dictionary(["xs": numbers(1_000)]),
            limits: EvaluationLimits(maximumSteps: 1)),
        Case(
            rule: "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10", object: .dictionary(["xs": numbers(1_000)]),
            limits: EvaluationLimits(maximumSteps: 7)),
        Case(
            rule: "SUBQUERY(xs, $x, $x > 1 AND $x < 900).@count > 10", object: .dictionary(["xs": numbers(1_000)]),
            limits: EvaluationLimits(maximumSteps: 2_500)),
        Case(
            rule: "ANY xs == 999", object: .dictionary(["xs": numbers(1_000)]),
            limits: EvaluationLimits(maximumSteps: 500)),
        Case(
            rule: "(xs UNION xs).@count > 0", object: .dictionary(["xs": numbers(100)]),
            limits: EvaluationLimits(maximumSteps: 1_000)),
        // Collection size: an aggregate, a SUBQUERY's result, a set operation's result.
        Case(
            rule: "{a, a, a}.@count == 3", object: .dictionary(["a": .int(1)]),
            limits: EvaluationLimits(maximumCollectionCount: 2)),
        Case(
            rule: "SUBQUERY(xs, $x, $x >= 0).@count > 0", object: .dictionary(["xs": numbers(10)]),
            limits: EvaluationLimits(maximumCollectionCount: 5)),
        Case(
            rule: "(xs UNION ys).@count > 0", object: .dictionary(["xs": numbers(4), "ys": .array([.int(7)])]),
            limits: EvaluationLimits(maximumCollectionCount: 4)),
        // Pattern length and pattern steps.
        Case(
            rule: "name LIKE pattern",
            object: .dictionary(["name": .string("abc"), "pattern": .string(String(repeating: "a*", count: 20))]),
            limits: EvaluationLimits(maximumPatternLength: 16)),
        Case(
            rule: "name MATCHES '(a+)+\\\\1?$'",
            object: .dictionary(["name": .string(String(repeating: "a", count: 30) + "!")]),
            limits: EvaluationLimits(maximumSteps: 100_000_000, maximumPatternSteps: 100_000)),
        Case(
            rule: "SUBQUERY(xs, $x, $x MATCHES '(a+)+\\\\1?$').@count > 0",
            object: .dictionary([
                "xs": .array(Array(repeating: .string(String(repeating: "a", count: 16) + "!"), count: 20))
            ]),
            limits: EvaluationLimits(maximumSteps: 1_000_000, maximumPatternSteps: 900_000)),
    ]

    /// The root of an explanation is what evaluation gives: the truth value, or the same error
    /// (kind, message, range).
    @Test(arguments: cases)
    func explainRootIsEvaluatesAnswer(_ testCase: Case) throws {
        let predicate = try PredicateParser.parsePredicate(testCase.rule).predicate
        let interpreter = Interpreter(environment: EvaluationEnvironment(limits: testCase.limits))
        let explanation = interpreter.explain(predicate, on: testCase.object)
        do throws(EvaluationError) {
            #expect(explanation.outcome == .truth(try interpreter.evaluate(predicate, on: testCase.object)))
        } catch {
            #expect(explanation.outcome == .error(error))
        }
    }

    /// Every case that should hit a limit does, so the table above tests what it says.
    @Test func limitCasesHitTheirLimits() throws {
        for testCase in Self.cases where testCase.limits != EvaluationLimits() {
            let predicate = try PredicateParser.parsePredicate(testCase.rule).predicate
            let interpreter = Interpreter(environment: EvaluationEnvironment(limits: testCase.limits))
            let error = #expect(throws: EvaluationError.self, "\(testCase.rule)") {
                try interpreter.evaluate(predicate, on: testCase.object)
            }
            #expect(error?.kind == .limitExceeded, "\(testCase.rule)")
        }
    }

    // MARK: - Bounded records

    struct FanOut: Sendable, CustomTestStringConvertible {
        let rule: String
        let object: Value
        /// The kinds of the recorded children of the first node with omitted children.
        let recorded: [String]
        let omitted: Int
        var testDescription: String { rule }
    }

    static let fanOuts: [FanOut] = [
        FanOut(
            rule: "SUBQUERY(xs, $x, $x > 50).@count > 0", object: .dictionary(["xs": numbers(100)]),
            recorded: ["key path"] + Array(repeating: "element", count: 20), omitted: 80),
        FanOut(
            rule: "{" + Array(repeating: "a", count: 25).joined(separator: ", ") + "}.@count == 25",
            object: .dictionary(["a": .int(1)]), recorded: Array(repeating: "key path", count: 20), omitted: 5),
        FanOut(
            rule: Array(repeating: "a == 1", count: 30).joined(separator: " AND "), object: .dictionary(["a": .int(1)]),
            recorded: Array(repeating: "comparison", count: 20), omitted: 10),
        FanOut(
            rule: Array(repeating: "a == 2", count: 30).joined(separator: " AND "), object: .dictionary(["a": .int(1)]),
            recorded: Array(repeating: "comparison", count: 20), omitted: 10),
    ]

    /// A node records at most ``Explanation/maximumExplainedElements`` `SUBQUERY` elements and
    /// as many other children (skipped ones included), and counts the rest.
    @Test(arguments: fanOuts)
    func wideNodesRecordTheFirstChildrenAndCountTheRest(_ fanOut: FanOut) throws {
        let predicate = try PredicateParser.parsePredicate(fanOut.rule).predicate
        let explanation = Interpreter().explain(predicate, on: fanOut.object)
        let node = try #require(Self.first(in: explanation) { $0.omittedChildren > 0 })
        #expect(node.children.map(\.kind) == fanOut.recorded)
        #expect(node.omittedChildren == fanOut.omitted)
    }

    /// Three nested `SUBQUERY`s over 20 elements evaluate 8,000 inner predicates, which the
    /// per-node bound alone would all record; the whole tree stops at
    /// ``Explanation/maximumRecordedNodes``, and the answer is still the evaluation's.
    @Test func nestedSubqueriesRecordAtMostTheNodeBudget() throws {
        let rule =
            "SUBQUERY(a, $x, SUBQUERY(a, $y, SUBQUERY(a, $z, $z == $x).@count > 0).@count > 0).@count == 20"
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        let object = Value.dictionary(["a": Self.numbers(20)])
        let explanation = Interpreter().explain(predicate, on: object)
        #expect(explanation.outcome == .truth(try Interpreter().evaluate(predicate, on: object)))
        #expect(explanation.outcome == .truth(true))
        // Every node admitted spends one of the budget, and this rule spends all of it.
        #expect(Self.count(explanation) == Explanation.maximumRecordedNodes)
        #expect(Self.omitted(explanation) > 0)
    }

    /// Past the bounds, the path to an error is still recorded: here element 25 of 30, after the
    /// 20 elements recorded and 5 only counted.
    @Test func anErrorPastTheBoundsIsStillShown() throws {
        let rule = "SUBQUERY(xs, $x, $x.name == 'a').@count > 0"
        var elements: [Value] = Array(repeating: .dictionary(["name": .string("b")]), count: 30)
        elements[25] = .int(25)
        let object = Value.dictionary(["xs": .array(elements)])
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        let explanation = Interpreter().explain(predicate, on: object)
        let evaluated = #expect(throws: EvaluationError.self) { try Interpreter().evaluate(predicate, on: object) }
        #expect(explanation.outcome == evaluated.map(Explanation.Outcome.error))
        let subquery = try #require(Self.first(in: explanation) { $0.kind == "SUBQUERY" })
        #expect(subquery.children.map(\.kind) == ["key path"] + Array(repeating: "element", count: 21))
        #expect(subquery.omittedChildren == 5)
        let failing = try #require(subquery.children.last)
        #expect(failing.element == .int(25))
        #expect(failing.outcome == explanation.outcome)
        // Only the path to the error: the element's predicate and its key path, where the error
        // arose; the variable the key path read succeeded, and is counted.
        #expect(Self.flatten(failing) == ["element", "comparison", "key path"])
        let keyPath = try #require(failing.children.first?.children.first)
        #expect(keyPath.range == evaluated?.range)
        #expect(keyPath.omittedChildren == 1)
    }

    static func flatten(_ node: Explanation) -> [String] { [node.kind] + node.children.flatMap(flatten) }

    static func count(_ node: Explanation) -> Int { 1 + node.children.reduce(0) { $0 + count($1) } }

    static func omitted(_ node: Explanation) -> Int {
        node.omittedChildren + node.children.reduce(0) { $0 + omitted($1) }
    }

    static func first(in node: Explanation, where test: (Explanation) -> Bool) -> Explanation? {
        if test(node) { return node }
        for child in node.children {
            if let found = first(in: child, where: test) { return found }
        }
        return nil
    }
}
