import PredicateValue
import Testing

import class Foundation.ProcessInfo

@testable import PredicateSyntax

/// Property: for every well-formed syntax tree `t`, `parse(print(t)) == t` and
/// `print(parse(print(t))) == print(t)` (SPEC §3.9b) in the round-trip-safe style, checked on
/// random trees; in Apple's style the text always parses, and the same property holds wherever
/// Apple's text keeps the meaning of every constant (``AppleText/keepsMeaning(_:)``).
///
/// The run is seeded. `ROUNDTRIP_SEED` (decimal or `0x` hex) overrides the seed and
/// `ROUNDTRIP_COUNT` the number of trees; a failure names the seed of its own case, so
/// `ROUNDTRIP_SEED=<case seed> ROUNDTRIP_COUNT=1 swift test --filter RoundTripTests` replays it.
@Suite struct RoundTripTests {
    static let defaultSeed: UInt64 = 0x5EED_C0DE_2026_0001
    static let defaultCount = 10_000

    static var seed: UInt64 { environmentNumber("ROUNDTRIP_SEED") ?? defaultSeed }
    static var count: Int { environmentNumber("ROUNDTRIP_COUNT").map { Int(clamping: $0) } ?? defaultCount }

    private static func environmentNumber(_ name: String) -> UInt64? {
        guard let text = ProcessInfo.processInfo.environment[name] else { return nil }
        if text.lowercased().hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    @Test func predicatesRoundTrip() {
        let seed = RoundTripTests.seed
        var coverage = TreeCoverage()
        var failures = 0
        for index in 0..<RoundTripTests.count {
            let caseSeed = TreeRandom.caseSeed(seed, index: index)
            var generator = SyntaxTreeGenerator(seed: caseSeed)
            let tree = generator.predicate(depth: 1 + generator.random.below(5))
            coverage.record(tree)
            guard let problem = TreeRoundTrip.problem(with: tree) else { continue }
            let shrunk = Shrinker.shrink(tree) { TreeRoundTrip.problem(with: $0) != nil }
            Issue.record(
                """
                round trip failed for case \(index) of seed \(hex(seed)) \
                (replay: ROUNDTRIP_SEED=\(hex(caseSeed)) ROUNDTRIP_COUNT=1)
                tree printed:   \(tree.format(.roundTripSafe).debugDescription)
                \(problem)
                shrunk printed: \(shrunk.format(.roundTripSafe).debugDescription)
                \(TreeRoundTrip.problem(with: shrunk, verbose: true) ?? "")
                """)
            failures += 1
            if failures == 5 { break }
        }
        if RoundTripTests.count >= RoundTripTests.defaultCount {
            let missing = TreeCoverage.expected.subtracting(coverage.seen).sorted()
            let unexpected = coverage.seen.subtracting(TreeCoverage.expected).sorted()
            #expect(missing.isEmpty, "the generator never produced: \(missing)")
            #expect(unexpected.isEmpty, "the generator produced shapes that do not round-trip: \(unexpected)")
        }
    }

    @Test func expressionsRoundTrip() {
        let seed = RoundTripTests.seed
        var failures = 0
        for index in 0..<max(1, RoundTripTests.count / 4) {
            let caseSeed = TreeRandom.caseSeed(seed, index: index)
            var generator = SyntaxTreeGenerator(seed: caseSeed)
            let tree = generator.expression(depth: 1 + generator.random.below(5))
            guard let problem = TreeRoundTrip.problem(with: tree) else { continue }
            let shrunk = Shrinker.shrink(tree) { TreeRoundTrip.problem(with: $0) != nil }
            Issue.record(
                """
                expression round trip failed for case \(index) of seed \(hex(seed)) \
                (replay: ROUNDTRIP_SEED=\(hex(caseSeed)) ROUNDTRIP_COUNT=1)
                tree printed:   \(tree.format(.roundTripSafe).debugDescription)
                \(problem)
                shrunk printed: \(shrunk.format(.roundTripSafe).debugDescription)
                \(TreeRoundTrip.problem(with: shrunk, verbose: true) ?? "")
                """)
            failures += 1
            if failures == 5 { break }
        }
    }

    /// Apple's style on the same trees. `<null>` is excluded by construction (the generator makes
    /// no `null` constants: neither Apple's parser nor ours reads `<null>`).
    @Test func appleTextRoundTripsWhereItKeepsTheMeaning() {
        let seed = RoundTripTests.seed
        var kept = 0
        var failures = 0
        for index in 0..<RoundTripTests.count {
            let caseSeed = TreeRandom.caseSeed(seed, index: index)
            var generator = SyntaxTreeGenerator(seed: caseSeed)
            let tree = generator.predicate(depth: 1 + generator.random.below(5))
            let keepsMeaning = AppleText.keepsMeaning(.predicate(tree))
            if keepsMeaning { kept += 1 }
            guard let problem = AppleText.problem(with: tree, keepsMeaning: keepsMeaning) else { continue }
            Issue.record(
                """
                Apple's text failed for case \(index) of seed \(hex(seed)) \
                (replay: ROUNDTRIP_SEED=\(hex(caseSeed)) ROUNDTRIP_COUNT=1)
                tree printed:   \(tree.format.debugDescription)
                \(problem)
                """)
            failures += 1
            if failures == 5 { break }
        }
        // Most trees hold no double whose text changes; the property must not hold vacuously.
        if RoundTripTests.count >= RoundTripTests.defaultCount {
            #expect(kept > RoundTripTests.count / 2, "only \(kept) trees kept their meaning in Apple's text")
        }
    }

    @Test func appleExpressionTextRoundTripsWhereItKeepsTheMeaning() {
        let seed = RoundTripTests.seed
        var failures = 0
        for index in 0..<max(1, RoundTripTests.count / 4) {
            let caseSeed = TreeRandom.caseSeed(seed, index: index)
            var generator = SyntaxTreeGenerator(seed: caseSeed)
            let tree = generator.expression(depth: 1 + generator.random.below(5))
            let keepsMeaning = AppleText.keepsMeaning(.expression(tree))
            guard let problem = AppleText.problem(with: tree, keepsMeaning: keepsMeaning) else { continue }
            Issue.record(
                """
                Apple's expression text failed for case \(index) of seed \(hex(seed)) \
                (replay: ROUNDTRIP_SEED=\(hex(caseSeed)) ROUNDTRIP_COUNT=1)
                tree printed:   \(tree.format.debugDescription)
                \(problem)
                """)
            failures += 1
            if failures == 5 { break }
        }
    }

    /// Which constants keep their meaning in Apple's text.
    @Test(arguments: [
        (Value.double(10.5), true), (.double(0.1), true), (.double(-1.5), true), (.double(10), false),
        (.double(-0.0), false), (.double(9348.31), true), (.double(0.1 + 0.2), false), (.double(1e16), true),
        (.double(.infinity), false),
        (.double(.greatestFiniteMagnitude), false), (.int(10), true), (.string("10.0"), true), (.nil, true),
    ])
    func appleTextKeepsTheMeaningOf(_ value: Value, _ keeps: Bool) {
        #expect(AppleText.keepsMeaning(.expression(ExpressionNode(.constant(value)))) == keeps)
    }

    /// The generator is deterministic: one seed, one tree (so that a printed seed replays).
    @Test func generatorIsDeterministic() {
        var first = SyntaxTreeGenerator(seed: 42)
        var second = SyntaxTreeGenerator(seed: 42)
        #expect(first.predicate(depth: 5) == second.predicate(depth: 5))
        #expect(TreeRandom.caseSeed(7, index: 0) == 7)
        var numbers = TreeRandom(seed: 0)
        #expect(numbers.next() == 0xE220_A839_7B1D_CDAF)
    }

    /// The shrinker finds a small witness: here a tree "fails" when it contains a `CAST`.
    @Test func shrinkerReducesToAMinimalWitness() {
        let cast = ExpressionNode(
            .cast(ExpressionNode(.constant(.string("1"))), ExpressionNode(.constant(.string("NSNumber")))))
        let big = PredicateNode(
            .and([
                PredicateNode(.comparison(Comparison(ExpressionNode(.aggregate([cast, cast])), .in, keyPath("a")))),
                PredicateNode(.not(PredicateNode(.comparison(Comparison(keyPath("b"), .equal, keyPath("c")))))),
            ]))
        let shrunk = Shrinker.shrink(big) { $0.format(.roundTripSafe).contains("CAST(") }
        #expect(shrunk.format(.roundTripSafe).count < big.format(.roundTripSafe).count)
        #expect(shrunk.format(.roundTripSafe) == "CAST(1, 1) == 1")
    }

    private func keyPath(_ key: String) -> ExpressionNode {
        ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.key(key)]))
    }
}

