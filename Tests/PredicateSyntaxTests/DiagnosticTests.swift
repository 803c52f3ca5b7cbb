import PredicateSyntax
import PredicateValue
import Testing

/// Every syntax error names what was expected and where, with the offending text.
@Suite struct SyntaxErrorTests {
    static let cases: [ParseCase] = [
        ParseCase("name == ", .fails(at: "1:9", containing: "expected an expression, found end of input")),
        ParseCase("(a == 1", .fails(at: "1:1", containing: "this '(' is never closed: add the missing ')'")),
        ParseCase("a == 1 AND (b == 2", .fails(at: "1:12", containing: "this '(' is never closed")),
        ParseCase("(a == 1 AND (b == 2)", .fails(at: "1:1", containing: "this '(' is never closed")),
        ParseCase("(a == 1))", .fails(at: "1:9", containing: "unexpected ')'")),
        ParseCase(
            "SUBQUERY(items, $i, $i.done == YES.@count > 0",
            .fails(at: "1:9", containing: "this SUBQUERY '(' is never closed: add ')' after its predicate")),
        ParseCase(
            "SUBQUERY(items, $i, $i.done == YES", .fails(at: "1:9", containing: "this SUBQUERY '(' is never closed")),
        ParseCase(
            "SUBQUERY(items, $i, $i.a < $i.b < 3).@count > 0", .fails(at: "1:33", containing: "cannot be chained")),
        ParseCase(
            "SUBQUERY(items, $i, $i.done == YES)",
            .fails(at: "1:1", containing: "a SUBQUERY is a collection, not a predicate: compare its count")),
        ParseCase(
            "a == 1 AND SUBQUERY(items, $i, $i.done == YES)", .fails(at: "1:12", containing: "SUBQUERY(…).@count > 0")),
        ParseCase("a == 1 AND\n  b ==", .fails(at: "2:7", containing: "expected an expression")),
        ParseCase("a == 1 AND\r\n  b == )", .fails(at: "2:8", containing: "found ')'")),
        ParseCase("a == 'x", .fails(at: "1:6", containing: "unterminated string literal")),
        ParseCase("self like 'ab\\'", .fails(at: "1:11", containing: "unterminated string literal")),
        ParseCase("a == '\\x4'", .fails(at: "1:7", containing: "invalid escape sequence '\\x4'")),
        ParseCase("a == '\\u12'", .fails(at: "1:7", containing: "invalid escape sequence '\\u12'")),
        ParseCase("$ == 1", .fails(at: "1:1", containing: "expected a variable name after '$'")),
        ParseCase("@ == 1", .fails(at: "1:1", containing: "expected a key name after '@'")),
        ParseCase("# == 1", .fails(at: "1:1", containing: "expected an identifier after '#'")),
        ParseCase("123abc == 1", .fails(at: "1:1", containing: "invalid number literal '123abc'")),
        ParseCase("0x == 1", .fails(at: "1:1", containing: "invalid number literal '0x'")),
        ParseCase("0b102 == 1", .fails(at: "1:1", containing: "invalid number literal '0b102'")),
        // Issue 17: after a dot only FIRST, LAST and SIZE are keys (`name.first`, as on Apple);
        // other reserved words, and the index symbols as a first component, stay errors (no
        // evidence that Apple takes them).
        ParseCase("size == 1", .fails(at: "1:1", containing: "'size' is a reserved word")),
        ParseCase("first == 1", .fails(at: "1:1", containing: "'first' is a reserved word; write #first")),
        ParseCase("a.AND == 1", .fails(at: "1:3", containing: "'AND' is a reserved word")),
        ParseCase("a.like == 1", .fails(at: "1:3", containing: "'like' is a reserved word; write #like")),
        ParseCase("a.any == 1", .fails(at: "1:3", containing: "'any' is a reserved word")),
        ParseCase("a.in == 1", .fails(at: "1:3", containing: "'in' is a reserved word")),
        ParseCase("a.null == 1", .fails(at: "1:3", containing: "'null' is a reserved word")),
        ParseCase("a.subquery == 1", .fails(at: "1:3", containing: "'subquery' is a reserved word")),
        // Issue 17: no reserved word after `@`, as on Apple (realm/realm-swift#8546: the parser
        // "doesn't allow `@` followed by any of the NSPredicate keywords").
        ParseCase("a.@any == 1", .fails(at: "1:3", containing: "'@any': a reserved word cannot follow '@'")),
        ParseCase("@size == 1", .fails(at: "1:1", containing: #"quote the key, as in SELF."@size""#)),
        ParseCase("modulus:by: == 1", .fails(at: "1:1", containing: "'modulus:by:' must be followed by '('")),
        ParseCase("sum() == 1", .fails(at: "1:1", containing: "'sum:' takes 1 argument, 0 given")),
        ParseCase("now(1) > 0", .fails(at: "1:1", containing: "'now' takes 0 arguments, 1 given")),
        ParseCase("modulus:by:(1) == 1", .fails(at: "1:1", containing: "'modulus:by:' takes 2 arguments, 1 given")),
        ParseCase("uppercse('a') == 'A'", .fails(at: "1:1", containing: "did you mean 'uppercase:'?")),
        ParseCase("random:(1) == 1", .fails(at: "1:1", containing: "unknown function 'random:'")),
        ParseCase(
            "FUNCTION(a, b) == 1", .fails(at: "1:13", containing: "FUNCTION needs the selector name as a string")),
        ParseCase("FUNCTION(a, %@) == 1", [.int(1)], .fails(at: "1:13", containing: "selector name as a string")),
        ParseCase("CAST(a) == 1", .fails(at: "1:1", containing: "'CAST' takes 2 arguments, 1 given")),
        ParseCase(
            "a == 1 b == 2", .fails(at: "1:8", containing: "unexpected identifier 'b' after the end of the rule")),
        ParseCase("a CONTAINS", .fails(at: "1:11", containing: "expected an expression, found end of input")),
        ParseCase("a == {1, 2", .fails(at: "1:11", containing: "',' or '}' to close the '{' at 1:6")),
        ParseCase("a[1 == 1", .fails(at: "1:5", containing: "']' to close the '[' at 1:2")),
        ParseCase("a[FIRST == 1", .fails(at: "1:9", containing: "']' to close the '[' at 1:2")),
        ParseCase("a ! b", .fails(at: "1:3", containing: "expected a comparison operator")),
        ParseCase("a : b", .fails(at: "1:3", containing: "unexpected character ':'")),
        ParseCase("a == 1 ?", .fails(at: "1:8", containing: "unexpected character '?'")),
        ParseCase("a == \u{0}", .fails(at: "1:6", containing: "U+0000")),
        ParseCase("a == 1 + * 2", .fails(at: "1:10", containing: "expected an expression, found '*'")),
        ParseCase("a == 1 -- 2", .prints("a == 1 - -2")),
        ParseCase("SUBQUERY(a, $x) == 1", .fails(at: "1:15", containing: "',' after the SUBQUERY variable")),
        ParseCase("TERNARY(a, 1, 2) == 1", .fails(at: "1:9", containing: "an expression alone is not a predicate")),
        ParseCase("ANY == 1", .fails(at: "1:5", containing: "expected an expression")),
        ParseCase("x == - ", .fails(at: "1:8", containing: "expected an expression")),
        ParseCase("1 +", .fails(at: "1:4", containing: "expected an expression"), expression: true),
        ParseCase("a == 1", .fails(at: "1:3", containing: "unexpected '=='"), expression: true),
        ParseCase("日本 == 'x' AND ?", .fails(at: "1:15", containing: "unexpected character '?'")),
    ]

    @Test(arguments: cases) func error(_ testCase: ParseCase) { testCase.check() }

    @Test func renderingShowsTheLineAndACaretUnderTheOffendingText() {
        #expect(throws: Diagnostic.self) { try PredicateParser.parsePredicate("a == 1 AND\n\tb ==[c] uploadded ! 1") }
        do {
            _ = try PredicateParser.parsePredicate("a == 1 AND\n\tb ==[c] uploadded ! 1")
        } catch {
            #expect(error.description == "2:20: error: unexpected '!' after the end of the rule")
            #expect(
                error.rendered()
                    == "2:20: error: unexpected '!' after the end of the rule\n\tb ==[c] uploadded ! 1\n\t                  ^"
            )
            #expect(error.offendingText == "!")
            #expect(error.sourceLine == "\tb ==[c] uploadded ! 1")
            #expect(error.range == SourceRange(30, 31))
            #expect(error.rendered(colored: true).contains("\u{1B}["))
        }
    }

    @Test func caretSpansTheWholeToken() {
        do {
            _ = try PredicateParser.parsePredicate("x == modulus:by: + 1")
        } catch {
            #expect(error.rendered().hasSuffix("\n     ^~~~~~~~~~~"))
        }
    }

    @Test func warningsAreValuesWithPositions() throws {
        let parsed = try PredicateParser.parsePredicate("s ==[cx] 'a' AND n BETWEEN[c] {1, 2} AND -2 ** 2 == -4")
        #expect(
            parsed.warnings.map(\.kind) == [
                .unknownOptionLetter("x"), .optionsIgnored(operator: "BETWEEN"), .unaryMinusBeforePower,
            ])
        #expect(parsed.warnings.map(\.location.description) == ["1:7", "1:27", "1:42"])
        #expect(parsed.warnings.allSatisfy { $0.severity == .warning })
    }

