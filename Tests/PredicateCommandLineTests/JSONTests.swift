import PredicateValue
import Testing

// The JSON reader, writer and value conversion live in PredicateValue; their tests sit here
// beside the tool that is their first user.

private func number(_ text: String) -> JSON {
    guard let number = JSON.Number(text: text) else { return .string("invalid number \(text)") }
    return .number(number)
}

// MARK: Reader: valid input

private let validDocuments: [(source: String, expected: JSON)] = [
    ("null", .null),
    ("true", .bool(true)),
    ("false", .bool(false)),
    ("0", number("0")),
    ("-0", number("-0")),
    ("1.50", number("1.50")),
    ("-12.5e+3", number("-12.5e+3")),
    ("1E400", number("1E400")),
    ("\"\"", .string("")),
    ("\"abc\"", .string("abc")),
    (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{08}\u{0C}\n\r\t")),
    (#""\u0041\u00e9\u20AC""#, .string("Aé€")),
    (#""\ud83d\ude00""#, .string("😀")),
    (#""\u0000""#, .string("\u{0}")),
    ("\"héllo 😀\"", .string("héllo 😀")),
    ("[]", .array([])),
    ("{}", .object([])),
    (" \t\r\n[ 1 , [ ] , { } ]\n", .array([number("1"), .array([]), .object([])])),
    (
        #"{"b":1,"a":[true,null],"b":"again"}"#,
        .object([
            (key: "b", value: number("1")), (key: "a", value: .array([.bool(true), .null])),
            (key: "b", value: .string("again")),
        ])
    ),
    (#"{"":{"":[]}}"#, .object([(key: "", value: .object([(key: "", value: .array([]))]))])),
]

@Test("valid JSON parses to the expected tree", arguments: validDocuments)
func parsesValidJSON(source: String, expected: JSON) throws {
    #expect(try JSON.parse(source) == expected)
}

// MARK: Reader: invalid input

private let invalidDocuments: [(source: String, line: Int, column: Int, message: String)] = [
    ("", 1, 1, "unexpected end of input, expected a value"),
    ("   ", 1, 4, "unexpected end of input, expected a value"),
    ("nul", 1, 1, "invalid literal, expected 'null'"),
    ("nulll", 1, 1, "invalid literal, expected 'null'"),
    ("True", 1, 1, "unexpected character 'T', expected a value"),
    ("NaN", 1, 1, "unexpected character 'N', expected a value"),
    ("'a'", 1, 1, "unexpected character ''', expected a value"),
    ("+1", 1, 1, "unexpected character '+', expected a value"),
    ("01", 1, 1, "a number must not have leading zeros"),
    ("-", 1, 2, "expected a digit after '-', found end of input"),
    ("-a", 1, 2, "expected a digit after '-', found character 'a'"),
    ("1.", 1, 3, "expected a digit after '.', found end of input"),
    (".5", 1, 1, "unexpected character '.', expected a value"),
    ("1e", 1, 3, "expected a digit in the exponent, found end of input"),
    ("1e+", 1, 4, "expected a digit in the exponent, found end of input"),
    ("1 2", 1, 3, "unexpected character '2' after the JSON value"),
    ("[1,]", 1, 4, "unexpected character ']', expected a value"),
    ("[1 2]", 1, 4, "expected ',' or ']' after an array element, found character '2'"),
    ("[1", 1, 3, "expected ',' or ']' after an array element, found end of input"),
    ("{\"a\":1,}", 1, 8, "expected a string key, found character '}'"),
    ("{\"a\" 1}", 1, 6, "expected ':' after an object key, found character '1'"),
    ("{a:1}", 1, 2, "expected a string key, found character 'a'"),
    ("{\"a\":1 \"b\":2}", 1, 8, "expected ',' or '}' after an object member, found character '\"'"),
    ("\"abc", 1, 5, "unexpected end of input in a string"),
    ("\"a\tb\"", 1, 3, "control character U+0009 in a string must be escaped"),
    ("\"\\x\"", 1, 2, "invalid escape sequence '\\x'"),
    ("\"\\u12\"", 1, 6, "expected 4 hex digits after \\u"),
    ("\"\\ud800\"", 1, 2, "unpaired high surrogate in a \\u escape"),
    ("\"\\udc00\"", 1, 2, "unpaired low surrogate in a \\u escape"),
    ("\"\\ud800\\u0041\"", 1, 8, "expected a low surrogate after a high surrogate"),
    ("[\n  1,\n  x\n]", 3, 3, "unexpected character 'x', expected a value"),
    ("[\r\n1,\r\n}", 3, 1, "unexpected character '}', expected a value"),
    ("[\"é\", é]", 1, 7, "unexpected character U+00E9, expected a value"),
    ("/* c */ 1", 1, 1, "unexpected character '/', expected a value"),
    ("\u{FEFF}1", 1, 1, "a byte order mark is not allowed"),
    ("[1]\u{0}", 1, 4, "unexpected character U+0000 after the JSON value"),
]

@Test("invalid JSON is rejected with a position", arguments: invalidDocuments)
func rejectsInvalidJSON(source: String, line: Int, column: Int, message: String) {
    #expect(throws: JSONParseError.self) { try JSON.parse(source) }
    do {
        _ = try JSON.parse(source)
    } catch {
        #expect(error.message == message)
        #expect(error.line == line)
        #expect(error.column == column)
        #expect(error.description == "\(line):\(column): \(message)")
    }
}

@Test(
    "invalid UTF-8 is rejected at the offending byte",
    arguments: [
        ([0x22, 0xFF, 0x22], "invalid UTF-8 byte 0xFF"),
        ([0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 byte 0xC0"),  // overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 sequence starting with byte 0xED"),  // surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 sequence starting with byte 0xF4"),  // > U+10FFFF
        ([0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 sequence starting with byte 0xE2"),  // truncated
        ([0x22, 0xE2, 0x82], "invalid UTF-8 sequence starting with byte 0xE2"),  // truncated at the end
        ([0x80], "unexpected byte 0x80, expected a value"),
    ] as [([UInt8], String)])
func rejectsInvalidUTF8(bytes: [UInt8], message: String) {
    do {
        _ = try JSON.parse(bytes)
        Issue.record("parsed invalid UTF-8")
    } catch {
        #expect(error.message == message)
    }
}

@Test func nestingDepthIsLimited() throws {
    let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    _ = try JSON.parse(deepest)
    let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
    #expect(throws: JSONParseError(message: "nesting is deeper than 512 levels", line: 1, column: 513, offset: 512)) {
        try JSON.parse(tooDeep)
    }
    // Far beyond any stack: must fail cleanly, not crash.
    let hostile = String(repeating: "{\"a\":[", count: 200_000)
    #expect(throws: JSONParseError.self) { try JSON.parse(hostile) }
    #expect(throws: JSONParseError.self) { try JSON.parse("[[[1]]]", maximumDepth: 2) }
    #expect(try JSON.parse("[[1]]", maximumDepth: 2) == .array([.array([number("1")])]))
}

@Test func everyPrefixAndCorruptionFailsCleanly() {
    // A crude fuzzer: truncations and single-byte corruptions of a document exercising every
    // construct must either parse or throw; a crash or hang fails the test run.
    let document = Array(#"{"a":[1,-2.5e+3,true,false,null,"x\n\u00e9\ud83d\ude00é"],"b":{"c":[]}}"#.utf8)
    for end in 0...document.count {
        _ = try? JSON.parse(Array(document[..<end]))
    }
    var generator = SystemRandomNumberGenerator()
    let interesting: [UInt8] = Array("{}[]\",:\\-+.eE0123456789tfnu \n".utf8) + [0x00, 0x80, 0xC3, 0xED, 0xFF]
    for _ in 0..<5_000 {
        var corrupted = document
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = Int.random(in: 0..<corrupted.count, using: &generator)
            corrupted[position] = interesting.randomElement(using: &generator) ?? 0
        }
        _ = try? JSON.parse(corrupted)
    }
}

// MARK: Numbers and conversion

private let numberClassification: [(source: String, expected: Value)] = [
    ("0", .int(0)),
    ("-0", .int(0)),
    ("42", .int(42)),
    ("-9223372036854775808", .int(.min)),
    ("9223372036854775807", .int(.max)),
    ("9223372036854775808", .uint(9_223_372_036_854_775_808)),
    ("18446744073709551615", .uint(.max)),
    ("18446744073709551616", .double(18_446_744_073_709_551_616)),
    ("-9223372036854775809", .double(-9_223_372_036_854_775_808)),
    ("1.0", .double(1)),
    ("1e2", .double(100)),
    ("-0.0", .double(-0.0)),
    ("0.1", .double(0.1)),
    ("1E400", .double(.infinity)),
    ("-1e400", .double(-.infinity)),
    ("1e-400", .double(0)),
]

@Test("numbers become int, uint or double", arguments: numberClassification)
func classifiesNumbers(source: String, expected: Value) throws {
    let value = try Value(json: JSON.parse(source))
    #expect(value == expected)
    if case .double(let double) = value, case .double(let expectedDouble) = expected {
        #expect(double.sign == expectedDouble.sign)
    }
}

@Test func numberTextIsValidated() {
    #expect(JSON.Number(text: "12") != nil)
    #expect(JSON.Number(text: "-0.5E-7") != nil)
    for invalid in ["", "-", "01", "1.", ".1", "+1", "1e", "0x10", "NaN", "1 ", " 1", "١"] {
        #expect(JSON.Number(text: invalid) == nil, "\(invalid)")
    }
    #expect(JSON.Number(Double.nan) == nil)
    #expect(JSON.Number(Double.infinity) == nil)
    #expect(JSON.Number(3.0)?.text == "3.0")
    #expect(JSON.Number(Int64.min).text == "-9223372036854775808")
    #expect(JSON.Number(UInt64.max).int64Value == nil)
    #expect(JSON.Number(UInt64.max).uint64Value == .max)
}

private let conversions: [(source: String, expected: Value)] = [
    ("null", .nil),
    ("[null, 1]", .array([.null, .int(1)])),
    (#"{"a": null}"#, .dictionary(["a": .nil])),
    (#"{"a": [null]}"#, .dictionary(["a": .array([.null])])),
    (#"{"a": 1, "a": 2}"#, .dictionary(["a": .int(2)])),
    (#"{"$date": 0}"#, .date(secondsSinceReferenceDate: 0)),
    (#"{"$date": -86400.5}"#, .date(secondsSinceReferenceDate: -86_400.5)),
    (#"{"$date": {"$double": "NaN"}}"#, .date(secondsSinceReferenceDate: .nan)),
    (#"{"$data": ""}"#, .data([])),
    (#"{"$data": "AAEC/w=="}"#, .data([0, 1, 2, 255])),
    (#"{"$double": "-Infinity"}"#, .double(-.infinity)),
    (#"{"$double": 3}"#, .double(3)),
    (#"{"$date": 1, "other": 2}"#, .dictionary(["$date": .int(1), "other": .int(2)])),
    (#"{"$other": 1}"#, .dictionary(["$other": .int(1)])),
    (#"["a", true, {"b": [1.5]}]"#, .array([.string("a"), .bool(true), .dictionary(["b": .array([.double(1.5)])])])),
]

@Test("JSON converts to values", arguments: conversions)
func convertsJSONToValues(source: String, expected: Value) throws {
    #expect(try Value(json: JSON.parse(source)) == expected)
}

@Test(
    "malformed tagged objects are errors with a path",
    arguments: [
        (#"{"$date": "2024-01-01"}"#, "$.$date"),
        (#"{"a": [1, {"$data": "!!"}]}"#, "$.a[1].$data"),
        (#"{"$data": "AAE"}"#, "$.$data"),
        (#"{"$data": "AAF="}"#, "$.$data"),  // non-zero bits under the padding
        (#"{"x y": {"$double": "nan"}}"#, #"$["x y"].$double"#),
    ])
func rejectsMalformedTags(source: String, path: String) throws {
    let json = try JSON.parse(source)
    #expect(throws: JSONConversionError.self) { try Value(json: json) }
    do {
        _ = try Value(json: json)
    } catch {
        #expect(error.path == path)
    }
}

// MARK: Writer and round-trips

@Test(
    "strings are escaped",
    arguments: [
        ("plain", #""plain""#),
        ("quote \" backslash \\ slash /", #""quote \" backslash \\ slash /""#),
        ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
        ("\u{0}\u{1F}\u{7F}", #""\u0000\u001f\u007f""#),
        ("é😀\u{2028}\u{2029}", "\"é😀\\u2028\\u2029\""),
        ("e\u{301}", "\"e\u{301}\""),
        ("€\u{2027}\u{2028}x\u{2029}\n", "\"€\u{2027}\\u2028x\\u2029\\n\""),
    ])
func escapesStrings(text: String, expected: String) throws {
    let written = JSON.string(text).serialized
    #expect(written == expected)
    #expect(try JSON.parse(written) == .string(text))
}

@Test(
    "parsing then writing gives compact JSON with text kept",
    arguments: [
        (" { \"b\" : [ 1.50 , -0 , 1E400 ] , \"a\" : { } } ", #"{"b":[1.50,-0,1E400],"a":{}}"#),
        (#"["\u0041", "\/"]"#, #"["A","/"]"#),
        ("18446744073709551616", "18446744073709551616"),
    ])
func rewritesCompactly(source: String, expected: String) throws {
    #expect(try JSON.parse(source).serialized == expected)
}

private let roundTripValues: [Value] = [
    .nil,
    .bool(false),
    .int(-7),
    .int(.min),
    .uint(.max),
    .double(0.1),
    .double(3),
    .double(-0.0),
    .double(1e300),
    .double(.leastNonzeroMagnitude),
    .double(.nan),
    .double(.infinity),
    .string("a \"quoted\"\n\u{0} string é😀"),
    .date(secondsSinceReferenceDate: 0),
    .date(secondsSinceReferenceDate: 726_000_000.25),
    .date(secondsSinceReferenceDate: -.infinity),
    .data([]),
    .data([0xFF]),
    .data([1, 2]),
    .data(Array(0...255)),
    .array([.null, .int(1), .array([.null])]),
    .dictionary(["z": .int(1), "a": .dictionary(["$date": .string("two keys: not a tag"), "x": .int(2)]), "n": .nil]),
]

@Test("values survive Value -> JSON -> text -> JSON -> Value", arguments: roundTripValues)
func roundTripsValues(value: Value) throws {
    let text = JSON(value).serialized
    let back = try Value(json: JSON.parse(text))
    #expect(back == value, "\(text)")
}

@Test func valueToJSONIsDeterministicAndDocumented() {
    let value = Value.dictionary([
        "b": .date(secondsSinceReferenceDate: 1.5), "a": .data([104, 105]), "c": .array([.nil, .null]),
    ])
    #expect(JSON(value).serialized == #"{"a":{"$data":"aGk="},"b":{"$date":1.5},"c":[null,null]}"#)
    #expect(JSON(.double(.nan)).serialized == #"{"$double":"NaN"}"#)
    #expect(JSON(.int(3)).serialized == "3")
    #expect(JSON(.double(3)).serialized == "3.0")
    #expect(JSON(.double(1e20)).serialized == "1e+20")
}

@Test func lookupTakesTheLastDuplicate() throws {
    let json = try JSON.parse(#"{"a":1,"b":2,"a":3}"#)
    #expect(json["a"] == number("3"))
    #expect(json["missing"] == nil)
    #expect(JSON.array([])["a"] == nil)
}

/// A root array may be bounded: the reader stops at the comma that starts the element past the
/// limit, without reading the rest (a huge selection is refused in memory for its first part);
/// nested arrays are not counted, and a malformed text is still a plain syntax error.
@Test func rootElementsAreLimitedWhenAsked() throws {
    #expect(
        try JSON.parse(Array("[1, 2, 3]".utf8), maximumRootElements: 3)
            == .array([number("1"), number("2"), number("3")]))
    #expect(
        try JSON.parse(Array("[[1, 2, 3, 4]]".utf8), maximumRootElements: 1)
            == .array([.array((1...4).map { number("\($0)") })]))
    do throws(JSONParseError) {
        // The rest after the limit is not even valid JSON: it is never read.
        _ = try JSON.parse(Array("[1, 2, 3, 4, x".utf8), maximumRootElements: 3)
        Issue.record("parsed four elements with a limit of three")
    } catch {
        #expect(error.message == "the array holds more than 3 elements")
        #expect(error.offset == 9)
        #expect(error.exceedsRootElementLimit)
    }
    do throws(JSONParseError) {
        _ = try JSON.parse(Array("[1, 2 x".utf8), maximumRootElements: 3)
        Issue.record("parsed a malformed array")
    } catch {
        #expect(!error.exceedsRootElementLimit)
    }
}
