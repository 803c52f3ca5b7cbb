import PredicateSyntax
import PredicateValue
import Testing

/// SPEC §8.7 (printing, Apple's `predicateFormat`) as a table: what a case is built from, what it
/// must print in Apple's style (the default) and, where that differs, what it must print in the
/// round-trip-safe style. Rows marked §3.9b are further rules of that section; rows of issue 17
/// pin Apple's number, date and `NSNull` text.
@Suite struct PrintingVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        enum Source: Sendable {
            /// A format string with its arguments, parsed and then printed.
            case format(String, [Value])
            /// A tree built in code (SPEC's `AND[…]`, `OR[…]`, `NOT[…]`).
            case tree(PredicateNode)
        }

        let source: Source
        /// Apple's text (``PredicateFormatStyle/apple``).
        let expected: String
        /// The round-trip-safe text, when it differs from Apple's.
        var roundTrip: String?

        var testDescription: String {
            switch source {
            case .format(let text, let arguments):
                return arguments.isEmpty ? text : "\(text) with \(arguments.count) arguments"
            case .tree: return "tree printing \(expected)"
            }
        }
    }

    // Programmatic trees, written as SPEC §8.7 writes them.
    private static func and(_ operands: PredicateNode...) -> PredicateNode { PredicateNode(.and(operands)) }
    private static func or(_ operands: PredicateNode...) -> PredicateNode { PredicateNode(.or(operands)) }
    private static func not(_ operand: PredicateNode) -> PredicateNode { PredicateNode(.not(operand)) }
    private static func key(_ name: String) -> ExpressionNode {
        ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.key(name)]))
    }
    private static func compare(_ name: String, _ op: ComparisonOperator, _ value: Value) -> PredicateNode {
        PredicateNode(.comparison(Comparison(key(name), op, ExpressionNode(.constant(value)))))
    }
    private static func format(
        _ text: String, _ arguments: [Value] = [], prints expected: String, roundTrip: String? = nil
    ) -> Vector {
        Vector(source: .format(text, arguments), expected: expected, roundTrip: roundTrip)
    }
    private static func tree(_ predicate: PredicateNode, prints expected: String, roundTrip: String? = nil) -> Vector {
        Vector(source: .tree(predicate), expected: expected, roundTrip: roundTrip)
    }

    static let score = compare("score", .greater, .int(10))
    static let beginsTo = compare("name", .beginsWith, .string("To"))
    static let endsTa = compare("name", .endsWith, .string("ta"))
    static let aIs1 = compare("a", .equal, .int(1))
    static let bIs2 = compare("b", .equal, .int(2))

    static let vectors: [Vector] = [
        format("name == 'x'", prints: #"name == "x""#),
        format("%@ like %@", [.string("firstName"), .string("Adam")], prints: #""firstName" LIKE "Adam""#),
        format("%K like %@", [.string("firstName"), .string("Adam")], prints: #"firstName LIKE "Adam""#),
        format("'%K' like '%@'", prints: #""%K" LIKE "%@""#),
        format("isMale == YES", prints: "isMale == 1"),
        format("isMale == no", prints: "isMale == 0"),
        format(
            "SELF like[c] %@*%@", [.string("prefix"), .string("suffix")], prints: #"SELF LIKE[c] "prefix" * "suffix""#),
        tree(
            and(and(score, beginsTo), endsTa),
            prints: #"(score > 10 AND name BEGINSWITH "To") AND name ENDSWITH "ta""#),
        tree(
            or(and(score, beginsTo), endsTa),
            prints: #"(score > 10 AND name BEGINSWITH "To") OR name ENDSWITH "ta""#),
        tree(
            and(score, or(beginsTo, endsTa)),
            prints: #"score > 10 AND (name BEGINSWITH "To" OR name ENDSWITH "ta")"#),
        tree(not(aIs1), prints: "NOT a == 1"),
        tree(not(and(aIs1, bIs2)), prints: "NOT (a == 1 AND b == 2)"),
        tree(and(), prints: "TRUEPREDICATE"),
        tree(or(), prints: "FALSEPREDICATE"),
        tree(and(aIs1), prints: "a == 1"),
        format("(a + 1) * 2 == 4", prints: "(a + 1) * 2 == 4"),
        format("a + b * c == 1", prints: "a + (b * c) == 1"),
        format("NONE x == 1", prints: "NOT ANY x == 1"),
        format("SOME x == 1", prints: "ANY x == 1"),
        format("s CONTAINS[dc] 'x'", prints: #"s CONTAINS[cd] "x""#),
        format("sum({1, 2}) == 3", prints: "sum:({1, 2}) == 3"),
        // §3.9b: further rules.
        tree(or(aIs1), prints: "a == 1"),
        tree(and(aIs1, bIs2, aIs1), prints: "a == 1 AND b == 2 AND a == 1"),
        tree(not(or(aIs1, bIs2)), prints: "NOT (a == 1 OR b == 2)"),
        tree(not(not(aIs1)), prints: "NOT (NOT a == 1)"),
        tree(
            and(PredicateNode(.constant(true)), not(PredicateNode(.constant(false)))),
            prints: "TRUEPREDICATE AND (NOT FALSEPREDICATE)"),
        tree(compare("s", .equal, .string(#"a"b\c"#)), prints: #"s == "a\"b\\c""#),
        tree(compare("s", .equal, .nil), prints: "s == nil"),
        tree(compare("s", .equal, .null), prints: "s == <null>", roundTrip: "s == nil"),
        tree(compare("s", .equal, .bool(true)), prints: "s == 1"),
        format("a = 1 AND b =< 2 AND c => 3 AND d <> 4", prints: "a == 1 AND b <= 2 AND c >= 3 AND d != 4"),
        format("a - 1 - 2 == 0", prints: "(a - 1) - 2 == 0"),
        format("2 ** 3 ** 2 == 64", prints: "(2 ** 3) ** 2 == 64"),
        format("a & 1 | b ^ c << 2 >> d == 0", prints: "(a & 1) | (b ^ ((c << 2) >> d)) == 0"),
        format("a.firstName.length == 1", prints: "a.firstName.length == 1"),
        format("a.@count == 1 AND a[SIZE] == 1", prints: "a.@count == 1 AND a[SIZE] == 1"),
        format("a[first] == a[last] AND a[1] == 1", prints: "a[FIRST] == a[LAST] AND a[1] == 1"),
        format("$a == 1 AND SELF == 1 AND self.a == 1", prints: "$a == 1 AND SELF == 1 AND a == 1"),
        format("#size == 1 AND a.#like == 1 AND $#in == 1", prints: "#size == 1 AND a.#like == 1 AND $#in == 1"),
        format("a.'b.c' == 1", prints: #"a."b.c" == 1"#),
        format(
            "uppercase(name) == 'A' AND modulus:by:(7, 2) == 1",
            prints: #"uppercase:(name) == "A" AND modulus:by:(7, 2) == 1"#),
        format("now() > 0 AND max(1, 5, 10) == 10", prints: "now() > 0 AND max:({1, 5, 10}) == 10"),
        format("CAST(x, 'NSNumber') == 1", prints: #"CAST(x, "NSNumber") == 1"#),
        format("ANY a == 1 AND ALL b == 2", prints: "ANY a == 1 AND ALL b == 2"),
        format("a between {1, 2}", prints: "a BETWEEN {1, 2}"),
        format("a UTI-CONFORMS-TO 'public.image'", prints: #"a UTI-CONFORMS-TO "public.image""#),
        format("a uti-equals 'public.jpeg'", prints: #"a UTI-EQUALS "public.jpeg""#),
        format("s ==[wnldc] 'x' AND s <[wc] 'y'", prints: #"s ==[cdlnw] "x" AND s <[c] "y""#),
        format("SUBQUERY(items, $x, $x.a == 1).@count > 0", prints: "SUBQUERY(items, $x, $x.a == 1).@count > 0"),
        format("TERNARY(a == 1, 'y', 'n') == 'y'", prints: #"TERNARY(a == 1, "y", "n") == "y""#),
        format("$x := 1 == 1", prints: "$x := 1 == 1"),
        format("a UNION b INTERSECTION c == {}", prints: "(a UNION b) INTERSECTION c == {}"),
        format("-a == -1 AND -(1) == -1.5", prints: "0 - a == -1 AND -1 == -1.5"),
        format("a == -2 ** 2", prints: "a == 0 - (2 ** 2)"),
        // Issue 17: doubles as NSNumber describes them, `%0.16g` (XCTest suites assert
        // `score > 10` for the double 10; objc.io's logged `13.39657778010461 <= longitude`).
        format("score > 10.0", prints: "score > 10", roundTrip: "score > 10.0"),
        format("score BETWEEN {1.0, 10.0}", prints: "score BETWEEN {1, 10}", roundTrip: "score BETWEEN {1.0, 10.0}"),
        format("score > 10.5 AND score < 0.1", prints: "score > 10.5 AND score < 0.1"),
        format("x <= 13.39657778010461", prints: "x <= 13.39657778010461"),
        format("x == 9348.31", prints: "x == 9348.309999999999", roundTrip: "x == 9348.31"),
        format(
            "x == 1e16 AND y == 2.5e-7", prints: "x == 1e+16 AND y == 2.5e-07", roundTrip: "x == 1e+16 AND y == 2.5e-07"
        ),
        format("x == %@", [.double(1.0 / 3.0)], prints: "x == 0.3333333333333333"),
        format("x == %@", [.double(100)], prints: "x == 100", roundTrip: "x == 100.0"),
        format("x == 1e999 AND y == -1e999", prints: "x == inf AND y == -inf", roundTrip: "x == 1e999 AND y == -1e999"),
        format("x == %@", [.double(.nan)], prints: "x == nan", roundTrip: #"x == CAST("nan", "NSNumber")"#),
        format("x == 3.0 / 2", prints: "x == 3 / 2", roundTrip: "x == 3.0 / 2"),
        // Dates as `CAST(%f, "NSDate")` (five suites and debugger output, e.g. objc.io's
        // `CAST(-978250148.000000, "NSDate") <= $x.departureTime`).
        format(
            "d > %@", [.date(secondsSinceReferenceDate: -978_307_200)],
            prints: #"d > CAST(-978307200.000000, "NSDate")"#,
            roundTrip: #"d > CAST(-978307200.0, "NSDate")"#),
        format(
            "d > %@", [.date(secondsSinceReferenceDate: 347_518_800.25)],
            prints: #"d > CAST(347518800.250000, "NSDate")"#,
            roundTrip: #"d > CAST(347518800.25, "NSDate")"#),
        format(
            "d > CAST(347518800.000000, 'NSDate')", prints: #"d > CAST(347518800, "NSDate")"#,
            roundTrip: #"d > CAST(347518800.0, "NSDate")"#),
        // NSNull as `<null>`, at the top level (the Predicate Programming Guide: "The predicate
        // formed by this example is `date == <null>`") and inside collections.
        tree(compare("date", .equal, .null), prints: "date == <null>", roundTrip: "date == nil"),
        tree(compare("x", .in, .array([.int(1), .null])), prints: "x IN {1, <null>}", roundTrip: "x IN {1, nil}"),
        tree(
            compare("x", .in, .array([.array([.null]), .double(2)])), prints: "x IN {{<null>}, 2}",
            roundTrip: "x IN {{nil}, 2.0}"),
        format("x == nil AND y == NULL AND z == %@", [.null], prints: "x == nil AND y == nil AND z == nil"),
        // Issue 17: an index on a dotted key path prints its parentheses, since `a.d[0]` binds the
        // index to `d` (Apple's grammar, shown by a test run on Apple).
        tree(
            PredicateNode(
                .comparison(
                    Comparison(
                        ExpressionNode(
                            .index(
                                ExpressionNode(
                                    .keyPath(
                                        base: ExpressionNode(.evaluatedObject), components: [.key("a"), .key("d")])),
                                .expression(ExpressionNode(.constant(.int(0)))))),
                        .equal, ExpressionNode(.constant(.int(1)))))),
            prints: "(a.d)[0] == 1"),
        tree(
            PredicateNode(
                .comparison(
                    Comparison(
                        ExpressionNode(
                            .index(
                                ExpressionNode(.keyPath(base: ExpressionNode(.variable("x")), components: [.key("d")])),
                                .size)),
                        .equal, ExpressionNode(.constant(.int(1)))))),
            prints: "($x.d)[SIZE] == 1"),
        format("a.d[0] == 1", prints: "a.d[0] == 1"),
    ]

    @Test(arguments: vectors) func prints(_ vector: Vector) throws {
        let predicate: PredicateNode
        switch vector.source {
        case .format(let text, let arguments):
            predicate = try PredicateParser.parsePredicate(text, arguments: arguments).predicate
        case .tree(let tree):
            predicate = tree
        }
        #expect(predicate.format == vector.expected)
        #expect(predicate.format(.apple) == vector.expected)
        #expect(predicate.format(.roundTripSafe) == (vector.roundTrip ?? vector.expected))
    }
}
