import Foundation
import PredicateActions
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A rule's answer alone: true, false, or the error's message and range.
private enum Answer: Equatable, CustomStringConvertible {
    case value(Bool)
    case error(String, SourceRange?)

    var description: String {
        switch self {
        case .value(let flag): return "\(flag)"
        case .error(let message, let range): return "error \(message) at \(range.map(\.description) ?? "?")"
        }
    }
}

/// The reference for a rule set: each rule compiled and run on its own.
private func separately(_ rule: String, on object: Value, selfType: ValueType? = nil) throws -> Answer {
    var predicate = try PredicateParser.parsePredicate(rule).predicate
    if let selfType { predicate = Binder.bind(predicate, selfType: selfType) }
    let program = try Compiler.compile(predicate, source: rule)
    do throws(EvaluationError) {
        return .value(try program.evaluate(on: object))
    } catch {
        return .error(error.message, error.range)
    }
}

private func together(_ answer: RuleSetAnswer, _ rule: Int) -> Answer {
    if let problem = answer.problem(of: rule) { return .error(problem.message, problem.range) }
    return .value(answer.isSatisfied(rule))
}

/// A small deterministic generator (SplitMix64), so a failure reproduces from its seed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Atoms drawn from a small pool so that rules share sub-expressions; some fail on some objects
/// (a string ordered against a number, a collection operator on a number, an unbound variable).
private let atoms = [
    "a > 2", "a + b == 5", "b * 2 >= a", "name BEGINSWITH 'r'", "name < 3", "ANY tags == 'red'",
    "SUBQUERY(tags, $t, $t BEGINSWITH 'r').@count > 0", "a IN {1, 2, 3}", "tags.@count >= 2", "a == nil",
    "$limit > 1", "TERNARY(a > 2, b, a) == 1", "name ==[c] 'RED'", "a > 2 AND b < 3",
]

private func randomRule(_ depth: Int, _ rng: inout SplitMix) -> String {
    let atom = atoms[Int(rng.next() % UInt64(atoms.count))]
    guard depth > 0 else { return atom }
    switch rng.next() % 4 {
    case 0: return "(\(randomRule(depth - 1, &rng))) AND (\(randomRule(depth - 1, &rng)))"
    case 1: return "(\(randomRule(depth - 1, &rng))) OR (\(randomRule(depth - 1, &rng)))"
    case 2: return "NOT (\(randomRule(depth - 1, &rng)))"
    default: return atom
    }
}

private func randomObject(_ rng: inout SplitMix) -> Value {
    var properties: [String: Value] = [:]
    switch rng.next() % 5 {
    case 0: break
    case 1: properties["a"] = .string("x")
    default: properties["a"] = .int(Int64(rng.next() % 5))
    }
    properties["b"] = .int(Int64(rng.next() % 4))
    let names = ["red", "rose", "blue", "Red"]
    if rng.next() % 4 != 0 { properties["name"] = .string(names[Int(rng.next() % 4)]) }
    switch rng.next() % 4 {
    case 0: properties["tags"] = .int(3)
    case 1: break
    default:
        let tags = ["red", "green", "rust"].filter { _ in rng.next() % 2 == 0 }
        properties["tags"] = .array(tags.map(Value.string))
    }
    return .dictionary(properties)
}

@Test func ruleSetAnswersEqualEachRuleAlone() throws {
    var rng = SplitMix(state: 7)
    var compared = 0
    for _ in 0..<300 {
        let rules = (0..<Int(1 + rng.next() % 8)).map { _ in randomRule(Int(rng.next() % 3), &rng) }
        let set = try RuleSet(rules: rules)
        var evaluator = set.makeEvaluator()
        for _ in 0..<5 {
            let object = randomObject(&rng)
            let answer = evaluator.evaluate(on: object)
            for (index, rule) in rules.enumerated() {
                let alone = try separately(rule, on: object)
                let shared = together(answer, index)
                #expect(shared == alone, "rule \(index) \(rule) of \(rules) on \(object)")
                compared += 1
            }
        }
    }
    #expect(compared > 3000)
}

@Test func ruleSetSharesWorkBetweenRules() throws {
    let set = try RuleSet(rules: ["a > 2 AND b == 1", "a > 2 OR c == 1", "b == 1"])
    let code = set.program.code
    // `a > 2` and `b == 1` are each computed at most once per evaluation, through memo slots.
    let slots = Set(
        code.compactMap { instruction -> UInt16? in
            if case .memoStore(let slot) = instruction { return slot } else { return nil }
        })
    #expect(slots == [0, 1])
    #expect(code.filter { if case .ruleEnd = $0 { return true } else { return false } }.count == 3)
    try Verifier.verify(set.program)
}

