import PredicateValue
import Testing

import class Foundation.Thread

@testable import PredicateSyntax

/// Hostile and degenerate inputs: none may crash, hang or overflow the stack, and each must end
/// in the expected error (kind and `line:column`) or parse.
@Suite struct AdversarialInputTests {
    /// What parsing a rule came to, in a form that can cross threads and be compared.
    enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case parsed(PredicateNode)
        case failed(DiagnosticKind, at: String)

        var description: String {
            switch self {
            case .parsed(let predicate): return "parsed: \(predicate.format(.roundTripSafe).prefix(200))"
            case .failed(let kind, let location): return "failed at \(location): \(kind.message)"
            }
        }

        var failure: (kind: DiagnosticKind, location: String)? {
            if case .failed(let kind, let location) = self { return (kind, location) }
            return nil
        }
    }

    static func outcome(_ source: String, options: ParseOptions = ParseOptions()) -> Outcome {
        do {
            return .parsed(try PredicateParser.parsePredicate(source, options: options).predicate)
        } catch {
            return .failed(error.kind, at: error.location.description)
        }
    }

    /// Parses on a fresh thread with exactly `stackSize` bytes of stack, so that what is proved
    /// does not depend on the stack of the thread the test framework happens to use.
    static func outcome(
        _ source: String, options: ParseOptions = ParseOptions(), stackSize: Int
    ) async -> Outcome {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: outcome(source, options: options)) }
            thread.stackSize = stackSize
            thread.start()
        }
    }

    static let limit = ParseOptions().maximumDepth
    /// How long a parse may take before it counts as a hang (generous: the machine may be busy).
    static let hang = Duration.seconds(60)
    static let count = 100_000
    /// The stack of a process's main thread on Linux (`ulimit -s`), and of Swift Testing's threads.
    static let mainThreadStack = 8 << 20

    // MARK: - Deep nesting

    struct NestingCase: CustomTestStringConvertible, Sendable {
        let name: String
        let source: String
        /// The expected error's column on line 1, given the depth limit.
        let column: Int

        var testDescription: String { name }
    }

    /// Each case is 100,000 levels of one construct; the error points at the token that opens
    /// level `limit + 1`, the first one too deep (or, for trees built bottom-up, at the start of
    /// the too-deep node).
    static let nestingCases: [NestingCase] = {
        let n = count
        let l = limit
        func repeated(_ text: String) -> String { String(repeating: text, count: n) }
        return [
            NestingCase(name: "( ... a == 1 ... )", source: repeated("(") + "a == 1" + repeated(")"), column: l + 1),
            NestingCase(name: "unclosed (", source: repeated("("), column: l + 1),
            NestingCase(name: "{ ... }", source: "a == " + repeated("{") + repeated("}"), column: l + 6),
            NestingCase(name: "NOT NOT ...", source: repeated("NOT ") + "a == 1", column: 4 * l + 1),
            NestingCase(name: "! ! ...", source: repeated("!") + "a == 1", column: l + 1),
            NestingCase(name: "- - ... 1", source: "a == " + repeated("-") + "1", column: l + 6),
            NestingCase(name: "2 ** - - ... 1", source: "a == 2 ** " + repeated("-") + "1", column: l + 11),
            NestingCase(name: "(expression)", source: "a == " + repeated("(") + "1" + repeated(")"), column: l + 6),
            NestingCase(name: "abs(abs(...", source: "a == " + repeated("abs("), column: 4 * l + 9),
            NestingCase(name: "abs:(abs:(...", source: "a == " + repeated("abs:("), column: 5 * l + 10),
            NestingCase(name: "TERNARY(TERNARY(...", source: "a == " + repeated("TERNARY("), column: 8 * l + 13),
            NestingCase(
                name: "SUBQUERY(SUBQUERY(... (50,000: 16 bytes each)",
                source: "a == " + String(repeating: "SUBQUERY(a, $x, ", count: n / 2), column: 16 * l + 14),
            NestingCase(name: "FUNCTION(FUNCTION(...", source: "a == " + repeated("FUNCTION("), column: 9 * l + 14),
            NestingCase(name: "CAST(CAST(...", source: "a == " + repeated("CAST("), column: 5 * l + 10),
            NestingCase(name: "a[a[...", source: "a == " + repeated("a["), column: 2 * l + 7),
            NestingCase(name: "$x := $x := ...", source: "a == " + repeated("$x := ") + "1", column: 6 * l + 9),
            NestingCase(
                name: "a + a + ... (left-deep tree)",
                source: Array(repeating: "a", count: n).joined(separator: " + ")
                    + " == 1", column: 1),
            NestingCase(
                name: "2 ** 2 ** ... (left-deep tree)",
                source: "a == " + Array(repeating: "2", count: n).joined(separator: " ** "), column: 6),
            NestingCase(
                name: "a UNION a UNION ... (left-deep tree)",
                source: Array(repeating: "a", count: n).joined(separator: " UNION ") + " == 1", column: 1),
            NestingCase(
                name: "a[FIRST][FIRST]... (left-deep tree)", source: "a" + repeated("[FIRST]") + " == 1", column: 1),
        ]
    }()

    @Test(arguments: nestingCases) func deepNestingHitsTheDepthLimit(_ testCase: NestingCase) async {
        let outcome = await AdversarialInputTests.outcome(
            testCase.source, stackSize: AdversarialInputTests.mainThreadStack)
        #expect(outcome == .failed(.nestingTooDeep(limit: AdversarialInputTests.limit), at: "1:\(testCase.column)"))
    }

    /// Nesting right up to the limit is accepted; one more level is not.
    @Test func theLimitIsExact() async {
        let l = AdversarialInputTests.limit
        func parens(_ depth: Int) -> String {
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        }
        let atLimit = await AdversarialInputTests.outcome(parens(l), stackSize: AdversarialInputTests.mainThreadStack)
        #expect(atLimit == AdversarialInputTests.outcome("a == 1"))
        let over = await AdversarialInputTests.outcome(parens(l + 1), stackSize: AdversarialInputTests.mainThreadStack)
        #expect(over.failure?.kind == .nestingTooDeep(limit: l))
        let custom = AdversarialInputTests.outcome(parens(10), options: ParseOptions(maximumDepth: 9))
        #expect(custom == .failed(.nestingTooDeep(limit: 9), at: "1:10"))
    }

    /// Flat chains are not nesting: 100,000 comparisons joined by AND parse into one node.
    @Test func longFlatChainsParse() throws {
        let chain = Array(repeating: "a == 1", count: AdversarialInputTests.count).joined(separator: " AND ")
        let options = ParseOptions(maximumLength: 4 << 20)
        let predicate = try PredicateParser.parsePredicate(chain, options: options).predicate
        guard case .and(let operands) = predicate.kind else {
            Issue.record("expected one AND node, got \(predicate.format(.roundTripSafe).prefix(100))")
            return
        }
        #expect(operands.count == AdversarialInputTests.count)
        #expect(predicate.depth == 4)
        // The same chain is longer than the default 1 MiB limit.
        #expect(AdversarialInputTests.outcome(chain).failure?.kind == .inputTooLong(bytes: 1_099_995, limit: 1 << 20))

        let shortChain = Array(repeating: "a=1", count: 20_000).joined(separator: "||")
        let disjunction = try PredicateParser.parsePredicate(shortChain).predicate
        #expect(disjunction.depth == 4)
    }

    /// A key path of 100,000 components is one flat node, built in linear time.
    @Test func longKeyPathsParseInLinearTime() throws {
        let path = "a" + String(repeating: ".b", count: AdversarialInputTests.count) + " == 1"
        let start = ContinuousClock.now
        let predicate = try PredicateParser.parsePredicate(path).predicate
        let elapsed = ContinuousClock.now - start
        guard case .comparison(let comparison) = predicate.kind,
            case .keyPath(_, let components) = comparison.lhs.kind
        else {
            Issue.record("expected a key-path comparison")
            return
        }
        #expect(components.count == AdversarialInputTests.count + 1)
        #expect(elapsed < AdversarialInputTests.hang, "100,000 key-path components took \(elapsed)")
    }

    /// Rules that took quadratic time (or time times depth) before; in a debug build the first
    /// two took minutes, the others 2-20 s, and each now takes about a second or less. The time
    /// bounds only catch hangs: other test processes may share the machine.
    @Test func longRulesParseInLinearTime() throws {
        func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
            let start = ContinuousClock.now
            let result = try body()
            return (result, ContinuousClock.now - start)
        }
        // One warning every 11 bytes: only the first 32 are kept (each copies its source line).
        let warned = Array(repeating: "s ==[x] 'a'", count: 10_000).joined(separator: " AND ")
        let (many, manyTime) = try timed { try PredicateParser.parsePredicate(warned) }
        #expect(many.warnings.count == 32)
        #expect(many.warnings.first?.kind == .unknownOptionLetter("x"))
        #expect(many.warnings.first?.location.description == "1:6")
        #expect(manyTime < AdversarialInputTests.hang, "\(manyTime)")

        let letters = "a ==[" + String(repeating: "x", count: 100_000) + "] 1"
        let (options, optionsTime) = try timed { try PredicateParser.parsePredicate(letters) }
        #expect(options.warnings.count == 32)
        #expect(optionsTime < AdversarialInputTests.hang, "\(optionsTime)")

        // Nested AND/OR mixes around a long chain: each warning prints only the start of the tree.
        let chain = Array(repeating: "c == 1", count: 20_000).joined(separator: " AND ")
        let mixes = String(repeating: "(a == 1 OR b == 1 AND ", count: 60) + chain + String(repeating: ")", count: 60)
        let (mixed, mixedTime) = try timed { try PredicateParser.parsePredicate(mixes) }
        #expect(mixed.warnings.count == 32)
        #expect(mixed.warnings.allSatisfy { $0.message.count < 300 })
        #expect(mixedTime < AdversarialInputTests.hang, "\(mixedTime)")

        // A chain inside 127 parentheses: widening each node's range does not revisit the chain.
        let wrapped = String(repeating: "(", count: 127) + chain + String(repeating: ")", count: 127)
        let (_, wrappedTime) = try timed { try PredicateParser.parsePredicate(wrapped) }
        #expect(wrappedTime < AdversarialInputTests.hang, "\(wrappedTime)")

        // A 500 KB function name gets no did-you-mean search (no selector is near it).
        #expect(BuiltinFunction.all.map(\.selector.count).max() ?? 0 <= 32)
        let name = String(repeating: "a", count: 500_000)
        let (unknown, unknownTime) = timed { AdversarialInputTests.outcome(name + "(1) == 1") }
        #expect(unknown == .failed(.unknownFunction(name, suggestion: nil), at: "1:1"))
        #expect(unknownTime < AdversarialInputTests.hang, "\(unknownTime)")
    }

    // MARK: - Small stacks

    /// On a 512 KiB thread (a Darwin secondary thread's default) the default limit stops
    /// 100,000 `NOT`s well before the stack runs out, in a debug build (about 190 levels fit).
    ///
    /// Expression-level nesting costs far more stack per level in a debug build (up to about
    /// 48 KB for `TERNARY(`, measured): on 512 KiB only 9 such levels fit, so the default limit
    /// does not protect such a thread; a limit set low enough does.
    @Test func smallStackThreadsAreProtected() async {
        let nots = String(repeating: "NOT ", count: AdversarialInputTests.count) + "a == 1"
        let l = AdversarialInputTests.limit
        let outcome = await AdversarialInputTests.outcome(nots, stackSize: 512 << 10)
        #expect(outcome == .failed(.nestingTooDeep(limit: l), at: "1:\(4 * l + 1)"))

        let ternaries = "a == " + String(repeating: "TERNARY(", count: AdversarialInputTests.count)
        let lowLimit = ParseOptions(maximumDepth: 6)
        let ternaryOutcome = await AdversarialInputTests.outcome(ternaries, options: lowLimit, stackSize: 512 << 10)
        #expect(ternaryOutcome == .failed(.nestingTooDeep(limit: 6), at: "1:\(8 * 6 + 13)"))
    }

    // MARK: - Size

    @Test func tenMegabyteStringLiteralIsTooLong() {
        let source = "a == '" + String(repeating: "x", count: 10_000_000) + "'"
        #expect(
            AdversarialInputTests.outcome(source)
                == .failed(.inputTooLong(bytes: 10_000_007, limit: 1 << 20), at: "1:1")
        )
    }

    // MARK: - Characters and strings

    /// Control characters are errors outside string literals (except the whitespace ones) and
    /// are kept verbatim inside them.
    @Test func controlCharacters() throws {
        let whitespace: Set<UInt8> = [0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        for byte in Array(UInt8(0)...UInt8(0x1F)) + [0x7F] {
            let character = String(UnicodeScalar(byte))
            let hex = String(byte, radix: 16, uppercase: true)
            let name = "U+" + String(repeating: "0", count: 4 - hex.count) + hex
            let outside = AdversarialInputTests.outcome("a\(character)== 1")
            if whitespace.contains(byte) {
                #expect(outside.failure == nil, "\(name) outside a string: \(outside)")
            } else {
                #expect(outside == .failed(.unexpectedCharacter(name), at: "1:2"), "\(name)")
            }
            let inside = AdversarialInputTests.outcome("a == '<\(character)>'")
            let expected = PredicateNode(
                .comparison(
                    Comparison(
                        ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.key("a")])),
                        .equal,
                        ExpressionNode(.constant(.string("<\(character)>"))))))
            #expect(inside == .parsed(expected), "\(name) inside a string")
        }
        // A NUL after a line break is reported on the right line.
        #expect(
            AdversarialInputTests.outcome("a == 1 AND\n  b ==\u{0}2")
                == .failed(.unexpectedCharacter("U+0000"), at: "2:7"))
    }

    struct StringCase: CustomTestStringConvertible, Sendable {
        let source: String
        let expected: Outcome

        var testDescription: String { source.debugDescription }
    }

    static func string(_ source: String, is value: String) -> StringCase {
        let expression = ExpressionNode(.constant(.string(value)))
        let predicate = PredicateNode(
            .comparison(
                Comparison(
                    ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.key("a")])), .equal,
                    expression)))
        return StringCase(source: "a == " + source, expected: .parsed(predicate))
    }

    static func string(_ source: String, fails kind: DiagnosticKind, at location: String) -> StringCase {
        StringCase(source: "a == " + source, expected: .failed(kind, at: location))
    }

    /// String-literal edge cases: surrogates, short escapes, unterminated literals at the end.
    static let stringCases: [StringCase] = [
        string(#"'\uD800'"#, is: "\u{FFFD}"),
        string(#"'\uDC00'"#, is: "\u{FFFD}"),
        string(#"'\uD800x'"#, is: "\u{FFFD}x"),
        string(#"'\uD800\u0041'"#, is: "\u{FFFD}A"),
        string(#"'\uD800\uD800\uDC00'"#, is: "\u{FFFD}\u{10000}"),
        string(#"'\uD83D\uDE00'"#, is: "😀"),
        string(#"'\U00e9\X41\101\x7a'"#, is: "éAAz"),
        string(#"'\0'"#, is: "0"),
        string(#"'\q\%\ü'"#, is: "q%ü"),
        string("''", is: ""),
        string(#""""#, is: ""),
        string("'a\r\nb'", is: "a\r\nb"),
        string(#"'\x'"#, fails: .invalidEscape(#"\x"#), at: "1:7"),
        string(#"'\x4'"#, fails: .invalidEscape(#"\x4"#), at: "1:7"),
        string(#"'\xG1'"#, fails: .invalidEscape(#"\x"#), at: "1:7"),
        string(#"'ab\x4"#, fails: .invalidEscape(#"\x4"#), at: "1:9"),
        string(#"'\u'"#, fails: .invalidEscape(#"\u"#), at: "1:7"),
        string(#"'\u12'"#, fails: .invalidEscape(#"\u12"#), at: "1:7"),
        string(#"'\u123'"#, fails: .invalidEscape(#"\u123"#), at: "1:7"),
        string(#"'\u12G4'"#, fails: .invalidEscape(#"\u12"#), at: "1:7"),
        string(#"'\U12"#, fails: .invalidEscape(#"\U12"#), at: "1:7"),
        string("'abc", fails: .unterminatedString, at: "1:6"),
        string("\"", fails: .unterminatedString, at: "1:6"),
        string("'abc\\", fails: .unterminatedString, at: "1:6"),
        string("'abc\\'", fails: .unterminatedString, at: "1:6"),
        string("'line 1\nline 2", fails: .unterminatedString, at: "1:6"),
        string("\"a' AND b == 'c", fails: .unterminatedString, at: "1:6"),
    ]

    @Test(arguments: stringCases) func stringLiterals(_ testCase: StringCase) {
        #expect(AdversarialInputTests.outcome(testCase.source) == testCase.expected)
    }

    // MARK: - Numbers

    @Test func enormousNumbers() throws {
        func constant(_ literal: String) throws -> Value? {
            let expression = try PredicateParser.parseExpression(literal).expression
            guard case .constant(let value) = expression.kind else { return nil }
            return value
        }
        #expect(try constant("1e999") == .double(.infinity))
        #expect(try constant("1e-999") == .double(0))
        #expect(try constant("1" + String(repeating: "0", count: 400)) == .double(.infinity))
        #expect(try constant("1" + String(repeating: "0", count: 300)) == .double(1e300))
        #expect(try constant("0x" + String(repeating: "F", count: 40)) == .double(0x1p160 - 0x1p0))
        #expect(try constant("0b" + String(repeating: "1", count: 64)) == .uint(.max))
        #expect(try constant("0o" + String(repeating: "7", count: 30)) == .double(0x1p90 - 1))
        #expect(try constant("9223372036854775807") == .int(.max))
        #expect(try constant("9223372036854775808") == .uint(1 << 63))
        #expect(try constant("-9223372036854775808") == .int(.min))
        #expect(try constant("18446744073709551615") == .uint(.max))
        #expect(try constant("18446744073709551616") == .double(0x1p64))
        #expect(try constant("-18446744073709551616") == .double(-0x1p64))
        #expect(try constant("0." + String(repeating: "0", count: 400) + "1") == .double(0))
        #expect(try constant(String(repeating: "9", count: 5000) + ".5") == .double(.infinity))
        let glued = AdversarialInputTests.outcome("a == 1e999x")
        #expect(glued == .failed(.invalidNumber("1e999x"), at: "1:6"))
        #expect(AdversarialInputTests.outcome("a == 0x") == .failed(.invalidNumber("0x"), at: "1:6"))
        #expect(AdversarialInputTests.outcome("a == 1e") == .failed(.invalidNumber("1e"), at: "1:6"))
    }

    // MARK: - Every ASCII character alone

    /// No single character is a predicate; every one fails with a positioned error.
    @Test func everyASCIICharacterAloneFails() {
        for byte in UInt8(0)...UInt8(127) {
            let source = String(UnicodeScalar(byte))
            guard let (kind, location) = AdversarialInputTests.outcome(source).failure else {
                Issue.record("\(source.debugDescription) parsed")
                continue
            }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                #expect(kind == .bareExpression && location == "1:1", "\(source.debugDescription): \(kind)")
            case 0x0A, 0x0D:
                #expect(kind == .expected("an expression", found: "end of input") && location == "2:1")
            case 0x09, 0x0B, 0x0C, 0x20, UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "-"), UInt8(ascii: "!"):
                #expect(
                    kind == .expected("an expression", found: "end of input") && location == "1:2",
                    "\(source.debugDescription): \(kind) at \(location)")
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                #expect(kind == .unterminatedString && location == "1:1")
            case UInt8(ascii: "?"), UInt8(ascii: "\\"), UInt8(ascii: ":"), 0...0x08, 0x0E...0x1F, 0x7F:
                guard case .unexpectedCharacter = kind else {
                    Issue.record("\(source.debugDescription): \(kind)")
                    continue
                }
                #expect(location == "1:1")
            case UInt8(ascii: "~"):
                #expect(kind == .unsupportedTilde && location == "1:1")
            default:
                #expect(location == "1:1" || location == "1:2", "\(source.debugDescription): \(kind) at \(location)")
            }
        }
    }

    // MARK: - Truncations and soup

    /// Valid rules that between them use every construct; each of their prefixes must parse or
    /// fail cleanly.
    static let validRules = [
        #"name == 'x' AND (age > 18 OR age < -2.5e3) AND NOT tags CONTAINS[cd] "é""#,
        #"ANY items.price BETWEEN {1, 0x10} OR ALL items.@count >= 0b11 OR NONE a.#size != 0o7"#,
        #"SUBQUERY($fileproviderItems, $i, $i.contentType UTI-CONFORMS-TO "public.image").@count == 1"#,
        #"$fileproviderItem.userInfo."com.example.testBit" == 1 && !(x LIKE[c] 'a*?\'b')"#,
        #"TERNARY(a == 1, modulus:by:(7, 2), sum(1, 2, 3)) ** -2 * (a + b) / c - d == 0"#,
        #"FUNCTION(SELF, 'stringByAppendingString:', 'x') ENDSWITH 'x' || s MATCHES '^a.*$'"#,
        #"CAST('1', 'NSNumber') + now() > random() AND $x := 5 IN {1, $x}"#,
        #"a[FIRST] == a[LAST] AND a[SIZE] == 3 AND a[1 + 1].b == nil AND a UNION b INTERSECTION c MINUS d == {}"#,
        "a & 1 | b ^ c << 2 >> 1 == 0 AND self.日本.@sum.x =< 1 AND ANYKEY TOKENMATCHES 'x'\n\tAND y UTI-EQUALS 'z'",
        #"TRUEPREDICATE AND FALSEPREDICATE OR (a == 1) AND ((b + 1) * 2 > 3) AND '\u00e9\x41\101' BEGINSWITH 'a'"#,
    ]

    @Test func everyTruncationParsesOrFailsCleanly() {
        var parsed = 0
        for rule in AdversarialInputTests.validRules {
            let bytes = Array(rule.utf8)
            #expect(AdversarialInputTests.outcome(rule).failure == nil, "the full rule must parse: \(rule)")
            for length in 0...bytes.count {
                let prefix = String(decoding: bytes.prefix(length), as: UTF8.self)
                if AdversarialInputTests.checkCleanly(prefix) { parsed += 1 }
            }
        }
        #expect(parsed > AdversarialInputTests.validRules.count)
    }

    /// Thousands of seeded random strings: raw bytes, and tokens glued at random.
    @Test func randomSoupParsesOrFailsCleanly() {
        var random = TreeRandom(seed: 0x50_0B)
        let tokens = [
            "(", ")", "[", "]", "{", "}", ",", ".", "==", "!=", "<", "<=", ">", ">=", "=<", "=>", "<>", "&&", "||", "!",
            "+", "-", "*", "/", "**", "&", "|", "^", "<<", ">>", "~", ":=", "%@", "%K", "%%", "%d", "$x", "$#in",
            "@count", "#size", "a", "b", "SELF", "ANY", "ALL", "NONE", "SOME", "NOT", "AND", "OR", "IN", "LIKE",
            "CONTAINS", "BETWEEN", "MATCHES", "BEGINSWITH", "ENDSWITH", "UTI-CONFORMS-TO", "UTI-EQUALS",
            "TOKENMATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "ANYKEY",
            "UNION", "INTERSECTION", "MINUS", "FIRST", "LAST", "SIZE", "nil", "YES", "NO", "1", "2.5", "0x1F",
            "1e999", "'s'", "\"t\"", "'\\u00e9'", "sum", "now", "modulus:by:", "abs:", "[cd]", "[w]", "\n", " ", "'",
            "\\", "?", "\u{0}", "é", "日本", "🙂",
        ]
        var parsed = 0
        for _ in 0..<3_000 {
            let length = random.below(24)
            let soup = (0..<length).map { _ in random.pick(tokens) }.joined(
                separator: random.chance(1, in: 2) ? " " : "")
            if AdversarialInputTests.checkCleanly(soup) { parsed += 1 }
            let bytes = (0..<random.below(40)).map { _ in
                random.chance(3, in: 4) ? UInt8(0x20 + random.below(0x5F)) : UInt8(truncatingIfNeeded: random.next())
            }
            if AdversarialInputTests.checkCleanly(String(decoding: bytes, as: UTF8.self)) { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    /// Parses `source` as a predicate and as an expression. A failure must point inside the
    /// source and render; a success must print in a form that reprints identically.
    /// Returns whether the predicate parsed.
    static func checkCleanly(_ source: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let size = source.utf8.count
        func checkError(_ error: Diagnostic) {
            let inBounds = error.range.lowerBound >= 0 && error.range.upperBound <= size
            #expect(inBounds, "\(source.debugDescription): range \(error.range)", sourceLocation: sourceLocation)
            #expect(error.location.line >= 1 && error.location.column >= 1, sourceLocation: sourceLocation)
            #expect(!error.rendered().isEmpty, sourceLocation: sourceLocation)
        }
        var parsedPredicate = false
        do {
            let printed = try PredicateParser.parsePredicate(source).predicate.format(.roundTripSafe)
            let reprinted = try PredicateParser.parsePredicate(printed).predicate.format(.roundTripSafe)
            #expect(reprinted == printed, "\(source.debugDescription)", sourceLocation: sourceLocation)
            parsedPredicate = true
        } catch {
            checkError(error)
        }
        do {
            let printed = try PredicateParser.parseExpression(source).expression.format(.roundTripSafe)
            let reprinted = try PredicateParser.parseExpression(printed).expression.format(.roundTripSafe)
            #expect(reprinted == printed, "\(source.debugDescription)", sourceLocation: sourceLocation)
        } catch {
            checkError(error)
        }
        return parsedPredicate
    }

    // MARK: - Messages and positions

    /// A representative set of errors in hostile input, with their messages and positions.
    static let errorCases: [ParseCase] = [
        ParseCase("a == 1 AND\n\n    b == ?", .fails(at: "3:10", containing: "unexpected character '?'")),
        ParseCase("a == 1\r\nAND b ==", .fails(at: "2:9", containing: "expected an expression, found end of input")),
        ParseCase("\t\ta ==\t\t)", .fails(at: "1:9", containing: "expected an expression, found ')'")),
        ParseCase("日本語 == 1 AND 🙂 == 1", .fails(at: "1:14", containing: "unexpected character '🙂'")),
        ParseCase("a == '\\uD8'", .fails(at: "1:7", containing: "invalid escape sequence '\\uD8'")),
        ParseCase("a == 1 /* comment */", .fails(at: "1:9", containing: "expected an expression, found '*'")),
        ParseCase("a == 1 // comment", .fails(at: "1:9", containing: "expected an expression, found '/'")),
        ParseCase("a\\ == 1", .fails(at: "1:2", containing: "a backslash is only allowed inside a string literal")),
        ParseCase("a == %", .fails(at: "1:6", containing: "unrecognized conversion specifier '%'")),
        ParseCase("a == %b", .fails(at: "1:6", containing: "unrecognized conversion specifier '%b'")),
        ParseCase("a == %@ AND b == %@", [.int(1)], .fails(at: "1:18", containing: "insufficient arguments")),
        ParseCase("%K == 1", [.int(1)], .fails(at: "1:1", containing: "expected a string argument for '%K'")),
        ParseCase("%K == 1", [.string("a..b")], .fails(at: "1:1", containing: "non-empty components")),
        ParseCase("~a == 1", .fails(at: "1:1", containing: "unsupported operator '~'")),
        ParseCase("a == ~1", .fails(at: "1:6", containing: "unsupported operator '~'")),
        ParseCase("a < b < c", .fails(at: "1:7", containing: "comparisons cannot be chained")),
        ParseCase("a == 1 == 2", .fails(at: "1:8", containing: "comparisons cannot be chained")),
        ParseCase("a", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("(a)", .fails(at: "1:1", containing: "an expression alone is not a predicate")),
        ParseCase("", .fails(at: "1:1", containing: "expected an expression, found end of input")),
        ParseCase("   \n  ", .fails(at: "2:3", containing: "expected an expression, found end of input")),
        ParseCase("a ==[", .fails(at: "1:6", containing: "option letters")),
        ParseCase("a ==[c", .fails(at: "1:7", containing: "']' after the comparison options")),
        ParseCase("a.", .fails(at: "1:3", containing: "expected a key after '.'")),
        ParseCase("a[", .fails(at: "1:3", containing: "expected an expression")),
        ParseCase("SUBQUERY(a, b, c == 1) == 1", .fails(at: "1:13", containing: "SUBQUERY needs a variable")),
        ParseCase("a == $ x", .fails(at: "1:6", containing: "expected a variable name after '$'")),
        ParseCase("a == @ count", .fails(at: "1:6", containing: "expected a key name after '@'")),
        ParseCase("# a == 1", .fails(at: "1:1", containing: "expected an identifier after '#'")),
        ParseCase("a == 1 AND AND b == 2", .fails(at: "1:12", containing: "expected an expression, found 'AND'")),
        ParseCase("a == 1 )", .fails(at: "1:8", containing: "unexpected ')' after the end of the rule")),
        ParseCase("((a == 1)", .fails(at: "1:1", containing: "this '(' is never closed")),
        ParseCase("a == {1, 2,}", .fails(at: "1:12", containing: "expected an expression, found '}'")),
        ParseCase("a == foo(1)", .fails(at: "1:6", containing: "unknown function 'foo'")),
        ParseCase("a == 1 AND TRUE", .fails(at: "1:12", containing: "an expression alone is not a predicate")),
    ]

    @Test(arguments: errorCases) func errorMessagesAndPositions(_ testCase: ParseCase) { testCase.check() }
}