private func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16, uppercase: true) }

// MARK: - The property

/// The round-trip property, returning a description of what went wrong (`nil` when it holds).
enum TreeRoundTrip {
    /// With `verbose`, a tree mismatch also shows both trees in full (for small, shrunk trees).
    static func problem(with tree: PredicateNode, verbose: Bool = false) -> String? {
        let printed = tree.format(.roundTripSafe)
        let parsed: ParsedPredicate
        do {
            parsed = try PredicateParser.parsePredicate(printed)
        } catch {
            return "print does not parse: \(error.rendered())"
        }
        if parsed.predicate != tree {
            let trees = verbose ? "\nexpected: \(tree)\nreparsed: \(parsed.predicate)" : ""
            return
                "parse(print(t)) != t; the reparsed tree prints \(parsed.predicate.format(.roundTripSafe).debugDescription)\(trees)"
        }
        if parsed.predicate.format(.roundTripSafe) != printed {
            return "print(parse(print(t))) prints \(parsed.predicate.format(.roundTripSafe).debugDescription)"
        }
        if !parsed.warnings.isEmpty {
            return "the canonical form draws warnings: \(parsed.warnings.map(\.description))"
        }
        return nil
    }

    static func problem(with tree: ExpressionNode, verbose: Bool = false) -> String? {
        let printed = tree.format(.roundTripSafe)
        let parsed: ParsedExpression
        do {
            parsed = try PredicateParser.parseExpression(printed)
        } catch {
            return "print does not parse: \(error.rendered())"
        }
        if parsed.expression != tree {
            let trees = verbose ? "\nexpected: \(tree)\nreparsed: \(parsed.expression)" : ""
            return
                "parse(print(t)) != t; the reparsed tree prints \(parsed.expression.format(.roundTripSafe).debugDescription)\(trees)"
        }
        if parsed.expression.format(.roundTripSafe) != printed {
            return "print(parse(print(t))) prints \(parsed.expression.format(.roundTripSafe).debugDescription)"
        }
        if !parsed.warnings.isEmpty {
            return "the canonical form draws warnings: \(parsed.warnings.map(\.description))"
        }
        return nil
    }
}

