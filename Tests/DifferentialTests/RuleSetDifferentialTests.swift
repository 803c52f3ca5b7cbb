import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// Rule sets on generated rules: a group of random rules (with repeats and combinations of one
/// another, so that the rule set shares sub-trees) compiled into one program must answer, rule by
/// rule, what each rule compiled alone answers: the same truth value, or the same error (message
/// and source range), unbound and bound to the object's type.
@Suite struct RuleSetDifferentialTests {
    static let groups = 300

    @Test func ruleSetsAnswerAsTheirRulesAlone() throws {
        var compared = 0
        var errors = 0
        var shared = 0
        for group in 0..<Self.groups {
            var rng = SplitMix64(seed: SplitMix64.caseSeed(0x7E57_5E75, group))
            let shape = [ObjectShape.plain, .fileProvider, .interaction, .item, .other][
                rng.weighted([38, 36, 10, 6, 10])]
            var objects = ObjectGenerator(rng: SplitMix64(seed: rng.next()))
            objects.calm = rng.chance(50)
            var generator = RuleGenerator(rng: SplitMix64(seed: rng.next()), shape: shape)
            generator.calm = objects.calm
            generator.allowsClock = false  // now() would differ from one evaluation to the next
            let base = (0..<(2 + Int(rng.next() % 3))).map { _ in generator.predicate(1 + Int(rng.next() % 3)) }
            var trees = base
            trees.append(PredicateNode(.and([base[0], base[1]])))
            trees.append(PredicateNode(.or([base[1], PredicateNode(.not(base[0]))])))
            trees.append(base[0])
            let texts = trees.map { $0.format(.roundTripSafe) }
            guard let parsed = try? texts.map({ try PredicateParser.parsePredicate($0).predicate }) else { continue }
            let inputs = (0..<3).map { _ in (objects.object(shape), objects.variables()) }
            for (object, variables) in inputs {
                for bound in [false, true] {
                    let rules = parsed.map { predicate in
                        bound
                            ? Binder.bind(
                                predicate, selfType: Binder.type(describing: object),
                                variables: variables.mapValues { Binder.type(describing: $0) })
                            : predicate
                    }
                    let set = try Compiler.compileRuleSet(Array(zip(rules, texts)))
                    if set.code.contains(where: { if case .memoStore = $0 { return true } else { return false } }) {
                        shared += 1
                    }
                    let layout = RuleSetSource(sources: texts)
                    var machine = VirtualMachine(program: set)
                    let answer = machine.evaluateRules(on: object, variables: variables)
                    for (index, rule) in rules.enumerated() {
                        let alone: String
                        let program = try Compiler.compile(rule, source: texts[index])
                        do throws(EvaluationError) {
                            alone = "\(try program.evaluate(on: object, variables: variables))"
                        } catch {
                            alone = "error \(error.message) at \(error.range.map(\.description) ?? "-")"
                            errors += 1
                        }
                        var together = "\(answer.isSatisfied(index))"
                        if let error = answer.error(of: index) {
                            let start = layout.starts[index]
                            let range = error.range.map { SourceRange($0.lowerBound - start, $0.upperBound - start) }
                            together = "error \(error.message) at \(range.map(\.description) ?? "-")"
                        }
                        #expect(together == alone, "group \(group), rule \(index) \(texts[index]), bound \(bound)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 5_000)
        #expect(errors > 50, "the generated rules should fail sometimes, to test that an error hides only its rule")
        #expect(shared > Self.groups, "rule sets should share sub-trees")
    }
}