/// Over items of a schema, a stored field compared with a constant is one `TEST`, cheaper than a
/// memo slot: rules repeating it are not given one (nor is a field read alone), so that rule sets
/// keep their comparisons fused; a string operator, dearer than the memo, is still shared.
@Test func ruleSetsLeaveCheapComparisonsFused() throws {
    let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
    let set = try RuleSet(
        rules: [
            "isUploaded == NO", "isUploaded == NO AND documentSize > 1e6", "documentSize > 1e6 OR isUploaded == NO",
            "filename ENDSWITH[c] '.pdf' AND isUploaded == NO", "filename ENDSWITH[c] '.pdf'", "isUploaded + 1 == 2",
            "filename > 5",
        ], selfType: itemType)
    let code = set.program.code
    let memoSlots = Set(code.compactMap { if case .memoStore(let slot) = $0 { return slot } else { return nil } })
    #expect(memoSlots.count == 1, "only the ENDSWITH[c] is remembered: \(Disassembler.listing(set.program))")
    // Every comparison with a constant is a `TEST` (the shared ENDSWITH[c] inside its memo, at
    // both places it is written); the one field read alone is the arithmetic's.
    #expect(code.filter { $0.comparisonSite != nil }.count == 9)
    #expect(code.filter { if case .loadSelfKeyPath = $0 { return true } else { return false } }.count == 1)
    try Verifier.verify(set.program)
}

/// Rules failing on items read in place (a string field ordered against a number, arithmetic
/// on a Boolean field, a division by zero) fail with each rule's own error, and the rules
/// around them answer as they would alone, evaluation after evaluation.
@Test func failingRulesOverItemsAnswerAsAlone() throws {
    let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
    let rules = [
        "filename > 5", "isUploaded == NO", "5 < filename", "isUploaded + 1 == 2", "filename == 'b.txt'",
        "documentSize / 0 > 1", "filename < 5 OR isUploaded == YES", "documentSize >= 10",
    ]
    let set = try RuleSet(rules: rules, selfType: itemType)
    var evaluator = set.makeEvaluator()
    var items: [FileProviderItem] = []
    for (index, name) in ["a.txt", "b.txt", ""].enumerated() {
        var item = FileProviderItem(itemIdentifier: "\(index)", parentItemIdentifier: "root", filename: name)
        item.isUploaded = index == 1
        item.documentSize = Int64(index * 10)
        items.append(item)
    }
    for _ in 0..<2 {
        for item in items {
            let object = Value.object(item)
            let answer = evaluator.evaluate(on: object)
            var failing: [Int] = []
            for (index, rule) in rules.enumerated() {
                let alone = try separately(rule, on: object, selfType: itemType)
                #expect(together(answer, index) == alone, "rule \(index) \(rule) on \(item.filename)")
                if case .error = alone { failing.append(index) }
            }
            #expect(answer.errors.map(\.rule) == failing)
            #expect(failing.starts(with: [0, 2, 3]))
        }
    }
}

@Test func anErrorHidesOnlyItsOwnRule() throws {
    let set = try RuleSet(rules: ["name > 3", "name == 'x'", "name ==", "a.@sum > 1 OR name == 'x'"])
    let answer = set.evaluate(on: .dictionary(["name": .string("x"), "a": .int(1)]))
    #expect(!answer.isSatisfied(0))
    #expect(answer.problem(of: 0)?.message.contains("cannot order") == true)
    #expect(answer.problem(of: 0)?.range == SourceRange(0, 8))
    #expect(answer.isSatisfied(1))
    #expect(answer.problem(of: 2) != nil)  // does not parse
    #expect(!answer.isSatisfied(3))
    #expect(answer.problem(of: 3) != nil)
    #expect(answer.mask == 0b0010)
}

