import Foundation
import PredicateActions
import PredicateBatch
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// libFuzzer entry point: the input is a rule, a NUL byte and a JSON item (`SELF`). The rule runs
/// through every engine, unbound: the reference interpreter, the scalar VM, the batch engine (the
/// item in rows 0 and 2 of a three-row batch, between nil) and a rule set holding the rule twice
/// (shared work, errors kept per rule); all must give the same result, or errors of the same kind
/// at the same place. The seeds and the dictionary (`Fuzz/evaluator/dictionary`) lean on hostile
/// `MATCHES` and `LIKE` patterns, whose budgets each engine must keep alike.
///
/// A step-budget error on either side is not a disagreement between the interpreter and the VM:
/// they count steps differently (nodes against instructions), so near the limit one may stop and
/// the other not. The batch engine must give exactly the VM's answer, budget errors included
/// (kind, message, range), under the fuzzer's budget and under a tiny one that most rules spend.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvaluator(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let rule = String(decoding: bytes[..<split], as: UTF8.self)
    let itemBytes = split < bytes.endIndex ? Array(bytes[(split + 1)...]) : []
    // `random`, `randomn:` and `now` differ from call to call, so engines may rightly disagree.
    let lowered = rule.lowercased()
    if lowered.contains("random") || lowered.contains("now") { return 0 }
    guard let predicate = try? PredicateParser.parsePredicate(rule).predicate else { return 0 }
    let object: Value
    if let json = try? JSON.parse(itemBytes), let value = try? Value(json: json) {
        object = value
    } else {
        object = .dictionary(["name": .string("a.pdf"), "size": .int(3), "tags": .array([.string("x"), .int(2)])])
    }
    let limits = EvaluationLimits(maximumSteps: 200_000, maximumPatternSteps: 2_000_000)
    let environment = EvaluationEnvironment(limits: limits)
    let expected = Outcome { () throws(EvaluationError) in
        try Interpreter(environment: environment).evaluate(predicate, on: object)
    }
    guard let program = try? Compiler.compile(predicate, source: rule) else { return 0 }
    var machine = VirtualMachine(program: program, environment: environment)
    let actual = Outcome { () throws(EvaluationError) in try machine.evaluate(on: object) }
    let batchOutcomes = coarseBatchOutcomes(program, object, environment)
    let ruleSetOutcomes = coarseRuleSetOutcomes(rule, object, environment)
    for candidate in [actual] + batchOutcomes + ruleSetOutcomes
    where expected != candidate && !expected.isBudget && !candidate.isBudget {
        print("engines disagree\n  rule:        \(rule.debugDescription)")
        print("  object:      \(object)\n  interpreter: \(expected)\n  VM:          \(actual)")
        print("  batch:       \(batchOutcomes)\n  rule set:    \(ruleSetOutcomes)")
        abort()
    }
    let tiny = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: 60, maximumPatternSteps: 40))
    for environment in [environment, tiny] {
        var machine = VirtualMachine(program: program, environment: environment)
        let scalar = exactOutcome { () throws(EvaluationError) in try machine.evaluate(on: object) }
        for batch in exactBatchOutcomes(program, object, environment) where batch != scalar {
            print("batch and VM disagree\n  rule:   \(rule.debugDescription)\n  object: \(object)")
            print("  VM:     \(scalar)\n  batch:  \(batch)")
            abort()
        }
    }
    return 0
}

/// The batch engine's answers for rows 0 and 2 of `[object, nil, object]`.
private func coarseBatchOutcomes(_ program: Program, _ object: Value, _ environment: EvaluationEnvironment) -> [Outcome]
{
    let batch = BatchProgram(program, environment: environment).evaluate([object, .nil, object])
    return [0, 2].map { row in
        batch.errors.first { $0.row == row }.map { Outcome.error($0.error.kind, $0.error.range) }
            ?? .value(batch.matches(row))
    }
}

/// The answers of a rule set of `[rule, rule]` for `object`: each rule's bit, or its error (or the
/// whole program's, rule -1) with the range made relative to the rule whose text it points into
/// (shared work may report a sub-tree of rule 1 at rule 0's copy). Empty when the rule set is
/// refused (it has the compiler's limits, twice the rule).
private func coarseRuleSetOutcomes(_ rule: String, _ object: Value, _ environment: EvaluationEnvironment) -> [Outcome] {
    guard let ruleSet = try? RuleSet(rules: [rule, rule]) else { return [] }
    var evaluator = ruleSet.makeEvaluator(environment: environment)
    let answer = evaluator.evaluate(on: object)
    let layout = RuleSetSource(sources: ruleSet.rules)
    return [0, 1].map { index in
        guard let failure = answer.errors.first(where: { $0.rule == index || $0.rule == -1 }) else {
            return .value(answer.isSatisfied(index))
        }
        let range = failure.error.range.map { range -> SourceRange in
            let start = layout.rule(containing: range.lowerBound).map { range.lowerBound - $0.offset } ?? 0
            return SourceRange(range.lowerBound - start, range.upperBound - start)
        }
        return .error(failure.error.kind, range)
    }
}

/// As ``coarseBatchOutcomes(_:_:_:)``, with the errors' messages.
private func exactBatchOutcomes(
    _ program: Program, _ object: Value, _ environment: EvaluationEnvironment
)
    -> [String]
{
    let batch = BatchProgram(program, environment: environment).evaluate([object, .nil, object])
    return [0, 2].map { row in
        batch.errors.first { $0.row == row }.map { describe($0.error) } ?? "\(batch.matches(row))"
    }
}

/// A result, or an error's kind, range and message.
private func exactOutcome(_ body: () throws(EvaluationError) -> Bool) -> String {
    do {
        return "\(try body())"
    } catch {
        return describe(error)
    }
}

private func describe(_ error: EvaluationError) -> String {
    "error \(error.kind) at \(error.range.map { "\($0)" } ?? "?"): \(error.message)"
}

/// A result or the error's kind and position (messages may be worded per engine only where the
/// VM cannot know the interpreter's wording; kind and position must agree).
private enum Outcome: Equatable, CustomStringConvertible {
    case value(Bool)
    case error(EvaluationError.Kind, SourceRange?)

    init(_ body: () throws(EvaluationError) -> Bool) {
        do {
            self = .value(try body())
        } catch {
            self = .error(error.kind, error.range)
        }
    }

    var isBudget: Bool {
        if case .error(.limitExceeded, _) = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .value(let result): return "\(result)"
        case .error(let kind, let range): return "error \(kind) at \(range.map { "\($0)" } ?? "?")"
        }
    }
}
