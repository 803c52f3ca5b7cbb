import Foundation
import PredicateSQL
import PredicateSyntax
import PredicateValue

/// Items and rules over ``TestMapping``, drawn from small pools so that equalities hit, with
/// values of the wrong kind, nils, and strings that fold, decompose or look like SQL.
enum Generators {
    static let names: [Value] = [
        .string(""), .string("a"), .string("A"), .string("abc"), .string("ABC"), .string("é"),
        .string("e\u{301}"), .string("straße"), .string("STRASSE"), .string("naïve"), .string("x.jpg"),
        .string("X.JPG"), .string("😀"), .string("\u{FFFD}"), .string("a*b"), .string("a'b"), .nil,
    ]
    static let kinds: [Value] = [
        .string("public.jpeg"), .string("PUBLIC.JPEG"), .string("public.plain-text"), .string("dyn.abc"),
        .string("com.adobe.pdf"), .string("foo"), .string("public.image"), .nil,
    ]
    static let sizes: [Value] = [
        .int(-2), .int(0), .int(1), .int(5), .int(100), .int(9_007_199_254_740_993), .int(Int64.max), .nil,
    ]
    static let scores: [Value] = [.double(-1.5), .double(0), .double(2.5), .double(100), .double(1e300), .nil]
    static let dates: [Value] = [
        .date(secondsSinceReferenceDate: 0), .date(secondsSinceReferenceDate: 1e6),
        .date(secondsSinceReferenceDate: -3.5), .nil,
    ]
    static let ranks: [Value] = [.int(1), .double(2.5), .string("1"), .string("a"), .bool(true), .int(0), .null]

    static func item(_ random: inout SplitMix64) -> [String: Value] {
        var item: [String: Value] = [:]
        func put(_ key: String, _ value: Value) { if !value.isNil { item[key] = value } }
        put("bytes", random.pick(sizes))
        put("score", random.pick(scores))
        put("name", random.pick(names))
        put("flag", random.pick([.bool(true), .bool(false), .nil]))
        put("modified", random.pick(dates))
        put("kind", random.pick(kinds))
        if random.chance(70) {
            var info: [String: Value] = [:]
            if random.chance(70) { info["rank"] = random.pick(ranks) }
            if random.chance(50) { info["note"] = random.pick(names.filter { !$0.isNil }) }
            item["userInfo"] = .dictionary(info)
        }
        var tags: [Value] = []
        for _ in 0..<random.below(4) {
            var tag: [String: Value] = ["weight": random.pick([.int(0), .int(1), .int(3), .int(10)])]
            let label = random.pick(names)
            if !label.isNil { tag["label"] = label }
            tags.append(.dictionary(tag))
        }
        item["tags"] = .array(tags)
        return item
    }

