import PredicateSyntax
import PredicateValue
import Testing

/// SPEC §8.7 (printing, Apple's `predicateFormat`) as a table: what a case is built from, and
/// what it must print. Rows marked §3.9b are further rules of that section.
@Suite struct PrintingVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        enum Source: Sendable {
            /// A format string with its arguments, parsed and then printed.
            case format(String, [Value])
            /// A tree built in code (SPEC's `AND[…]`, `OR[…]`, `NOT[…]`).
            case tree(Predicate)
        }

        let source: Source
        let expected: String

        var testDescription: String {
            switch source {
            case .format(let text, let arguments):
                return arguments.isEmpty ? text : "\(text) with \(arguments.count) arguments"
            case .tree: return "tree printing \(expected)"
            }
        }
    }

    // Programmatic trees, written as SPEC §8.7 writes them.
    private static func and(_ operands: Predicate...) -> Predicate { Predicate(.and(operands)) }
    private static func or(_ operands: Predicate...) -> Predicate { Predicate(.or(operands)) }
    private static func not(_ operand: Predicate) -> Predicate { Predicate(.not(operand)) }
    private static func key(_ name: String) -> Expression {
        Expression(.keyPath(base: Expression(.evaluatedObject), components: [.key(name)]))
    }
    private static func compare(_ name: String, _ op: ComparisonOperator, _ value: Value) -> Predicate {
        Predicate(.comparison(Comparison(key(name), op, Expression(.constant(value)))))
    }
    private static func format(_ text: String, _ arguments: [Value] = [], prints expected: String) -> Vector {
        Vector(source: .format(text, arguments), expected: expected)
    }
    private static func tree(_ predicate: Predicate, prints expected: String) -> Vector {
        Vector(source: .tree(predicate), expected: expected)
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
            and(Predicate(.constant(true)), not(Predicate(.constant(false)))),
            prints: "TRUEPREDICATE AND (NOT FALSEPREDICATE)"),
        tree(compare("s", .equal, .string(#"a"b\c"#)), prints: #"s == "a\"b\\c""#),
        tree(compare("s", .equal, .nil), prints: "s == nil"),
        tree(compare("s", .equal, .null), prints: "s == nil"),
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
    ]

    @Test(arguments: vectors) func prints(_ vector: Vector) throws {
        let printed: String
        switch vector.source {
        case .format(let text, let arguments):
            printed = try PredicateParser.parsePredicate(text, arguments: arguments).predicate.format
        case .tree(let predicate):
            printed = predicate.format
        }
        #expect(printed == vector.expected)
    }
}