/// The round-trip property for Apple's style.
enum AppleText {
    /// Whether every constant in the tree prints, in Apple's style, as text that lexes back to
    /// the same value of the same kind. A double fails when `%0.16g` drops its fraction (`10`
    /// is an integer), its sign (`-0`), or a digit it needs (`9348.309999999999`), or when it is
    /// not finite.
    static func keepsMeaning(_ node: SyntaxNode) -> Bool {
        switch node {
        case .expression(let expression):
            if case .constant(let value) = expression.kind, case .double = value {
                let text = expression.format(.apple)
                guard let parsed = try? PredicateParser.parseExpression(text) else { return false }
                return parsed.expression == expression
            }
            return expression.kind.children.allSatisfy(keepsMeaning)
        case .predicate(let predicate):
            return predicate.kind.children.allSatisfy(keepsMeaning)
        }
    }

    static func problem(with tree: PredicateNode, keepsMeaning: Bool) -> String? {
        let printed = tree.format(.apple)
        let parsed: PredicateNode
        do {
            parsed = try PredicateParser.parsePredicate(printed).predicate
        } catch {
            return "Apple's text does not parse: \(error.rendered())"
        }
        guard keepsMeaning else { return nil }
        if parsed != tree { return "parse(print(t)) != t; the reparsed tree prints \(parsed.format.debugDescription)" }
        if parsed.format(.apple) != printed { return "print(parse(print(t))) prints \(parsed.format.debugDescription)" }
        return nil
    }