    @Test func optionLetterWarningsPointAtTheLetterAfterNonASCIIText() throws {
        let parsed = try PredicateParser.parsePredicate("a ==[écx] 'b'")
        #expect(parsed.warnings.map(\.kind) == [.unknownOptionLetter("é"), .unknownOptionLetter("x")])
        #expect(parsed.warnings.map(\.location.description) == ["1:6", "1:8"])
        #expect(parsed.warnings.map(\.offendingText) == ["é", "x"])
    }

    @Test func limitsHaveTheirOwnErrors() {
        let deep = String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000)
        #expect(throws: Diagnostic.self) { try PredicateParser.parsePredicate(deep) }
        do {
            _ = try PredicateParser.parsePredicate(deep)
        } catch {
            #expect(error.kind == .nestingTooDeep(limit: ParseOptions().maximumDepth))
        }
        let long = "s == '" + String(repeating: "x", count: 10_000_000) + "'"
        do {
            _ = try PredicateParser.parsePredicate(long)
            Issue.record("a 10 MB rule parsed")
        } catch {
            #expect(error.kind == .inputTooLong(bytes: 10_000_007, limit: 1 << 20))
        }
        let options = ParseOptions(maximumLength: 20_000_000)
        #expect((try? PredicateParser.parsePredicate(long, options: options)) != nil)
    }
}
