import PredicateCommandLine
import PredicateSyntax
import PredicateValue
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func run(
    _ arguments: [String], input: String = "", tool: CommandLineTool = CommandLineTool()
) -> CommandLineResult {
    tool.run(arguments: arguments, standardInput: Array(input.utf8))
}

/// Runs `eval --jsonl` and returns the output lines.
private func jsonLines(_ input: String, tool: CommandLineTool = CommandLineTool()) -> [Substring] {
    let result = run(["eval", "--jsonl"], input: input, tool: tool)
    #expect(result.exitCode == 0)
    #expect(result.standardError == "")
    #expect(result.standardOutput.isEmpty || result.standardOutput.hasSuffix("\n"))
    return result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
}

private func line(_ id: String, format: String?, error: String? = nil, result: String = "null") -> String {
    let formatJSON = format.map { JSON.string($0).serialized } ?? "null"
    let errorJSON = error.map { JSON.string($0).serialized } ?? "null"
    let parsed = format != nil
    return #"{"id":\#(id),"parsed":\#(parsed),"format":\#(formatJSON),"result":\#(result),"error":\#(errorJSON)}"#
}

// MARK: eval --jsonl

@Test func jsonLinesContractEndToEnd() {
    let input = """
        {"id":1,"predicate":"name == %@","args":["x"]}
        {"id":2,"predicate":"%K == %@","args":["a.b",1]}
        {"id":3,"predicate":"name == AND x"}
        {not json
        [1,2]

        {"id":"s","predicate":42}
        {"id":4}
        {"id":5,"predicate":"a == %@","args":{"x":1}}
        {"id":6,"predicate":"a == $x","vars":[1]}
        {"id":7,"predicate":"a == %@","args":[{"$date":"tomorrow"}]}
        {"id":8,"predicate":"a == %@","args":[{"$date":0}],"vars":{"x":null},"object":{"a":[null]},"extra":1}
        {"id":9,"predicate":"x == %@ AND y == %@","args":[null,1.5]}
        {"id":10,"predicate":"a == %@"}
        {"id":11,"predicate":"a == $x","vars":{"x":{"$data":"??"}}}
        """
    let expected = [
        line("1", format: #"name == "x""#),
        line("2", format: "a.b == 1"),
        line("3", format: nil, error: "1:9: error: expected an expression, found 'AND'"),
        line("null", format: nil, error: "invalid JSON: 1:2: expected a string key, found character 'n'"),
        line("null", format: nil, error: "expected a JSON object, found array"),
        line("null", format: nil, error: "blank line: expected a JSON object"),
        line(#""s""#, format: nil, error: "'predicate' must be a string, found number"),
        line("4", format: nil, error: "missing key 'predicate'"),
        line("5", format: nil, error: "'args' must be an array, found object"),
        line("6", format: nil, error: "'vars' must be an object, found array"),
        line(
            "7", format: nil,
            error:
                "invalid value at args[0].$date: expected a number of seconds since 2001-01-01T00:00:00Z, found string"),
        line("8", format: #"a == CAST(0.000000, "NSDate")"#),
        line("9", format: "x == nil AND y == 1.5"),
        line("10", format: nil, error: "1:6: error: insufficient arguments: the format needs at least 1, 0 given"),
        line(
            "11", format: nil,
            error: "invalid value at vars.x.$data: expected a Base64 string (standard alphabet, padded)"),
    ]
    let output = jsonLines(input + "\n")
    #expect(output.count == expected.count)
    for (actual, wanted) in zip(output, expected) {
        #expect(actual == wanted)
    }
}

@Test(
    "ids of every JSON type are echoed exactly",
    arguments: [
        ("1", "1"),
        ("-0", "-0"),
        ("1.50", "1.50"),
        ("2E+400", "2E+400"),
        ("18446744073709551616", "18446744073709551616"),
        (#""case-1""#, #""case-1""#),
        (#""tab\there \u00e9""#, #""tab\there é""#),
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
        (#"[ 1, "a", null, [] ]"#, #"[1,"a",null,[]]"#),
        (#"{ "z": 1, "a": {"b": 2.0} }"#, #"{"z":1,"a":{"b":2.0}}"#),
    ])
func echoesIDs(id: String, echoed: String) {
    let output = jsonLines(#"{"predicate":"a == 1","id":\#(id)}"# + "\n")
    #expect(output == [Substring(line(echoed, format: "a == 1"))])
}

@Test func missingIDIsNull() {
    #expect(jsonLines(#"{"predicate":"TRUEPREDICATE"}"#) == [Substring(line("null", format: "TRUEPREDICATE"))])
}

@Test(
    "line splitting: one output line per input line",
    arguments: [
        ("", 0),
        ("\n", 1),
        ("\n\n", 2),
        (#"{"predicate":"a == 1"}"#, 1),
        (#"{"predicate":"a == 1"}"# + "\n", 1),
        (#"{"predicate":"a == 1"}"# + "\r\n" + #"{"predicate":"b == 1"}"# + "\r\n", 2),
        (#"{"predicate":"a == 1"}"# + "\n   ", 2),
        ("x\ny\nz", 3),
    ])
func countsLines(input: String, count: Int) {
    #expect(jsonLines(input).count == count)
}

@Test func crLineEndingsAreWhitespace() {
    let output = jsonLines(#"{"id":1,"predicate":"a == 1"}"# + "\r\n\r\n")
    #expect(
        output == [
            Substring(line("1", format: "a == 1")),
            Substring(line("null", format: nil, error: "blank line: expected a JSON object")),
        ])
}

@Test func longAndManyLinesStream() {
    // Lines longer than the reader's chunk, and more lines than fit in one chunk.
    let long = String(repeating: "x", count: 300_000)
    var input = #"{"id":0,"predicate":"name == %@","args":["\#(long)"]}"# + "\n"
    for index in 1...20_000 {
        input += #"{"id":\#(index),"predicate":"a == \#(index)"}"# + "\n"
    }
    let output = jsonLines(input)
    #expect(output.count == 20_001)
    #expect(output.first == Substring(line("0", format: #"name == "\#(long)""#)))
    #expect(output.last == Substring(line("20000", format: "a == 20000")))
}

@Test func invalidUTF8LineIsAnErrorLine() {
    let bytes: [UInt8] = Array(#"{"predicate":"a == '"#.utf8) + [0xFF] + Array(#"'"}"#.utf8) + [0x0A]
    let result = CommandLineTool().run(arguments: ["eval", "--jsonl"], standardInput: bytes)
    #expect(result.exitCode == 0)
    #expect(
        result.standardOutput == line("null", format: nil, error: "invalid JSON: 1:21: invalid UTF-8 byte 0xFF") + "\n")
}

@Test func strictOptionReachesTheParser() {
    let input = #"{"id":1,"predicate":"a = 1 OR b = 2 AND c = 3"}"#
    let lenient = jsonLines(input)
    #expect(lenient == [Substring(line("1", format: "a == 1 OR (b == 2 AND c == 3)"))])
    let strict = run(["eval", "--jsonl", "--strict"], input: input)
    #expect(strict.exitCode == 0)
    #expect(strict.standardOutput.contains(#""parsed":false"#))
}

@Test func evaluatorHookFillsResults() {
    struct Unsupported: Error, CustomStringConvertible {
        var description: String { "unsupported object" }
    }
    // A stand-in evaluator that only checks the plumbing: the object and variables arrive
    // converted, results and thrown errors come out in the right keys.
    let tool = CommandLineTool { predicate, object, variables, _ in
        guard case .dictionary(let dictionary) = object else { throw Unsupported() }
        return dictionary["ok"] == .bool(true) && variables["v"] == .date(secondsSinceReferenceDate: 1)
            && variables["$date"] == .int(2)
            && predicate.format == "a == 1"
    }
    let input = """
        {"id":1,"predicate":"a == 1","object":{"ok":true},"vars":{"v":{"$date":1},"$date":2}}
        {"id":2,"predicate":"a == 1","object":{"ok":false},"vars":{"v":{"$date":1}}}
        {"id":3,"predicate":"a == 1","object":[1]}
        {"id":4,"predicate":"a =="}
        """
    #expect(
        jsonLines(input, tool: tool) == [
            Substring(line("1", format: "a == 1", result: "true")),
            Substring(line("2", format: "a == 1", result: "false")),
            Substring(line("3", format: "a == 1", error: "unsupported object")),
            Substring(line("4", format: nil, error: "1:5: error: expected an expression, found end of input")),
        ])
}

@Test(
    "--jsonl usage errors",
    arguments: [
        ["eval", "--jsonl", "a == 1"],
        ["eval", "--jsonl", "--args", "[]"],
        ["eval", "--jsonl", "--object", "-"],
        ["eval", "--jsonl=yes"],
    ])
func jsonLinesUsageErrors(arguments: [String]) {
    let result = run(arguments)
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(result.standardError.contains("usage: predicate eval"))
}

// MARK: format

@Test(
    "format prints the canonical form",
    arguments: [
        (["format", "name = 'x'"], #"name == "x""#),
        (["format", "name == %@", "--args", #"["x"]"#], #"name == "x""#),
        (["format", "--args=[\"a.b\", 3]", "%K > %d"], "a.b > 3"),
        (["format", "%@ == x", "--args", #"[{"$date": 0}]"#], #"CAST(0.000000, "NSDate") == x"#),
        (["format", "%@ == x", "--args", #"[{"$date": 0}]"#, "--round-trip"], #"CAST(0.0, "NSDate") == x"#),
        (["format", "score > 10.0 AND score BETWEEN {1.0, 10.5}"], "score > 10 AND score BETWEEN {1, 10.5}"),
        (
            ["format", "--round-trip", "score > 10.0 AND score BETWEEN {1.0, 10.5}"],
            "score > 10.0 AND score BETWEEN {1.0, 10.5}"
        ),
        (["format", "1 + 2 * x", "--expression"], "1 + (2 * x)"),
        (["format", "--", "-1 < x"], "-1 < x"),
        (["format", "a = 1 OR b = 2 AND c = 3"], "a == 1 OR (b == 2 AND c == 3)"),
    ])
func formatsRules(arguments: [String], expected: String) {
    let result = run(arguments)
    #expect(result.exitCode == 0)
    #expect(result.standardOutput == expected + "\n")
}

@Test func formatReportsWarningsRenderedOnStandardError() {
    let result = run(["format", "a = 1 OR b = 2 AND c = 3"])
    #expect(result.exitCode == 0)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines.first?.hasPrefix("1:1: warning: AND and OR mixed without parentheses") == true)
    #expect(lines.dropFirst().first == "a = 1 OR b = 2 AND c = 3")
    #expect(!result.standardError.contains("\u{1B}["))
}

@Test func formatReportsErrorsWithACaret() {
    let result = run(["format", "name == AND x"])
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(result.standardError == "1:9: error: expected an expression, found 'AND'\nname == AND x\n        ^~~\n")
    let strict = run(["format", "--strict", "a = 1 OR b = 2 AND c = 3"])
    #expect(strict.exitCode == 2)
    #expect(strict.standardError.contains("error:"))
}

@Test func diagnosticsAreColouredOnlyWhenAsked() {
    let plain = run(["format", "name == AND x"])
    #expect(!plain.standardError.contains("\u{1B}["))
    let colored = run(["format", "name == AND x"], tool: CommandLineTool(colorDiagnostics: true))
    #expect(colored.standardError.contains("\u{1B}[1;31merror:"))
}

@Test(
    "format input errors exit 2",
    arguments: [
        (
            ["format", "a == %@", "--args", "[1,"],
            "--args: invalid JSON: 1:4: unexpected end of input, expected a value"
        ),
        (["format", "a == %@", "--args", #"{"a":1}"#], "--args must be a JSON array, found object"),
        (["format", "a == %@", "--args", #"[{"$data":1}]"#], "--args: invalid value: $[0].$data: expected a Base64"),
    ])
func formatInputErrors(arguments: [String], message: String) {
    let result = run(arguments)
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(result.standardError.hasPrefix("predicate: error: \(message)"))
}

// MARK: eval (single rule)

@Test func evalWithoutEvaluatorIsHonest() {
    let result = run(["eval", "a == 1"])
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(result.standardError.contains("evaluation is not available yet"))
    #expect(result.standardError.contains("a == 1"))
    let broken = run(["eval", "a =="])
    #expect(broken.exitCode == 2)
    #expect(broken.standardError.hasPrefix("1:5: error:"))
}

@Test func evalUsesTheEvaluatorHook() {
    let tool = CommandLineTool { _, object, variables, _ in
        object == .dictionary(["a": .int(1)]) && variables == ["v": .string("x")]
    }
    let yes = run(["eval", "a == 1", "--object", "-", "--vars", #"{"v":"x"}"#], input: #"{"a":1}"#, tool: tool)
    #expect(yes.exitCode == 0)
    #expect(yes.standardOutput == "true\n")
    let no = run(["eval", "a == 1", "--object", "-"], input: #"{"a":2}"#, tool: tool)
    #expect(no.exitCode == 1)
    #expect(no.standardOutput == "false\n")
    let badObject = run(["eval", "a == 1", "--object", "-"], input: "{", tool: tool)
    #expect(badObject.exitCode == 2)
    #expect(badObject.standardError.hasPrefix("predicate: error: --object (standard input): invalid JSON: 1:2:"))
}

@Test func evalReadsTheObjectFromAFile() throws {
    let path = "/tmp/predicate-cli-test-\(getpid()).json"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(descriptor >= 0)
    let text = Array(#"{"bytes": 5}"#.utf8)
    #expect(text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == text.count)
    close(descriptor)
    defer { unlink(path) }
    let tool = CommandLineTool { _, object, _, _ in object == .dictionary(["bytes": .int(5)]) }
    #expect(run(["eval", "bytes == 5", "--object", path], tool: tool).exitCode == 0)
    let missing = run(["eval", "bytes == 5", "--object", path + ".missing"], tool: tool)
    #expect(missing.exitCode == 2)
    #expect(missing.standardError.contains("cannot read '\(path).missing'"))
}

// MARK: Usage and help

@Test(
    "usage errors exit 2 with a usage line on standard error",
    arguments: [
        ([], "missing subcommand"),
        (["frobnicate"], "unknown subcommand 'frobnicate'"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["format"], "missing rule"),
        (["format", "a", "b"], "expected one rule, got 2"),
        (["format", "a == 1", "--object", "x"], "unknown option '--object' for 'format'"),
        (["format", "a == 1", "--args"], "option '--args' needs a value"),
        (["format", "a == 1", "--args", "[]", "--args", "[]"], "option '--args' given more than once"),
        (["format", "a == 1", "--expression=yes"], "option '--expression' takes no value"),
        (["eval"], "missing rule"),
        (["help", "frobnicate"], "no help for unknown subcommand 'frobnicate'"),
    ])
func usageErrors(arguments: [String], message: String) {
    let result = run(arguments)
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(result.standardError.hasPrefix("predicate: error: \(message)"))
    #expect(result.standardError.contains("usage: predicate"))
}

@Test(
    "help goes to standard output and exits 0",
    arguments: [
        ["--help"], ["-h"], ["help"], ["help", "format"], ["format", "--help"], ["help", "eval"], ["eval", "-h"],
    ])
func helpExitsZero(arguments: [String]) {
    let result = run(arguments)
    #expect(result.exitCode == 0)
    #expect(result.standardError == "")
    #expect(result.standardOutput.hasPrefix("predicate"))
}

@Test func mainHelpListsSubcommandsAndExitCodes() {
    let help = run(["--help"]).standardOutput
    for word in ["format", "eval", "--jsonl", "help", "EXIT CODES", "0 ", "1 ", "2 "] {
        #expect(help.contains(word), "\(word)")
    }
    #expect(run(["help"]).standardOutput == help)
}

@Test func evalHelpDocumentsTheContract() {
    let help = run(["eval", "--help"]).standardOutput
    #expect(run(["help", "eval"]).standardOutput == help)
    let inputKeys = [#""id""#, #""predicate""#, #""args""#, #""vars""#, #""object""#]
    let keys = inputKeys + [#""parsed""#, #""format""#, #""result""#, #""error""#]
    for key in keys {
        #expect(help.contains(key), "\(key)")
    }
    for topic in ["$date", "$data", "$double", "Int64", "UInt64", "blank line", "reference interpreter", "caret"] {
        #expect(help.contains(topic), "\(topic)")
    }
}

@Test func helpTextsStayNarrow() {
    for arguments in [
        ["help"], ["help", "format"], ["help", "eval"], ["help", "check"], ["help", "actions"], ["help", "items"],
    ] {
        for line in run(arguments).standardOutput.split(separator: "\n") {
            #expect(line.count <= 100, "\(line)")
        }
    }
}

/// The tool as shipped: the reference interpreter fills `result`, and evaluation errors carry the
/// position of the failing sub-expression.
@Test func theInterpreterFillsResultsAndPositionsErrors() {
    let tool = CommandLineTool(evaluator: interpreterEvaluator)
    let input = """
        {"id":1,"predicate":"SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0","object":{"fileproviderItems":[{"isUploaded":false},{"isUploaded":true}]}}
        {"id":2,"predicate":"a < %@","args":["x"],"object":{"a":1}}
        {"id":3,"predicate":"x BETWEEN {1, 10} AND $v == 'k'","vars":{"v":"k"},"object":{"x":5}}
        {"id":4,"predicate":"d > CAST(0, 'NSDate')","object":{"d":{"$date":10}}}
        {"id":5,"predicate":"a == 1 AND missing.x < 'b'","object":{"a":1}}

        """
    let output = tool.run(arguments: ["eval", "--jsonl"], standardInput: Array(input.utf8)).standardOutput
    let lines = output.split(separator: "\n").map(String.init)
    #expect(lines.count == 5)
    #expect(lines.first?.contains(#""result":true,"error":null"#) == true)
    #expect(lines.dropFirst().first?.contains(#""result":null,"error":"1:1: error: cannot order the number 1"#) == true)
    #expect(lines.dropFirst(2).first?.contains(#""result":true"#) == true)
    #expect(lines.dropFirst(3).first?.contains(#""result":true"#) == true)
    #expect(lines.dropFirst(4).first?.contains(#""result":false,"error":null"#) == true)

    let single = tool.run(
        arguments: ["eval", "documentSize * 2 > name", "--object", "-"],
        standardInput: Array(#"{"documentSize": 4, "name": "x"}"#.utf8))
    #expect(single.exitCode == 2)
    #expect(
        single.standardError == """
            1:1: error: cannot order the number 8 against the string "x"
            documentSize * 2 > name
            ^~~~~~~~~~~~~~~~~~~~~~~

            """)
    let truth = tool.run(arguments: ["eval", "x > 1", "--object", "-"], standardInput: Array(#"{"x": 2}"#.utf8))
    #expect(truth.exitCode == 0)
    #expect(truth.standardOutput == "true\n")
    let falsity = tool.run(arguments: ["eval", "x > 1", "--object", "-"], standardInput: Array(#"{"x": 0}"#.utf8))
    #expect(falsity.exitCode == 1)
    #expect(falsity.standardOutput == "false\n")
}

/// `disasm` prints the listing; `--engine` picks the VM (default) or the interpreter, which agree.
@Test func disasmAndEngines() {
    let tool = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
    let listing = tool.run(arguments: ["disasm", "documentSize > 1e6"])
    #expect(listing.exitCode == 0)
    #expect(
        listing.standardOutput.contains("0000  TEST                  s0                  ; documentSize > 1000000.0"))
    #expect(listing.standardOutput.contains("RETURN_BOOL"))
    #expect(tool.run(arguments: ["disasm", "a =="]).exitCode == 2)
    #expect(tool.run(arguments: ["disasm", "--help"]).standardOutput.contains("bytecode"))
    let input = Array(#"{"id":1,"predicate":"ANY x > 2 AND $v == 1","vars":{"v":1},"object":{"x":[1,3]}}"#.utf8)
    for engine in ["vm", "interpreter"] {
        let result = tool.run(arguments: ["eval", "--jsonl", "--engine", engine], standardInput: input)
        #expect(result.standardOutput.contains(#""result":true"#), "\(engine)")
    }
    #expect(tool.run(arguments: ["eval", "--jsonl", "--engine", "jit"]).exitCode == 2)
}
