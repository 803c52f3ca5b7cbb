import PredicateSyntax
import PredicateValue
import Testing

/// The lexing and parsing vectors of SPEC §8.1, as parse results (evaluation comes later).
@Suite struct SpecLexingAndParsingVectors {
    static let cases: [ParseCase] = [
        ParseCase("\tself =\n123\n", .prints("SELF == 123")),
        ParseCase("truePredicate", .prints("TRUEPREDICATE")),
        ParseCase("FALSEpredicate", .prints("FALSEPREDICATE")),
        ParseCase("? = 'ABC'", .fails(at: "1:1", containing: "unexpected character '?'")),
        ParseCase("1+1 /* c */", .fails(at: "1:6", containing: "expected an expression"), expression: true),
        ParseCase("1\\n+1", .fails(at: "1:2", containing: "backslash"), expression: true),
        ParseCase("0x4444+0x2222", .prints("17476 + 8738"), expression: true),
        ParseCase("#like LIKE 'like'", .prints("#like LIKE \"like\"")),
        ParseCase("self = \"%@\"", [.string("G'day mate")], .prints("SELF == \"%@\"")),
        ParseCase("self == '%@'", .prints("SELF == \"%@\"")),
        ParseCase("%K == %@", [.string("a.b"), .int(1)], .prints("a.b == 1")),
        ParseCase("name == %@", .fails(at: "1:9", containing: "insufficient arguments")),
        ParseCase("age", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("a < b < c", .fails(at: "1:7", containing: "cannot be chained")),
        ParseCase("SUBQUERY(items, x, x.a == 1).@count > 0", .fails(at: "1:17", containing: "needs a variable")),
        ParseCase("1 << 3 == 8", .prints("1 << 3 == 8")),
        ParseCase("8 >> 2 == 2", .prints("8 >> 2 == 2")),
        ParseCase("2 & 1 == 0", .prints("2 & 1 == 0")),
        ParseCase("2 | 1 == 3", .prints("2 | 1 == 3")),
        ParseCase("2 ^ 1 == 3", .prints("2 ^ 1 == 3")),
        ParseCase("1 ^ 1 == 0", .prints("1 ^ 1 == 0")),
        ParseCase("~(1) == 0", .fails(at: "1:1", containing: "unsupported operator '~'")),
        ParseCase("sum:({1, 2, 3}) == 6", .prints("sum:({1, 2, 3}) == 6")),
        ParseCase("a == 1 OR b == 2 AND c == 3", .prints("a == 1 OR (b == 2 AND c == 3)")),
        ParseCase("1", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("TRUE", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("0 || 1", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("modulus:by:(7, 2) == 1", .prints("modulus:by:(7, 2) == 1")),
        ParseCase("foo(1) == 1", .fails(at: "1:1", containing: "unknown function 'foo'")),
        ParseCase("a.'b.c' == 1", .prints("a.\"b.c\" == 1")),
        ParseCase("s == ''", .prints("s == \"\"")),
        ParseCase("\"\" == s", .prints("\"\" == s")),
    ]

    @Test(arguments: cases) func vector(_ testCase: ParseCase) { testCase.check() }

    @Test func andOrMixWarnsAndIsAnErrorInStrictMode() throws {
        let rule = "a == 1 OR b == 2 AND c == 3"
        let parsed = try PredicateParser.parsePredicate(rule)
        let warning = try #require(parsed.warnings.first)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("'a == 1 OR (b == 2 AND c == 3)'"))
        #expect(warning.message.contains("'(a == 1 OR b == 2) AND c == 3'"))
        #expect(warning.location.description == "1:1")
        #expect(throws: Diagnostic.self) {
            try PredicateParser.parsePredicate(rule, options: ParseOptions(strict: true))
        }
        #expect(try PredicateParser.parsePredicate("(a == 1 OR b == 2) AND c == 3").warnings.isEmpty)
        #expect(try PredicateParser.parsePredicate("a == 1 OR (b == 2 AND c == 3)").warnings.isEmpty)
    }
}

/// Precedence and associativity: the canonical printer parenthesises every infix operand and
/// every compound predicate operand, so the printed form shows the tree's grouping.
@Suite struct PrecedenceTests {
    static let cases: [ParseCase] = [
        ParseCase("1 + 2 * 3 == 7", .prints("1 + (2 * 3) == 7")),
        ParseCase("1 * 2 + 3 == 5", .prints("(1 * 2) + 3 == 5")),
        ParseCase("a - b - c == 0", .prints("(a - b) - c == 0")),
        ParseCase("a / b * c == 0", .prints("(a / b) * c == 0")),
        ParseCase("2 ** 3 ** 2 == 64", .prints("(2 ** 3) ** 2 == 64")),
        ParseCase("(6) ** 2 * 2 = 72", .prints("(6 ** 2) * 2 == 72")),
        ParseCase("-2 ** 2 == -4", .prints("0 - (2 ** 2) == -4")),
        ParseCase("(-2) ** 2 == 4", .prints("(-2) ** 2 == 4")),
        ParseCase("2 ** -1 == 0.5", .prints("2 ** -1 == 0.5")),
        ParseCase("-x == 1", .prints("0 - x == 1")),
        ParseCase("- - 3 == 3", .prints("3 == 3")),
        ParseCase("1 + 2 << 3 == 24", .prints("(1 + 2) << 3 == 24")),
        ParseCase("1 << 2 & 3 == 0", .prints("(1 << 2) & 3 == 0")),
        ParseCase("a & b | c ^ d == 0", .prints("(a & b) | (c ^ d) == 0")),
        ParseCase("a | b & c == 0", .prints("a | (b & c) == 0")),
        ParseCase("a ^ b & c == 0", .prints("a ^ (b & c) == 0")),
        ParseCase("a UNION b | c == d", .prints("a UNION (b | c) == d")),
        ParseCase("a UNION b MINUS c == d", .prints("(a UNION b) MINUS c == d")),
        ParseCase("a intersection b == c", .prints("a INTERSECTION b == c")),
        ParseCase("$x := $y := 1 == 1", .prints("$x := $y := 1 == 1")),
        ParseCase("$x := 1 + 2 == 3", .prints("$x := 1 + 2 == 3")),
        ParseCase("NOT a == 1 AND b == 2", .prints("(NOT a == 1) AND b == 2")),
        ParseCase("! a == 1 || b == 2", .prints("(NOT a == 1) OR b == 2")),
        ParseCase("NOT NOT a == 1", .prints("NOT (NOT a == 1)")),
        ParseCase("ANY a = 1 AND b = 2", .prints("ANY a == 1 AND b == 2")),
        ParseCase("a == 1 AND b == 2 AND c == 3", .prints("a == 1 AND b == 2 AND c == 3")),
        ParseCase("(a == 1 AND b == 2) AND c == 3", .prints("(a == 1 AND b == 2) AND c == 3")),
        ParseCase("a == 1 && (b == 2 || c == 3)", .prints("a == 1 AND (b == 2 OR c == 3)")),
        ParseCase("a == 1 OR b == 2 OR c == 3", .prints("a == 1 OR b == 2 OR c == 3")),
        ParseCase("(a + b) * 2 > 3", .prints("(a + b) * 2 > 3")),
        ParseCase("((a)) == 1", .prints("a == 1")),
        ParseCase("(((a == 1)))", .prints("a == 1")),
        ParseCase("((a == 1) AND (b == 2))", .prints("a == 1 AND b == 2")),
        ParseCase("((a + 1)).b == 2", .prints("(a + 1).b == 2")),
        ParseCase("(a + 1) > 2 AND (b) == 3", .prints("a + 1 > 2 AND b == 3")),
        ParseCase("NOT (a + 1) > 2", .prints("NOT a + 1 > 2")),
        ParseCase("(a > 3) AND b", .fails(at: "1:13", containing: "an expression alone is not a predicate")),
        ParseCase("(a) AND b == 1", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
    ]

    @Test(arguments: cases) func grouping(_ testCase: ParseCase) { testCase.check() }
}

/// Every construct of the language, one line each: the rule and its canonical print.
@Suite struct ConstructTests {
    static let cases: [ParseCase] = [
        // Comparison operators and their spellings.
        ParseCase("x = 1", .prints("x == 1")),
        ParseCase("x <> 1", .prints("x != 1")),
        ParseCase("x =< 1", .prints("x <= 1")),
        ParseCase("x => 1", .prints("x >= 1")),
        ParseCase("x < 1 OR x > 2", .prints("x < 1 OR x > 2")),
        ParseCase("x between {1, 2}", .prints("x BETWEEN {1, 2}")),
        ParseCase("x in {1, 2}", .prints("x IN {1, 2}")),
        ParseCase("x contains 'a'", .prints("x CONTAINS \"a\"")),
        ParseCase("x beginswith 'a'", .prints("x BEGINSWITH \"a\"")),
        ParseCase("x ENDSWITH 'a'", .prints("x ENDSWITH \"a\"")),
        ParseCase("x like 'a*'", .prints("x LIKE \"a*\"")),
        ParseCase("x matches '[a-z]+'", .prints("x MATCHES \"[a-z]+\"")),
        ParseCase("x tokenmatches 'a'", .prints("x TOKENMATCHES \"a\"")),
        ParseCase("x uti-conforms-to 'public.image'", .prints("x UTI-CONFORMS-TO \"public.image\"")),
        ParseCase("x Uti-Equals 'public.jpeg'", .prints("x UTI-EQUALS \"public.jpeg\"")),
        ParseCase("uti == 1", .prints("uti == 1")),
        // Options: any case and order, printed c d l n (w only where Apple keeps it).
        ParseCase("s CONTAINS[dc] 'x'", .prints("s CONTAINS[cd] \"x\"")),
        ParseCase("s ==[NDWC] 'x'", .prints("s ==[cdnw] \"x\"")),
        ParseCase("s LIKE[wl] 'x'", .prints("s LIKE[l] \"x\"")),
        ParseCase("s IN [c] {'a'}", .prints("s IN[c] {\"a\"}")),
        ParseCase("s BETWEEN[c] {1, 2}", .prints("s BETWEEN {1, 2}")),
        ParseCase("s ==[xz] 'x'", .prints("s == \"x\"")),
        ParseCase("s ==[] 'x'", .fails(at: "1:6", containing: "expected option letters")),
        // Quantifiers.
        ParseCase("ANY x == 1", .prints("ANY x == 1")),
        ParseCase("some x == 1", .prints("ANY x == 1")),
        ParseCase("ALL x == 1", .prints("ALL x == 1")),
        ParseCase("NONE x == 1", .prints("NOT ANY x == 1")),
        ParseCase("ANY {0, 42, 100} BETWEEN {23, 50}", .prints("ANY {0, 42, 100} BETWEEN {23, 50}")),
        // Literals.
        ParseCase("x == YES OR x == true OR x == NO OR x == False", .prints("x == 1 OR x == 1 OR x == 0 OR x == 0")),
        ParseCase("x == NULL OR x == nil", .prints("x == nil OR x == nil")),
        ParseCase("x == 0o17 AND y == 0B101 AND z == 0XfF", .prints("x == 15 AND y == 5 AND z == 255")),
        ParseCase("x == 007", .prints("x == 7")),
        ParseCase("x == 9223372036854775807", .prints("x == 9223372036854775807")),
        ParseCase("x == 9223372036854775808", .prints("x == 9223372036854775808")),
        ParseCase("x == -9223372036854775808", .prints("x == -9223372036854775808")),
        ParseCase(
            "x == 18446744073709551616", .prints("x == 1.8446744073709552e+19", apple: "x == 1.844674407370955e+19")),
        ParseCase("x == 0xFFFFFFFFFFFFFFFF", .prints("x == 18446744073709551615")),
        ParseCase(
            "x == 1.5e3 AND y == 9.2e-5 AND z == 2E2",
            .prints("x == 1500.0 AND y == 9.2e-05 AND z == 200.0", apple: "x == 1500 AND y == 9.2e-05 AND z == 200")),
        ParseCase("x == 1e999", .prints("x == 1e999", apple: "x == inf")),
        ParseCase("x == 1.foo", .prints("x == 1.foo")),
        ParseCase("x == 3.0", .prints("x == 3.0", apple: "x == 3")),
        // Strings and escapes.
        ParseCase("s == 'a\"b'", .prints("s == \"a\\\"b\"")),
        ParseCase("s == \"a'b\"", .prints("s == \"a'b\"")),
        ParseCase("s == '\\x41\\101\\u0041\\X42'", .prints("s == \"AAAB\"")),
        ParseCase("s == '\\\\'", .prints("s == \"\\\\\"")),
        ParseCase("s == '\\q\\''", .prints("s == \"q'\"")),
        ParseCase("s == '\\ud83d\\ude00'", .prints("s == \"😀\"")),
        ParseCase("s == '\\ud83d'", .prints("s == \"\u{FFFD}\"")),
        ParseCase("s == 'line\nbreak'", .prints("s == \"line\nbreak\"")),
        ParseCase("s == 'tab\\there'", .prints("s == \"tab\there\"")),
        ParseCase("s == 'héllo 日本'", .prints("s == \"héllo 日本\"")),
        // Key paths.
        ParseCase("SELF.a.b == 1", .prints("a.b == 1")),
        ParseCase("SELF == 1", .prints("SELF == 1")),
        ParseCase("items.@count > 0", .prints("items.@count > 0")),
        ParseCase("@count > 0", .prints("@count > 0")),
        ParseCase("items.@sum.price > 0", .prints("items.@sum.price > 0")),
        ParseCase("item.#size == 1", .prints("item.#size == 1")),
        // Issue 17: the index symbols are keys after a dot (Couchbase Lite's suite, run on
        // Apple, parses `name.first == $FIRSTNAME` into the key path `name.first`).
        ParseCase("name.first == $FIRSTNAME", .prints("name.#first == $FIRSTNAME")),
        ParseCase("a.LAST == 1 AND a.Size == 2", .prints("a.#LAST == 1 AND a.#Size == 2")),
        ParseCase("$x.size.first == 1", .prints("$x.#size.#first == 1")),
        ParseCase("SELF.first == 1", .prints("#first == 1")),
        // Issue 17: an index after a dotted key binds to that key (`a.d[0]` is `a.(d[0])`, as a
        // test run on Apple shows); it prints back as written, and `(a.d)[0]` keeps its parentheses.
        ParseCase(#"a."@any" == 1 AND SELF."@size" == 2"#, .prints(#"a."@any" == 1 AND SELF."@size" == 2"#)),
        ParseCase("a.d[0] == 1", .prints("a.d[0] == 1")),
        ParseCase("(a.d)[0] == 1", .prints("(a.d)[0] == 1")),
        ParseCase("a.b.d[LAST][0] == 1", .prints("a.b.d[LAST][0] == 1")),
        ParseCase("(a.d[0])[1] == 1 AND a.d[0].e[1] == 2", .prints("(a.d[0])[1] == 1 AND a.d[0].e[1] == 2")),
        ParseCase("$x.d[SIZE] == 1 AND $x.$k[0] == 2", .prints("$x.d[SIZE] == 1 AND $x.$k[0] == 2")),
        ParseCase("SELF.d[0] == 1 AND self.a.d[FIRST] == 2", .prints("d[0] == 1 AND a.d[FIRST] == 2")),
        ParseCase(
            #"a."b.c"[0] == 1"#, .prints(#"FUNCTION(a, "valueForKeyPath:" , (SELF."b.c")[0]) == 1"#)),
        ParseCase(
            "FUNCTION(SELF, 'valueForKeyPath:', d[0]) == 1", .prints(#"FUNCTION(SELF, "valueForKeyPath:" , d[0]) == 1"#)
        ),
        ParseCase("FUNCTION(a, 'valueForKeyPath:', d[0]) == 1", .prints("a.d[0] == 1")),
        ParseCase("a.d[0] == 1.0", .prints("a.d[0] == 1.0", apple: "a.d[0] == 1")),
        ParseCase("#size == 1", .prints("#size == 1")),
        ParseCase(
            "a.b[1].c == a[FIRST] AND a[last] == a[Size]", .prints("a.b[1].c == a[FIRST] AND a[LAST] == a[SIZE]")),
        ParseCase("a[%@] == 1", [.string("k")], .prints("a[\"k\"] == 1")),
        ParseCase("userInfo.\"com.example.testBit\" == YES", .prints("userInfo.\"com.example.testBit\" == 1")),
        ParseCase("SELF.'a b' == 1", .prints("SELF.\"a b\" == 1")),
        ParseCase("record.$field == 34", .prints("record.$field == 34")),
        ParseCase("$a.$b > 1", .prints("$a.$b > 1")),
        ParseCase("$fileproviderItem.userInfo.rank != nil", .prints("$fileproviderItem.userInfo.rank != nil")),
        ParseCase("a.SELF == 1", .prints("a.#self == 1")),
        ParseCase("café.größe == 1", .prints("café.größe == 1")),
        ParseCase("'abc'.length == 3", .prints("\"abc\".length == 3")),
        ParseCase("{1, 2}[0] == 1", .prints("{1, 2}[0] == 1")),
        ParseCase("$#size == 1", .prints("$#size == 1")),
        ParseCase("ternary == 1", .prints("ternary == 1")),
        // Format specifiers.
        ParseCase("%K == %@", [.string("name"), .string("x")], .prints("name == \"x\"")),
        ParseCase("%@ LIKE %@", [.string("firstName"), .string("Adam")], .prints("\"firstName\" LIKE \"Adam\"")),
        ParseCase("'%K' LIKE '%@'", .prints("\"%K\" LIKE \"%@\"")),
        ParseCase(
            "x == %d AND y == %lld AND z == %f", [.int(1), .int(2), .double(3)],
            .prints("x == 1 AND y == 2 AND z == 3.0", apple: "x == 1 AND y == 2 AND z == 3")),
        ParseCase("x == %%", .prints("x == \"%\"")),
        ParseCase("x == %@", [.null], .prints("x == nil")),
        ParseCase("x == %@", [.nil], .prints("x == nil")),
        ParseCase("a.%K == 1", [.string("b.c")], .prints("a.b.c == 1")),
        ParseCase("%K == 1", [.int(1)], .fails(at: "1:1", containing: "string argument for '%K'")),
        ParseCase("%K == 1", [.string("a..b")], .fails(at: "1:1", containing: "non-empty components")),
        ParseCase("x == %b", .fails(at: "1:6", containing: "unrecognized conversion specifier '%b'")),
        ParseCase("%k == 1", .fails(at: "1:1", containing: "unrecognized conversion specifier '%k'")),
        ParseCase("x == %@ AND y == %@", [.int(1)], .fails(at: "1:18", containing: "needs at least 2, 1 given")),
        // Functions and special forms.
        ParseCase("sum({1, 2, 3}) == 6", .prints("sum:({1, 2, 3}) == 6")),
        ParseCase("max(1, 5, 10) == 10", .prints("max:({1, 5, 10}) == 10")),
        ParseCase("now() > CAST(0, 'NSDate')", .prints("now() > CAST(0, \"NSDate\")")),
        ParseCase("random() < 1", .prints("random() < 1")),
        ParseCase("length('Wapakoneta') == 10", .prints("length:(\"Wapakoneta\") == 10")),
        ParseCase("bitwiseAnd:with:(4, 12) == 4", .prints("4 & 12 == 4")),
        ParseCase("add:to:(1, 2) == 3", .prints("1 + 2 == 3")),
        ParseCase("castObject:toType:(x, 'NSString') == '1'", .prints("CAST(x, \"NSString\") == \"1\"")),
        ParseCase("objectFrom:withIndex:(a, 1) == 1", .prints("a[1] == 1")),
        ParseCase("onesComplement(8) == -9", .prints("onesComplement:(8) == -9")),
        ParseCase("FUNCTION(a, 'pow:', 3) == 1", .prints("FUNCTION(a, \"pow:\" , 3) == 1")),
        ParseCase(
            "FUNCTION('/a/b.txt', 'lastPathComponent') == 'b.txt'",
            .prints("FUNCTION(\"/a/b.txt\", \"lastPathComponent\") == \"b.txt\"")),
        ParseCase("FUNCTION(a, %@) == 1", [.string("length")], .prints("FUNCTION(a, \"length\") == 1")),
        ParseCase("TERNARY(a > 1, 'x', 'y') == 'x'", .prints("TERNARY(a > 1, \"x\", \"y\") == \"x\"")),
        ParseCase("ternary(a > 1 AND b < 2, 1, 2) == 1", .prints("TERNARY(a > 1 AND b < 2, 1, 2) == 1")),
        ParseCase(
            "SUBQUERY(items, $i, $i.a == 1 OR $i.b == 2).@count > 0",
            .prints("SUBQUERY(items, $i, $i.a == 1 OR $i.b == 2).@count > 0")),
        ParseCase("ANYKEY == 1", .prints("ANYKEY == 1")),
        ParseCase("{} == {}", .prints("{} == {}")),
        ParseCase("{{}}[SIZE] == 1", .prints("{{}}[SIZE] == 1")),
        ParseCase("x == 1 && y == 2 || !(z == 3)", .prints("(x == 1 AND y == 2) OR (NOT z == 3)")),
        // Whitespace of every kind.
        ParseCase("a\u{0B}==\u{0C}1\r\n", .prints("a == 1")),
    ]

    @Test(arguments: cases) func construct(_ testCase: ParseCase) { testCase.check() }
}

/// `children` lists a node's sub-nodes in evaluation order (tree walks rely on it).
@Test func childrenInEvaluationOrder() throws {
    let rule = try PredicateParser.parsePredicate("TERNARY(a > 1, b, c[d]) == SUBQUERY(e, $x, $x.f == 1)").predicate
    guard case .comparison(let comparison) = rule.kind else {
        Issue.record("not a comparison")
        return
    }
    #expect(rule.kind.children == [.expression(comparison.lhs), .expression(comparison.rhs)])
    let ternary = comparison.lhs.kind.children.map { node -> String in
        switch node {
        case .expression(let expression): return expression.format
        case .predicate(let predicate): return predicate.format
        }
    }
    #expect(ternary == ["a > 1", "b", "c[d]"])
    guard case .subquery = comparison.rhs.kind, case .predicate(let inner)? = comparison.rhs.kind.children.last
    else {
        Issue.record("SUBQUERY's predicate should come last")
        return
    }
    #expect(inner.format == "$x.f == 1")
}