    static func problem(with tree: ExpressionNode, keepsMeaning: Bool) -> String? {
        let printed = tree.format(.apple)
        let parsed: ExpressionNode
        do {
            parsed = try PredicateParser.parseExpression(printed).expression
        } catch {
            return "Apple's text does not parse: \(error.rendered())"
        }
        guard keepsMeaning else { return nil }
        if parsed != tree { return "parse(print(t)) != t; the reparsed tree prints \(parsed.format.debugDescription)" }
        if parsed.format(.apple) != printed { return "print(parse(print(t))) prints \(parsed.format.debugDescription)" }
        return nil
    }
}

// MARK: - Shrinking

/// Greedy shrinking: repeatedly replace the tree by the first simpler variant that still fails.
/// Every variant is again a well-formed, round-trippable tree (AND/OR keep two operands,
/// functions keep their arity), so a shrunk failure is a real failure.
enum Shrinker {
    static func shrink(_ tree: PredicateNode, stillFails: (PredicateNode) -> Bool) -> PredicateNode {
        var current = tree
        var steps = 0
        search: while steps < 1_000 {
            for candidate in candidates(current) where stillFails(candidate) {
                current = candidate
                steps += 1
                continue search
            }
            break
        }
        return current
    }

    static func shrink(_ tree: ExpressionNode, stillFails: (ExpressionNode) -> Bool) -> ExpressionNode {
        var current = tree
        var steps = 0
        search: while steps < 1_000 {
            for candidate in candidates(current) where stillFails(candidate) {
                current = candidate
                steps += 1
                continue search
            }
            break
        }
        return current
    }

    static func candidates(_ predicate: PredicateNode) -> [PredicateNode] {
        switch predicate.kind {
        case .constant:
            return []
        case .not(let operand):
            return [operand] + candidates(operand).map { PredicateNode(.not($0)) }
        case .and(let operands):
            return compoundCandidates(operands) { PredicateNode(.and($0)) }
        case .or(let operands):
            return compoundCandidates(operands) { PredicateNode(.or($0)) }
        case .comparison(let comparison):
            var result: [PredicateNode] = [PredicateNode(.constant(true))]
            result += nestedPredicates(comparison.lhs) + nestedPredicates(comparison.rhs)
            var simpler = comparison
            if comparison.quantifier != .direct || !comparison.options.isEmpty || comparison.op != .equal {
                simpler.quantifier = .direct
                simpler.options = []
                simpler.op = .equal
                result.append(PredicateNode(.comparison(simpler)))
            }
            for lhs in candidates(comparison.lhs) {
                var variant = comparison
                variant.lhs = lhs
                result.append(PredicateNode(.comparison(variant)))
            }
            for rhs in candidates(comparison.rhs) {
                var variant = comparison
                variant.rhs = rhs
                result.append(PredicateNode(.comparison(variant)))
            }
            return result
        }
    }

    private static func compoundCandidates(
        _ operands: [PredicateNode], rebuild: ([PredicateNode]) -> PredicateNode
    ) -> [PredicateNode] {
        var result = operands
        if operands.count > 2 {
            for index in operands.indices {
                var fewer = operands
                fewer.remove(at: index)
                result.append(rebuild(fewer))
            }
        }
        for index in operands.indices {
            for candidate in candidates(operands[index]) {
                var variant = operands
                variant[index] = candidate
                result.append(rebuild(variant))
            }
        }
        return result
    }

    /// The predicates inside an expression (SUBQUERY and TERNARY conditions), as replacements.
    private static func nestedPredicates(_ expression: ExpressionNode) -> [PredicateNode] {
        switch expression.kind {
        case .subquery(_, _, let predicate): return [predicate]
        case .ternary(let condition, _, _): return [condition]
        default: return []
        }
    }