    static let constants: [Value] = [
        .nil, .bool(true), .bool(false), .int(0), .int(1), .int(5), .int(-2), .int(100), .int(9_007_199_254_740_992),
        .int(Int64.max), .uint(UInt64.max), .double(2.5), .double(-1.5), .double(0), .double(100), .double(1e300),
        .double(9.3e18), .double(.nan), .string("a"), .string("A"), .string("abc"), .string("é"), .string("e\u{301}"),
        .string("STRASSE"), .string("x.jpg"), .string(""), .string("public.image"), .string("public.jpeg"),
        .string("public.data"), .string("dyn.abc"), .string("'; DROP TABLE items; --"), .string("a\u{0}b"),
        .date(secondsSinceReferenceDate: 0), .date(secondsSinceReferenceDate: 1e6),
        .array([.int(0), .int(100)]), .array([.int(100), .int(0)]), .array([.string("a"), .string("abc")]),
        .array([.int(1), .string("a"), .null]), .array([.double(2.5), .string("x")]), .array([]),
        .array([.date(secondsSinceReferenceDate: -10), .date(secondsSinceReferenceDate: 10)]),
        .dictionary(["k": .string("a")]), .decimal(Decimal(1)),
    ]
    static let patterns: [Value] = [
        .string("a*"), .string("*b*"), .string("?"), .string("a\\"), .string(""), .string("*.JPG"), .string("a.*"),
        .string("["), .string(".*é.*"), .string("(?i)abc"), .string("\\w+"),
    ]
    static let options: [ComparisonOptions] = [
        [], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive], .normalized,
        [.caseInsensitive, .normalized],
    ]

    static func rule(_ random: inout SplitMix64, depth: Int = 0) -> PredicateSyntax.PredicateNode {
        if depth < 3 && random.chance(45) {
            let operands = (0..<(2 + random.below(2))).map { _ in rule(&random, depth: depth + 1) }
            switch random.below(3) {
            case 0: return PredicateSyntax.PredicateNode(.and(operands))
            case 1: return PredicateSyntax.PredicateNode(.or(operands))
            default: return PredicateSyntax.PredicateNode(.not(operands[0]))
            }
        }
        if random.chance(3) { return PredicateSyntax.PredicateNode(.constant(random.chance(50))) }
        if random.chance(4) {
            // An allow-list, which the translator turns into one IN list.
            let key = random.pick(scalarKeys)
            let operands = (0..<(2 + random.below(4))).map { _ in
                TestMapping.compare(
                    TestMapping.key(key), .equal,
                    TestMapping.constant(random.chance(80) ? random.pick(typedConstants(key)) : random.pick(constants)))
            }
            return PredicateSyntax.PredicateNode(.or(operands))
        }
        return comparison(&random)
    }

    /// Constants of the kind each key holds, so that most comparisons are well-typed and can
    /// push down; the rest come from ``constants``, of every kind.
    static func typedConstants(_ key: String) -> [Value] {
        switch key {
        case "bytes", "weight", "flag", "score", "rank":
            return sizes + scores + [.bool(true), .bool(false), .double(2.5), .array([.int(0), .int(100)])]
        case "modified":
            return dates + [.array([.date(secondsSinceReferenceDate: -10), .date(secondsSinceReferenceDate: 10)])]
        case "kind":
            return kinds + [.string("public.data"), .string("public.item"), .string("public.text")]
        default:
            return names + [.array([.string("a"), .string("abc")]), .string("STRASSE"), .string("A")]
        }
    }

    private static let scalarKeys = ["bytes", "score", "name", "flag", "modified", "kind"]

    private static func comparison(_ random: inout SplitMix64) -> PredicateSyntax.PredicateNode {
        let op = random.pick(ComparisonOperator.allCases.filter { $0 != .tokenMatches })
        let options = random.pick(options)
        func constant(for key: String, _ op: ComparisonOperator) -> PredicateSyntax.ExpressionNode {
            if op == .like || op == .matches { return TestMapping.constant(random.pick(patterns)) }
            return TestMapping.constant(random.chance(70) ? random.pick(typedConstants(key)) : random.pick(constants))
        }
        switch random.below(10) {
        case 0:
            let element = random.pick(["label", "weight"])
            return TestMapping.compare(
                TestMapping.key("tags", element), op, constant(for: element, op), random.chance(50) ? .any : .all,
                options)
        case 1:
            let count: PredicateSyntax.ExpressionNode
            if random.chance(20) {
                count = TestMapping.key("tags", "@count")
            } else if random.chance(25) {
                count = PredicateSyntax.ExpressionNode(.index(TestMapping.key("tags"), .size))
            } else {
                let element = random.pick(["label", "weight"])
                let innerOp = random.pick([ComparisonOperator.equal, .greater, .notEqual, .beginsWith, .lessOrEqual])
                let inner = TestMapping.compare(
                    PredicateSyntax.ExpressionNode(
                        .keyPath(base: PredicateSyntax.ExpressionNode(.variable("t")), components: [.key(element)])),
                    innerOp,
                    constant(for: element, innerOp), .direct, options)
                let subquery = PredicateSyntax.ExpressionNode(
                    .subquery(collection: TestMapping.key("tags"), variable: "t", predicate: inner))
                count = PredicateSyntax.ExpressionNode(.keyPath(base: subquery, components: [.key("@count")]))
            }
            let bound = TestMapping.constant(
                random.pick([.int(0), .int(1), .int(2), .double(1.5), .string("1"), .nil]))
            return TestMapping.compare(count, random.pick([.greater, .equal, .lessOrEqual, .notEqual]), bound)
        case 2:
            let key = random.pick(["rank", "note", "missing"])
            return TestMapping.compare(TestMapping.key("userInfo", key), op, constant(for: key, op), .direct, options)
        case 3:
            let key = random.pick(scalarKeys)
            return TestMapping.compare(constant(for: key, op), op, TestMapping.key(key), .direct, options)
        case 4:
            if random.chance(50) {
                // A constant sub-expression, computed once by the translator (or failing on every row).
                let key = random.pick(["bytes", "score", "modified"])
                let operand = TestMapping.constant(random.pick([.int(2), .double(1.5), .string("x"), .nil]))
                let product = PredicateSyntax.ExpressionNode(
                    .function("multiply:by:", [operand, TestMapping.constant(.int(3))]))
                return TestMapping.compare(
                    TestMapping.key(key), random.pick([.greater, .equal, .lessOrEqual]), product)
            }
            return TestMapping.compare(
                TestMapping.constant(random.pick(names.filter { !$0.isNil })), .in, TestMapping.key("tags", "label"))
        default:
            let key = random.pick(scalarKeys)
            return TestMapping.compare(TestMapping.key(key), op, constant(for: key, op), .direct, options)
        }
    }
}
