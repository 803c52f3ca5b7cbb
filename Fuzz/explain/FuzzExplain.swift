import Foundation
import PredicateCommandLine
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// libFuzzer entry point: the input is a rule, a NUL byte and a JSON item (`SELF`), as for the
/// evaluator target. `Interpreter.explain` must give exactly what `evaluate` gives (the same
/// walk, observed: value, or error kind, range and message), its tree must stay within the
/// documented bounds with every range inside the rule, and `predicate explain` (JSON and text,
/// the item on standard input) must exit 0, 1 or 2, agree with the library on true or false, and
/// write JSON that parses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExplain(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let rule = String(decoding: bytes[..<split], as: UTF8.self)
    let itemBytes = split < bytes.endIndex ? Array(bytes[(split + 1)...]) : []
    // `random`, `randomn:` and `now` differ from call to call, so two runs may rightly disagree.
    let lowered = rule.lowercased()
    if lowered.contains("random") || lowered.contains("now") { return 0 }
    guard let predicate = try? PredicateParser.parsePredicate(rule).predicate else { return 0 }
    let object = (try? JSON.parse(itemBytes)).flatMap { try? Value(json: $0) }
    let interpreter = Interpreter(
        environment: EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: maximumSteps)))

    let explanation = interpreter.explain(predicate, on: object ?? .nil)
    let evaluated: Explanation.Outcome
    do throws(EvaluationError) {
        evaluated = .truth(try interpreter.evaluate(predicate, on: object ?? .nil))
    } catch {
        evaluated = .error(error)
    }
    if explanation.outcome != evaluated {
        fail("explain and evaluate disagree", rule, "explain: \(explanation.outcome)\n  evaluate: \(evaluated)")
    }
    var nodes = 0
    checkBounds(explanation, rule: rule, nodes: &nodes)
    // Past the bounds only the path to an error is recorded: two nodes a level of the rule.
    if nodes > Explanation.maximumRecordedNodes + 4 * (rule.utf8.count + 1) {
        fail("the explanation is not bounded", rule, "\(nodes) nodes")
    }

    guard let object, case .truth(let truth) = explanation.outcome else { return 0 }
    let tool = CommandLineTool()
    let options = ["explain", "--object", "-", "--max-steps", "\(maximumSteps)"]
    let json = tool.run(arguments: options + ["--json", "--", rule], standardInput: itemBytes)
    let text = tool.run(arguments: options + ["--", rule], standardInput: itemBytes)
    // An array is refused as --object (it is a selection: --items); anything else is SELF.
    if case .array = object {
        if json.exitCode != 2 || text.exitCode != 2 { fail("an array was taken as --object", rule, "\(json)") }
        return 0
    }
    let expected: Int32 = truth ? 0 : 1
    if json.exitCode != expected || text.exitCode != expected {
        fail("predicate explain disagrees", rule, "library: \(truth)\n  json: \(json)\n  text: \(text)")
    }
    guard case .object(let document)? = try? JSON.parse(Array(json.standardOutput.utf8)),
        document.first(where: { $0.key == "result" })?.value == .bool(truth)
    else {
        fail("predicate explain --json wrote no result", rule, json.standardOutput)
    }
    return 0
}

/// The fuzzer's step budget, small enough that a hostile rule stops in milliseconds.
private let maximumSteps = 200_000

/// Checks each node's children against the per-node bounds and its range against the rule,
/// counting the nodes.
private func checkBounds(_ node: Explanation, rule: String, nodes: inout Int) {
    nodes += 1
    // Elements and other children each have a bound; an error's path may add one more.
    if node.children.count > 2 * Explanation.maximumExplainedElements + 1 {
        fail("a node has too many children", rule, "\(node.kind): \(node.children.count)")
    }
    if node.range.lowerBound < 0 || node.range.upperBound > rule.utf8.count {
        fail("a node's range is outside the rule", rule, "\(node.kind) at \(node.range)")
    }
    for child in node.children { checkBounds(child, rule: rule, nodes: &nodes) }
}

private func fail(_ problem: String, _ rule: String, _ detail: String) -> Never {
    print("\(problem)\n  rule: \(rule.debugDescription)\n  \(detail)")
    abort()
}
