import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// `Interpreter.explain` on the whole conformance suite: the root of every explanation is the
/// interpreter's own answer (truth value, or error with its message and range), so the tree a
/// developer reads cannot tell a different story from the evaluation.
@Suite struct ExplanationConformanceTests {
    @Test func explanationRootsAgreeWithTheInterpreter() throws {
        var compared = 0
        for testCase in ConformanceFiles.all where !testCase.isExpression {
            guard let parsed = try? PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments)
            else { continue }
            let interpreter = Interpreter()
            let explanation = interpreter.explain(parsed.predicate, on: testCase.object, variables: testCase.variables)
            do throws(EvaluationError) {
                let result = try interpreter.evaluate(
                    parsed.predicate, on: testCase.object, variables: testCase.variables)
                #expect(explanation.outcome == .truth(result), "\(testCase.location): \(testCase.rule)")
            } catch {
                guard case .error(let explained) = explanation.outcome else {
                    Issue.record("\(testCase.location): \(testCase.rule): expected error \(error.message)")
                    continue
                }
                #expect(explained.message == error.message, "\(testCase.location): \(testCase.rule)")
                #expect(explained.range == error.range, "\(testCase.location): \(testCase.rule)")
            }
            compared += 1
        }
        #expect(compared >= 800)
    }

    /// One line per case: the rule, the object, then each node depth-first as
    /// `kind:outcome` (outcome t, f, v, e or s for skipped).
    static let trees: [(rule: String, object: Value, nodes: String)] = [
        ("a == 1 AND b == 2", .dictionary(["a": .int(2), "b": .int(2)]), "AND:f comparison:f key path:v comparison:s"),
        ("a == 1 OR b == 2", .dictionary(["a": .int(1)]), "OR:t comparison:t key path:v comparison:s"),
        ("NOT a == 1", .dictionary(["a": .int(1)]), "NOT:f comparison:t key path:v"),
        (
            "a < 1 OR b == 2", .dictionary(["a": .string("x"), "b": .int(2)]),
            "OR:e comparison:e key path:v comparison:s"
        ),
        (
            "TERNARY(a == 1, b, c) == 3", .dictionary(["a": .int(1), "b": .int(3)]),
            "comparison:t TERNARY:v comparison:t key path:v key path:v key path:s"
        ),
        (
            "SUBQUERY(xs, $x, $x > 1).@count == 1", .dictionary(["xs": .array([.int(1), .int(2)])]),
            "comparison:t key path:v SUBQUERY:v key path:v element:f comparison:f variable:v element:t comparison:t variable:v"
        ),
    ]

    @Test(arguments: trees.indices)
    func treesRecordValuesAndSkippedOperands(_ index: Int) throws {
        let (rule, object, nodes) = Self.trees[index]
        let explanation = Interpreter().explain(try PredicateParser.parsePredicate(rule).predicate, on: object)
        #expect(Self.flatten(explanation).joined(separator: " ") == nodes, "\(rule)")
    }

    static func flatten(_ node: Explanation) -> [String] {
        let outcome: String
        switch node.outcome {
        case .truth(let flag): outcome = flag ? "t" : "f"
        case .value: outcome = "v"
        case .error: outcome = "e"
        case .skipped: outcome = "s"
        }
        return ["\(node.kind):\(outcome)"] + node.children.flatMap(flatten)
    }
}
