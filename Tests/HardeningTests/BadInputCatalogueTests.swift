import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// The bad-input catalogue (issue 8): hostile and malformed rules, items, property lists and
/// program bytes, one per line, each with the exact answer expected. None may crash, hang or
/// allocate without bound; every error says what and where.
@Suite struct BadInputCatalogueTests {
    static let deep = 200
    static let aaa = String(repeating: "a", count: 40)
    static let manyAs = "[" + Array(repeating: "\"a\"", count: 5_000).joined(separator: ",") + "]"
    static let thousand = "[" + (0..<1_000).map(String.init).joined(separator: ",") + "]"
    static let threeThousand = "[" + (0..<3_000).map(String.init).joined(separator: ",") + "]"

    static let cases: [HostileInput] = rules + evaluations + items + propertyLists + programs

    // MARK: - Rules

    static let rules: [HostileInput] = [
        .init("empty rule", .rule(""), "1:1: expected an expression, found end of input"),
        .init("only spaces", .rule("   "), "1:4: expected an expression, found end of input"),
        .init("operator without operand", .rule("name == AND x"), "1:9: expected an expression, found 'AND'"),
        .init(
            "200 parentheses", .rule(String(repeating: "(", count: deep) + "a == 1"),
            "1:129: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "200 braces", .rule("a IN " + String(repeating: "{", count: deep)),
            "1:134: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "200 NOTs", .rule(String(repeating: "NOT ", count: deep) + "TRUEPREDICATE"),
            "1:513: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "200 unary minuses", .rule("a == " + String(repeating: "-", count: deep) + "1"),
            "1:134: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "200 ternaries", .rule(String(repeating: "TERNARY(", count: deep)),
            "1:1032: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "rule over 1 MiB", .rule("a == '" + String(repeating: "x", count: 1 << 20) + "'"),
            "1:1: rule is 1048583 bytes long; the limit is 1048576"),
        .init(
            "limit 10 bytes", .rule("name == 'long'", options: ParseOptions(maximumLength: 10)),
            "1:1: rule is 14 bytes long; the limit is 10"),
        .init("unterminated string", .rule("name == 'abc"), "1:9: unterminated string literal"),
        .init("bad \\u escape", .rule("name == '\\u12'"), #"1:10: invalid escape sequence '\u12' in string literal"#),
        .init("bad \\x escape", .rule("name == '\\xZZ'"), #"1:10: invalid escape sequence '\x' in string literal"#),
        .init("0x without digits", .rule("n == 0x"), "1:6: invalid number literal '0x'"),
        .init("binary digit 2", .rule("n == 0b102"), "1:6: invalid number literal '0b102'"),
        .init("number glued to a word", .rule("n == 1e999x"), "1:6: invalid number literal '1e999x'"),
        .init("NUL inside a key", .rule("na\u{0}me == 1"), "1:3: unexpected character U+0000"),
        .init("NUL after the rule", .rule("name == 1\u{0}"), "1:10: unexpected character U+0000"),
        .init("NUL inside a string is text", .rule("name == 'a\u{0}b'"), "parsed"),
        .init(
            "invalid UTF-8 decoded to U+FFFD", .rule(String(decoding: [0x61, 0xFF, 0x3D, 0x3D, 0x31], as: UTF8.self)),
            "1:2: unexpected character '\u{FFFD}'"),
        .init("byte-order mark", .rule("\u{FEFF}name == 1"), "1:1: unexpected character U+FEFF"),
        .init("tilde", .rule("~n == 1"), "1:1: unsupported operator '~'; use onesComplement(x)"),
        .init(
            "format specifier without argument", .rule("name == %@"),
            "1:9: insufficient arguments: the format needs at least 1, 0 given"),
        .init("unknown conversion", .rule("name == %b"), "1:9: unrecognized conversion specifier '%b'"),
        .init(
            "SUBQUERY without a variable", .rule("SUBQUERY(items, x, TRUEPREDICATE).@count > 0"),
            "1:17: SUBQUERY needs a variable such as $item as its second argument"),
        .init("unknown function", .rule("fooBar:(1) == 1"), "1:1: unknown function 'fooBar:'"),
        .init("trailing input", .rule("n == 1 n == 2"), "1:8: unexpected identifier 'n' after the end of the rule"),
        .init(
            "chained comparison", .rule("1 < n < 3"),
            "1:7: comparisons cannot be chained: '<' after a complete comparison; join them with AND"),
        .init("missing operand at end", .rule("name =="), "1:8: expected an expression, found end of input"),
        .init(
            "unclosed brace", .rule("n IN {1, 2, 3"),
            "1:14: expected ',' or '}' to close the '{' at 1:6, found end of input"),
        .init("unclosed index", .rule("items[FIRST == 1"), "1:13: expected ']' to close the '[' at 1:6, found '=='"),
        .init("stray parenthesis", .rule("n == 1)"), "1:7: unexpected ')' after the end of the rule"),
        .init(
            "AND/OR mix in strict mode", .rule("a == 1 OR b == 2 AND c == 3", options: ParseOptions(strict: true)),
            "1:1: AND and OR mixed without parentheses: parsed as 'a == 1 OR (b == 2 AND c == 3)', not '(a == 1 OR b == 2) AND c == 3'; add parentheses"
        ),
        .init(
            "selector without call", .rule("modulus:by: == 1"),
            "1:1: 'modulus:by:' must be followed by '(' and its arguments"),
        .init(
            "reserved word as key", .rule("size == 1 AND first == 2"),
            "1:1: 'size' is a reserved word; write #size to use it as a key"),
    ]

    // MARK: - Evaluation: limits and arithmetic edges

    static let evaluations: [HostileInput] = [
        .init(
            "(a+)+$ on 40 a's and '!': the automaton, no backtracking",
            .evaluation("name MATCHES '(a+)+$'", item: #"{"name": "\#(aaa)!"}"#), "false"
        ),
        .init(
            "(a+)+\\1?$ on 40 a's and '!'",
            .evaluation("name MATCHES '(a+)+\\\\1?$'", item: #"{"name": "\#(aaa)!"}"#),
            "limitExceeded at 0..<25: MATCHES '(a+)+\\1?$' stopped after 5,000,000 matching steps, the limit; the pattern backtracks too much on this string"
        ),
        .init(
            "(a|aa)+\\1?b on 60 a's",
            .evaluation("name MATCHES '(a|aa)+\\\\1?b'", item: #"{"name": "\#(aaa)\#(aaa)"}"#),
            "limitExceeded at 0..<27: MATCHES '(a|aa)+\\1?b' stopped after 5,000,000 matching steps, the limit; the pattern backtracks too much on this string"
        ),
        .init(
            "(a*)*b with [c]", .evaluation("name MATCHES[c] '(a*)*b'", item: #"{"name": "\#(aaa)"}"#),
            "limitExceeded at 0..<24: MATCHES '(a*)*b' stopped after 5,000,000 matching steps, the limit; the pattern backtracks too much on this string"
        ),
        .init(
            "invalid regular expression", .evaluation("name MATCHES '(a'", item: #"{"name": "a"}"#),
            "invalidPattern at 0..<17: '(a' is not a valid regular expression"),
        .init(
            "huge counted repetition", .evaluation("name MATCHES 'a{99999999999}'", item: #"{"name": "a"}"#),
            "invalidPattern at 0..<29: 'a{99999999999}' is not a valid regular expression"),
        .init(
            "pattern from the item over 16 KiB",
            .evaluation(
                "name LIKE pattern", item: #"{"name": "a", "pattern": "\#(String(repeating: "*a", count: 9_000))"}"#),
            "limitExceeded at 0..<17: the LIKE pattern is 18,000 bytes long, more than the limit of 16,384"),
        .init(
            // `?` makes the matcher backtrack (without it, `*aaa…ab` is a suffix, compared once).
            "LIKE *aaa…a?b against 20,000 a's",
            .evaluation(
                "name LIKE pattern",
                item:
                    #"{"name": "\#(String(repeating: "a", count: 20_000))", "pattern": "*\#(String(repeating: "a", count: 16_000))?b"}"#
            ),
            "limitExceeded at 0..<17: LIKE '*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' stopped after 5,000,000 matching steps, the limit; the pattern backtracks too much on this string"
        ),
        .init(
            "LIKE ending in a backslash", .evaluation(#"name LIKE 'a\\'"#, item: #"{"name": "a"}"#),
            #"invalidPattern at 0..<15: the LIKE pattern 'a\' ends with a backslash; write \\ for a literal backslash"#),
        .init(
            "three nested SUBQUERYs over 1,000 elements",
            .evaluation(
                "SUBQUERY(xs, $a, SUBQUERY(xs, $b, SUBQUERY(xs, $c, $c == $a).@count > 0).@count > 0).@count > 0",
                item: #"{"xs": \#(thousand)}"#),
            "limitExceeded at 0..<95: evaluation stopped after 10,000,000 steps, the limit; the rule does too much work for this input"
        ),
        .init(
            "ANY IN over 5,000 x 5,000", .evaluation("ANY xs IN ys", item: #"{"xs": \#(manyAs), "ys": \#(manyAs)}"#),
            "limitExceeded at 0..<12: evaluation stopped after 10,000,000 steps, the limit; the rule does too much work for this input"
        ),
        .init(
            "UNION of 3,000 and 3,000",
            .evaluation("(xs UNION ys).@count > 0", item: #"{"xs": \#(threeThousand), "ys": \#(threeThousand)}"#),
            "limitExceeded at 0..<24: evaluation stopped after 10,000,000 steps, the limit; the rule does too much work for this input"
        ),
        .init(
            "@distinctUnionOfObjects over 5,000",
            .evaluation("count:(xs.@distinctUnionOfObjects.length) > 0", item: #"{"xs": \#(manyAs)}"#),
            "limitExceeded at 0..<45: evaluation stopped after 10,000,000 steps, the limit; the rule does too much work for this input"
        ),
        .init(
            "SUBQUERY result over the collection limit",
            .evaluation(
                "SUBQUERY(xs, $x, TRUEPREDICATE).@count > 0", item: #"{"xs": [1,2,3,4,5,6,7,8,9,10,11]}"#,
                limits: EvaluationLimits(maximumCollectionCount: 10)),
            "limitExceeded at 0..<31: a collection of 11 elements exceeds the limit of 10"),
        .init(
            "aggregate over the collection limit",
            .evaluation(
                "{n, 1, 2, 3} CONTAINS 1", item: #"{"n": 0}"#, limits: EvaluationLimits(maximumCollectionCount: 3)),
            "limitExceeded at 0..<12: a collection of 4 elements exceeds the limit of 3"),
        .init(
            "step budget of 10",
            .evaluation(
                (1...20).map { "k\($0) == 1" }.joined(separator: " OR "), item: "{}",
                limits: EvaluationLimits(maximumSteps: 10)),
            "limitExceeded at 0..<227: evaluation stopped after 10 steps, the limit; the rule does too much work for this input"
        ),
        .init(
            "Int64.min modulus -1", .evaluation("modulus:by:(-9223372036854775807 - 1, -1) == 0", item: "{}"), "true"),
        .init("Int64.min divided by -1", .evaluation("(-9223372036854775807 - 1) / -1 < 0", item: "{}"), "true"),
        .init("abs of Int64.min", .evaluation("abs:(-9223372036854775807 - 1) < 0", item: "{}"), "true"),
        .init("shift by 100", .evaluation("leftshift:by:(1, 100) == 0", item: "{}"), "true"),
        .init("shift by a negative count", .evaluation("rightshift:by:(1, -1) == 0", item: "{}"), "false"),
        .init("Int64.max + 1", .evaluation("n + 1 < 0", item: #"{"n": 9223372036854775807}"#), "true"),
        .init("10 ** 1000 is infinity", .evaluation("raise:toPower:(10, 1000) > 1e308", item: "{}"), "true"),
        .init("1e999 literal is infinity", .evaluation("n < 1e999", item: #"{"n": 1}"#), "true"),
        .init(
            "randomn: with zero", .evaluation("randomn:(0) == 0", item: "{}"),
            "invalidArgument at 0..<11: randomn: needs a positive bound, got 0"),
        .init(
            "index 2^64", .evaluation("xs[18446744073709551616] == 1", item: #"{"xs": [1]}"#),
            "indexOutOfRange at 0..<24: index 1.8446744073709552e+19 is outside an array of 1 elements"),
        .init(
            "negative index", .evaluation("xs[-1] == 1", item: #"{"xs": [1]}"#),
            "indexOutOfRange at 0..<6: index -1 is outside an array of 1 elements"),
        .init(
            "CAST of text to a date", .evaluation("CAST('yesterday', 'NSDate') == nil", item: "{}"),
            #"invalidArgument at 0..<27: CAST reads dates in ISO 8601 form only, not "yesterday""#),
        .init(
            "unregistered FUNCTION selector", .evaluation("FUNCTION(name, 'dealloc') == nil", item: #"{"name": "a"}"#),
            #"unsupported at 0..<25: FUNCTION cannot send 'dealloc' to the string "a" here"#),
        .init(
            "unbound variable", .evaluation("$missing == 1", item: "{}"),
            "unboundVariable at 0..<8: the variable $missing has no value"),
        .init("NUL inside an item string", .evaluation("name == 'a'", item: #"{"name": "a\u0000b"}"#), "false"),
    ]

    // MARK: - JSON items

    static let items: [HostileInput] = [
        .init("truncated object", .json(Array(#"{"a": "#.utf8)), "1:7: unexpected end of input, expected a value"),
        .init(
            "600 nested arrays",
            .json(Array((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8)),
            "1:513: nesting is deeper than 512 levels"),
        .init("trailing comma", .json(Array(#"{"a": 1,}"#.utf8)), "1:9: expected a string key, found character '}'"),
        .init(
            "lone surrogate escape", .json(Array(#"["\ud800"]"#.utf8)), #"1:3: unpaired high surrogate in a \u escape"#),
        .init("invalid UTF-8 in a string", .json([0x5B, 0x22, 0xFF, 0x22, 0x5D]), "1:3: invalid UTF-8 byte 0xFF"),
        .init("overlong UTF-8", .json([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D]), "1:3: invalid UTF-8 byte 0xC0"),
        .init("raw NUL", .json(Array("{\"a\":\u{0}1}".utf8)), "1:6: unexpected character U+0000, expected a value"),
        .init(
            "control character in a string", .json(Array("[\"a\u{1}\"]".utf8)),
            "1:4: control character U+0001 in a string must be escaped"),
        .init("leading zero", .json(Array("[01]".utf8)), "1:2: a number must not have leading zeros"),
        .init("1e999", .json(Array(#"{"a": 1e999}"#.utf8)), "read"),
        .init("400-digit integer", .json(Array(("[" + String(repeating: "9", count: 400) + "]").utf8)), "read"),
        .init("two documents", .json(Array(#"{"a":1}{"#.utf8)), "1:8: unexpected character '{' after the JSON value"),
        .init(
            "bad $date", .json(Array(#"{"a": {"$date": "soon"}}"#.utf8)),
            "conversion: $.a.$date: expected a number of seconds since 2001-01-01T00:00:00Z, found string"),
    ]

    // MARK: - Info.plist

    static func plist(_ body: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">\(body)</plist>
            """.utf8)
    }

    static func action(rule: String) -> [UInt8] {
        plist(
            """
            <dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key><array><dict>\
            <key>NSExtensionFileProviderActionIdentifier</key><string>a</string>\
            <key>NSExtensionFileProviderActionName</key><string>A</string>\
            <key>NSExtensionFileProviderActionActivationRule</key><string>\(rule)</string>\
            </dict></array></dict></dict>
            """)
    }

    static let propertyLists: [HostileInput] = [
        .init(
            "empty plist", .propertyList([]), "the file is empty: not a property list"),
        .init("plain text", .propertyList(Array("hello".utf8)), "the property list is not a dictionary"),
        .init(
            "truncated binary plist", .propertyList(Array("bplist00".utf8) + [0xD1, 0x01]),
            "the file starts as a binary property list (bplist) but is truncated or corrupt: shorter than a header and a trailer"
        ),
        .init("array at the top", .propertyList(plist("<array/>")), "the property list is not a dictionary"),
        .init("no NSExtension", .propertyList(plist("<dict/>")), "the property list has no NSExtension dictionary"),
        .init(
            "NSExtension is a string", .propertyList(plist("<dict><key>NSExtension</key><string>x</string></dict>")),
            "NSExtension is not a dictionary"),
        .init(
            "no actions", .propertyList(plist("<dict><key>NSExtension</key><dict/></dict>")),
            "no NSExtensionFileProviderActions under NSExtension"),
        .init(
            "actions not an array",
            .propertyList(
                plist(
                    "<dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key><string>x</string></dict></dict>"
                )), "NSExtensionFileProviderActions is not an array"),
        .init(
            "action not a dictionary",
            .propertyList(
                plist(
                    "<dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key><array><string>x</string></array></dict></dict>"
                )), "action 1 is not a dictionary"),
        .init(
            "action without identifier",
            .propertyList(
                plist(
                    "<dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key><array><dict/></array></dict></dict>"
                )), "action 1 has no NSExtensionFileProviderActionIdentifier"),
        .init(
            "rule nested 200 deep", .propertyList(action(rule: String(repeating: "(", count: deep) + "TRUEPREDICATE")),
            "1:129: rule is nested too deeply (the limit is 128 levels)"),
        .init(
            "rule with a typo",
            .propertyList(action(rule: "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count &gt; 0")),
            "1:33: FileProviderItem has no key 'uploadded'; did you mean 'uploaded'?"),
        .init(
            "catastrophic MATCHES in a rule",
            .propertyList(action(rule: "ANY fileproviderItems.filename MATCHES '(a+)+\\\\1?$'")),
            "1:1: MATCHES '(a+)+\\1?$' stopped after 5,000,000 matching steps, the limit; the pattern backtracks too much on this string"
        ),
        .init(
            "invalid UTF-8 in XML",
            .propertyList(
                plist("<dict><key>NSExtension</key><string>\u{FFFD}</string></dict>").map { $0 == 0xEF ? 0xFF : $0 }),
            "line 3, column 58: not a valid XML property list: the file is not valid UTF-8 here"),
        .init(
            "raw && in a rule", .propertyList(action(rule: "a == 1 && b == 2")),
            "line 3, column 309: not a valid XML property list: a raw '&&' is not valid XML: write '&amp;&amp;' or, better, AND"
        ),
    ]

    // MARK: - Program bytes

    static let programs: [HostileInput] = [
        .init("no bytes", .program([]), "byte 0: the program is truncated"),
        .init("three bytes of magic", .program(Array("PRE".utf8)), "byte 3: the program is truncated"),
        .init(
            "wrong magic", .program(Array("ELF\u{7F}".utf8) + ProgramBytes.small.dropFirst(4)),
            "byte 0: not a serialized predicate program (wrong magic bytes)"),
        .init(
            "version 3", .program(ProgramBytes.framed(Array(ProgramBytes.small.dropFirst(14)), version: 3)),
            "byte 4: format version 3 is not supported (this build reads 2)"),
        .init(
            "one body byte flipped", .program(flipped(ProgramBytes.framed([1, 1, 0]), at: 16)),
            "byte 10: checksum mismatch: stored 0xe7988264, computed 0xca9a6de9"),
        .init("last byte missing", .program(Array(ProgramBytes.small.dropLast())), "byte 53: the program is truncated"),
        .init("one byte too many", .program(ProgramBytes.small + [0]), "byte 54: 1 unexpected trailing bytes"),
        .init("empty body", .program(ProgramBytes.framed([])), "byte 14: the program is truncated"),
        .init(
            "program kind 7", .program(ProgramBytes.reframed(ProgramBytes.small) { $0[2] = 7 }),
            "byte 16: invalid program kind 7"),
        .init(
            "unknown opcode",
            .program(ProgramBytes.reframed(ProgramBytes.small) { $0[ProgramBytes.firstOpcode] = 200 }),
            "byte 20: instruction 0: unknown opcode 200"),
        .init(
            "operand bytes set where none are used",
            .program(
                ProgramBytes.reframed(ProgramBytes.serialized([.pushSelf, .returnValue], kind: .expression)) {
                    $0[ProgramBytes.firstOpcode + 1] = 1
                }), "byte 20: instruction 0: unused operand bytes are set"),
        .init(
            "instruction count of eleven 0xFF bytes",
            .program(
                ProgramBytes.reframed(ProgramBytes.small) {
                    $0.replaceSubrange(5...5, with: Array(repeating: 0xFF, count: 11))
                }), "byte 28: the program is truncated"),
        .init(
            "lying instruction count",
            .program(
                ProgramBytes.reframed(ProgramBytes.small) { $0.replaceSubrange(5...5, with: [0xFF, 0xFF, 0xFF, 0x7F]) }),
            "byte 19: length 268435455 exceeds the 5 bytes available"),
        .init(
            "constant out of range", .program(ProgramBytes.serialized([.pushConstant(5), .returnBool])),
            "byte 20: the program does not verify: instruction 0: constant 5 out of range (0 constants)"),
        .init(
            "jump out of range", .program(ProgramBytes.serialized([.pushSelf, .jump(100), .returnBool])),
            "byte 24: the program does not verify: instruction 1: jump target 102 is outside the code"),
        .init(
            "backward jump",
            .program(
                ProgramBytes.serialized([.pushConstant(0), .jump(-2), .returnBool], constants: [.bool(true)], stack: 1)),
            "byte 24: the program does not verify: instruction 1: jumps back to 0; only SUBQUERY_COLLECT may loop"),
        .init(
            "stack underflow", .program(ProgramBytes.serialized([.not, .returnBool])),
            "byte 20: the program does not verify: instruction 0: pops 1 values from a stack of 0"),
        .init(
            "no return", .program(ProgramBytes.serialized([.pushSelf])),
            "byte 20: the program does not verify: instruction 0: execution can run past the end of the code"),
        .init(
            "expression return in a predicate", .program(ProgramBytes.serialized([.pushSelf, .returnValue])),
            "byte 24: the program does not verify: instruction 1: a predicate must end with RETURN_BOOL"),
        .init("nil in 255 arrays (256 levels, the limit)", .program(ProgramBytes.nestedConstant(depth: 255)), "loaded"),
        .init(
            "nil in 256 arrays", .program(ProgramBytes.nestedConstant(depth: 256)),
            "byte 544: constants nest deeper than 256 levels"),
        .init(
            "instruction limit", .program(ProgramBytes.small, limits: ProgramLimits(maximumInstructions: 1)),
            "byte 14: the program does not verify: 2 instructions, more than the limit of 1"),
        .init(
            "constant limit",
            .program(
                ProgramBytes.serialized([.pushConstant(0), .returnBool], constants: [.bool(true)]),
                limits: ProgramLimits(maximumConstants: 0)),
            "byte 14: the program does not verify: 1 constants, more than the limit of 0"),
        .init(
            "invalid UTF-8 source",
            // The source's one byte, before the empty comparison section (id, length, count).
            .program(ProgramBytes.reframed(ProgramBytes.small) { $0[$0.count - 4] = 0xFF }),
            "byte 50: a string is not valid UTF-8"),
    ]

    static func flipped(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
        var copy = bytes
        if offset < copy.count { copy[offset] ^= 0xFF }
        return copy
    }

    @Test func catalogueHasSixtyCases() {
        #expect(Self.cases.count >= 60)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count, "case names must be unique")
    }

    @Test(arguments: cases)
    func answersExactly(_ input: HostileInput) {
        let outcome = input.outcome()
        #expect(outcome == input.expected, "\(input.name)")
        if outcome != input.expected { print("CATALOGUE \(input.name) ⟫ \(outcome)") }
    }
}