    static func candidates(_ expression: ExpressionNode) -> [ExpressionNode] {
        let one = ExpressionNode(.constant(.int(1)))
        var result: [ExpressionNode] = expression == one ? [] : [one]
        func rebuilt<Part>(
            _ parts: [Part], at index: Int, with part: Part, _ make: ([Part]) -> ExpressionNode
        ) -> ExpressionNode {
            var variant = parts
            variant[index] = part
            return make(variant)
        }
        func each(_ parts: [ExpressionNode], _ make: ([ExpressionNode]) -> ExpressionNode) {
            for index in parts.indices {
                for candidate in candidates(parts[index]) {
                    result.append(rebuilt(parts, at: index, with: candidate, make))
                }
            }
        }
        switch expression.kind {
        case .constant(let value):
            if case .string(let text) = value, !text.isEmpty {
                for index in text.indices {
                    var shorter = text
                    shorter.remove(at: index)
                    result.append(ExpressionNode(.constant(.string(shorter))))
                }
            }
        case .evaluatedObject, .variable, .anyKey:
            break
        case .keyPath(let base, let components):
            result.append(base)
            if base.kind != .evaluatedObject {
                result.append(ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: components)))
            }
            if components.count > 1 {
                for index in components.indices {
                    var fewer = components
                    fewer.remove(at: index)
                    result.append(ExpressionNode(.keyPath(base: base, components: fewer)))
                }
            }
            if components != [.key("a")] {
                result.append(ExpressionNode(.keyPath(base: base, components: [.key("a")])))
            }
            for candidate in candidates(base) {
                result.append(ExpressionNode(.keyPath(base: candidate, components: components)))
            }
        case .function(let selector, let arguments):
            result += arguments
            each(arguments) { ExpressionNode(.function(selector, $0)) }
        case .invoke(let receiver, let selector, let arguments):
            result += [receiver] + arguments
            if !arguments.isEmpty {
                result.append(ExpressionNode(.invoke(receiver: receiver, selector: selector, arguments: [])))
            }
            each([receiver] + arguments) {
                ExpressionNode(.invoke(receiver: $0[0], selector: selector, arguments: Array($0.dropFirst())))
            }
        case .aggregate(let elements):
            result += elements
            for index in elements.indices {
                var fewer = elements
                fewer.remove(at: index)
                result.append(ExpressionNode(.aggregate(fewer)))
            }
            each(elements) { ExpressionNode(.aggregate($0)) }
        case .index(let base, let spec):
            result.append(base)
            if case .expression(let index) = spec {
                result += [index, ExpressionNode(.index(base, .first))]
                each([base, index]) { ExpressionNode(.index($0[0], .expression($0[1]))) }
            } else {
                each([base]) { ExpressionNode(.index($0[0], spec)) }
            }
        case .subquery(let collection, let variable, let predicate):
            result.append(collection)
            each([collection]) {
                ExpressionNode(.subquery(collection: $0[0], variable: variable, predicate: predicate))
            }
            for candidate in candidates(predicate) {
                result.append(
                    ExpressionNode(.subquery(collection: collection, variable: variable, predicate: candidate)))
            }
        case .ternary(let condition, let whenTrue, let whenFalse):
            result += [whenTrue, whenFalse]
            each([whenTrue, whenFalse]) { ExpressionNode(.ternary(condition, $0[0], $0[1])) }
            for candidate in candidates(condition) {
                result.append(ExpressionNode(.ternary(candidate, whenTrue, whenFalse)))
            }
        case .cast(let value, let type):
            result += [value, type]
            each([value, type]) { ExpressionNode(.cast($0[0], $0[1])) }
        case .assignment(let variable, let value):
            result.append(value)
            each([value]) { ExpressionNode(.assignment(variable: variable, $0[0])) }
        case .setOperation(let op, let lhs, let rhs):
            result += [lhs, rhs]
            each([lhs, rhs]) { ExpressionNode(.setOperation(op, $0[0], $0[1])) }
        }
        return result
    }
}