/// Diagnostics are built only when read (issue 18): the answer keeps the machine's errors, and
/// `problems` and `problem(of:)` build the same diagnostics from them, in rule order.
@Test func problemsAreBuiltFromTheKeptErrorsWhenRead() throws {
    let set = try RuleSet(rules: ["name > 3", "name ==", "name == 'x'", "name < 3"])
    let answer = set.evaluate(on: .dictionary(["name": .string("x")]))
    #expect(answer.hasProblems)
    #expect(answer.errors.map(\.rule).sorted() == [0, 3])
    #expect(answer.errors.allSatisfy { $0.error.kind == .typeMismatch })
    #expect(answer.problems.map(\.rule) == [0, 1, 3])
    for (rule, diagnostic) in answer.problems { #expect(answer.problem(of: rule) == diagnostic) }
    #expect(answer.problem(of: 2) == nil)
    #expect(answer.problem(of: 3)?.range == SourceRange(0, 8))
    let clean = try RuleSet(rules: ["name == 'x'"]).evaluate(on: .dictionary(["name": .string("x")]))
    #expect(!clean.hasProblems && clean.problems.isEmpty && clean.errors.isEmpty)
}

@Test(arguments: [
    ("documentSize > 1e6 AND isUploaded == NO", ["documentSize", "isUploaded"]),
    (
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0",
        ["fileproviderItems", "fileproviderItems.isUploaded"]
    ),
    (
        "ANY fileproviderItems.contentType.identifier UTI-CONFORMS-TO 'public.folder'",
        ["fileproviderItems.contentType.identifier"]
    ),
    ("$item.userInfo.rank > SELF.limit", ["$item.userInfo.rank", "limit"]),
    ("TRUEPREDICATE", []),
])
func footprintListsTheKeyPathsARuleReads(rule: String, expected: [String]) throws {
    #expect(Footprint.keyPaths(of: try PredicateParser.parsePredicate(rule).predicate) == expected)
}

@Test func ruleSetFootprintIsTheUnionOfItsRules() throws {
    let set = try RuleSet(rules: ["a > 1", "b.c == 2 OR a < 0", "FALSEPREDICATE"])
    #expect(set.footprints == [["a"], ["a", "b.c"], []])
    #expect(set.footprint == ["a", "b.c"])
}

@Test func actionListRuleSetAgreesWithActionByActionOutcomes() throws {
    let list = try FileProviderActionList(contentsOfFile: examplesDirectory.appendingPathComponent("Info.plist").path)
    let set = try list.makeRuleSet()
    var evaluator = set.makeEvaluator()
    var rng = SplitMix(state: 11)
    let types = ["public.plain-text", "public.folder", "public.jpeg"]
    for _ in 0..<200 {
        let items = (0..<Int(rng.next() % 4)).map { index -> FileProviderItem in
            var item = FileProviderItem(itemIdentifier: "\(index)", parentItemIdentifier: "root", filename: "f\(index)")
            item.isUploaded = rng.next() % 2 == 0
            item.contentType = UniformType(types[Int(rng.next() % 3)])
            if rng.next() % 2 == 0 { item.userInfo = ["com.example.testBit": .bool(rng.next() % 2 == 0)] }
            return item
        }
        let answer = list.evaluate(selectedItems: items, with: &evaluator)
        for (index, outcome) in list.outcomes(selectedItems: items).enumerated() {
            #expect(answer.isSatisfied(index) == outcome.isEnabled, "action \(outcome.action.identifier)")
            if outcome.action.activationRule != nil {
                #expect((answer.problem(of: index) != nil) == (outcome.problem != nil))
            }
        }
    }
}

@Test func ruleSetProgramSurvivesSerialization() throws {
    let set = try RuleSet(rules: ["a > 2 AND b == 1", "b == 1 OR name == 'x'"])
    let loaded = try Program(bytes: try set.program.serialized())
    #expect(loaded == set.program)
    var machine = VirtualMachine(program: loaded)
    let result = machine.evaluateRules(on: .dictionary(["a": .int(3), "b": .int(1)]))
    #expect(result.mask == 0b11)
}

@Test func signedZerosAreNotShared() throws {
    let set = try RuleSet(rules: ["a / 0.0 > 0", "a / -0.0 > 0", "a / 0.0 > 0 AND a / -0.0 < 0"])
    // Only `a` is shared: the divisions differ though `0.0 == -0.0` as values.
    let stores = set.program.code.filter { if case .memoStore = $0 { return true } else { return false } }
    #expect(stores.count == 4)
    let answers = set.makeEvaluator().evaluateBatchCopy([.dictionary(["a": .double(1)])])
    #expect(answers.map(\.mask) == [0b101])
}

extension RuleSet.Evaluator {
    fileprivate func evaluateBatchCopy(_ inputs: [Value]) -> [RuleSetAnswer] {
        var copy = self
        return copy.evaluate(batch: inputs)
    }
}

/// Regression: `0.0` and `-0.0` in one rule used to share a constant (wrong answer) or trap in the
/// constant pool's dictionary (equal values with different hashes).
@Test func aRuleWithBothZerosKeepsThemApart() throws {
    let rule = "a / 0.0 > 0 AND a / -0.0 < 0"
    let program = try Compiler.compile(try PredicateParser.parsePredicate(rule).predicate, source: rule)
    #expect(program.constants.filter { $0 == .double(0) }.count == 2)
    #expect(try program.evaluate(on: .dictionary(["a": .double(1.5)])))
    #expect(Value.double(0).hashValue == Value.double(-0.0).hashValue)
}
