import Foundation
import PredicateCommandLine
import Testing

private func run(_ arguments: [String], input: String = "", color: Bool = false) -> CommandLineResult {
    CommandLineTool(
        evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator, colorDiagnostics: color,
        colorOutput: color
    )
    .run(arguments: arguments, standardInput: Array(input.utf8))
}

private let lines = (0..<10).map { #"{"n": \#($0), "name": "item \#($0)"}"# }

@Test(arguments: ["1", "3", "4096"])
func filterGivesTheSameLinesWhateverTheChunkSize(chunkSize: String) {
    let result = run(
        ["filter", "n >= 3 AND n < 8", "--items", "-", "--chunk-size", chunkSize],
        input: lines.joined(separator: "\n") + "\n")
    #expect(result.exitCode == 0)
    #expect(result.standardOutput == lines[3..<8].map { $0 + "\n" }.joined())
}

@Test(arguments: [
    (["filter", "n > 100", "--items", "-"], 1, ""),
    (["filter", "n > 1", "--items", "-", "--count"], 0, "8\n"),
    (["filter", "n >", "--items", "-"], 2, ""),
    (["filter", "n > 1"], 2, ""),
    (["filter", "n > 1", "--items", "-", "--chunk-size", "0"], 2, ""),
])
func filterExitCodes(arguments: [String], code: Int32, output: String) {
    let result = run(arguments, input: lines.joined(separator: "\n"))
    #expect(result.exitCode == code)
    #expect(result.standardOutput == output)
}

@Test func filterStopsAtABadLineWithItsNumber() {
    let input = lines[0..<4].joined(separator: "\n") + "\n\n{oops\n" + lines[5]
    let result = run(["filter", "n >= 0", "--items", "-", "--chunk-size", "2"], input: input)
    #expect(result.exitCode == 2)
    #expect(result.standardError.contains("line 6: invalid JSON"), "\(result.standardError)")
    // The lines before the bad one were read, checked and answered.
    #expect(result.standardOutput == lines[0..<4].map { $0 + "\n" }.joined())
}

@Test func explainAsJSONHasTheTreeWithSkippedOperands() {
    let result = run(["explain", "a == 1 AND b == 2", "--object", "-", "--json"], input: #"{"a": 2}"#)
    #expect(result.exitCode == 1)
    let expected =
        #"{"rule":"a == 1 AND b == 2","result":false,"error":null,"tree":{"kind":"AND","text":"a == 1 AND b == 2","#
        + #""start":0,"end":17,"outcome":"false","children":[{"kind":"comparison","text":"a == 1","start":0,"end":6,"#
        + #""outcome":"false","children":[{"kind":"key path","text":"a","start":0,"end":1,"outcome":"value","value":2,"#
        + #""children":[]}]},{"kind":"comparison","text":"b == 2","start":11,"end":17,"outcome":"skipped","children":[]}]}}"#
        + "\n"
    #expect(result.standardOutput == expected)
}

@Test func explainReportsAnEvaluationErrorWithACaret() {
    let result = run(["explain", "a < 1", "--object", "-"], input: #"{"a": "x"}"#)
    #expect(result.exitCode == 2)
    #expect(result.standardOutput.hasPrefix("error  a < 1: cannot order"))
    #expect(result.standardError.contains("a < 1\n^~~~~"))
}

@Test func evalAsJSON() {
    #expect(
        run(["eval", "a == 1", "--object", "-", "--json"], input: #"{"a": 1}"#).standardOutput
            == #"{"result":true,"error":null}"# + "\n")
    let failed = run(["eval", "a < 1", "--object", "-", "--json"], input: #"{"a": "x"}"#)
    #expect(failed.exitCode == 2)
    #expect(failed.standardOutput.hasPrefix(#"{"result":null,"error":"cannot order"#))
}

@Test func colourOnlyWhenAskedFor() {
    let plain = run(["explain", "a == 1", "--object", "-"], input: #"{"a": 1}"#)
    #expect(!plain.standardOutput.contains("\u{1B}["))
    let colored = run(["explain", "a == 1", "--object", "-"], input: #"{"a": 1}"#, color: true)
    #expect(colored.standardOutput.contains("\u{1B}[32mtrue \u{1B}[0m"))
}

@Test(arguments: ["format", "eval", "disasm", "check", "actions", "filter", "explain"])
func everySubcommandDocumentsItsExitCodes(subcommand: String) {
    let result = run([subcommand, "--help"])
    #expect(result.exitCode == 0)
    let text = result.standardOutput + run(["--help"]).standardOutput
    #expect(text.contains("EXIT CODES") || text.contains("Exit code"), "\(subcommand)")
}

/// The real executable, when the build produced it next to the tests: piped output has no colour.
@Test func builtToolWritesNoColourWhenPiped() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let tool = builtTool(root: root)
    try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build the tool first: swift build")
    let process = Process()
    process.executableURL = tool
    process.arguments = ["check", root.appendingPathComponent("Examples/FileProvider/Info.plist").path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = Pipe()
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    #expect(process.terminationStatus == 1)
    #expect(text.contains("did you mean 'uploaded'"))
    #expect(!text.contains("\u{1B}["))
}

/// Six nested SUBQUERYs over 20 elements do too much work: `explain` stops with the same
/// `limitExceeded` error as `eval` (message and caret on standard error, exit code 2) instead of
/// recording the 20⁶ evaluations it used to, and its tree ends in that error.
@Test func explainStopsAtTheStepLimitLikeEval() {
    let rule =
        "SUBQUERY(a, $x1, SUBQUERY(a, $x2, SUBQUERY(a, $x3, SUBQUERY(a, $x4, SUBQUERY(a, $x5, "
        + "SUBQUERY(a, $x6, $x6 == 1).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0"
    let object = #"{"a": [\#((0..<20).map(String.init).joined(separator: ", "))]}"#
    let evaluated = run(["eval", rule, "--object", "-"], input: object)
    let explained = run(["explain", rule, "--object", "-"], input: object)
    #expect(evaluated.exitCode == 2)
    #expect(evaluated.standardError.contains("error: evaluation stopped after 10,000,000 steps, the limit"))
    #expect(explained.exitCode == evaluated.exitCode)
    // The same error, and both name the option that raises the limit.
    #expect(explained.standardError == evaluated.standardError)
    #expect(explained.standardError.contains("(raise it with --max-steps)"))
    let limited = run(["explain", rule, "--object", "-", "--max-steps", "5"], input: object)
    #expect(limited.standardError.contains("error: evaluation stopped after 5 steps, the limit"))
    #expect(explained.standardOutput.hasPrefix("error  " + rule + ": evaluation stopped after 10,000,000 steps"))
    #expect(explained.standardOutput.contains("more not shown"))
    let json = run(["explain", rule, "--object", "-", "--json"], input: object)
    #expect(json.exitCode == 2)
    #expect(
        json.standardOutput.hasPrefix(
            #"{"rule":"\#(rule)","result":null,"error":"evaluation stopped after 10,000,000 steps, the limit; "#))
}

@Test func explainCountsTheSubqueryElementsItLeavesOut() {
    let object = #"{"xs": [\#((0..<25).map(String.init).joined(separator: ", "))]}"#
    let result = run(["explain", "SUBQUERY(xs, $x, $x > 30).@count > 0", "--object", "-"], input: object)
    #expect(result.exitCode == 1)
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.last == "      └─ … 5 more not shown")
    #expect(lines.filter { $0.contains("element ") }.count == 20)
    let json = run(["explain", "SUBQUERY(xs, $x, $x > 30).@count > 0", "--object", "-", "--json"], input: object)
    #expect(json.standardOutput.contains(#""omitted":5}"#))
}

/// Past the first 20 elements, the one that fails is still shown, with its error.
@Test func explainShowsAFailingElementPastTheFirst20() {
    let elements = (0..<30).map { $0 == 25 ? "25" : #"{"name": "b"}"# }
    let object = #"{"xs": [\#(elements.joined(separator: ", "))]}"#
    let result = run(["explain", "SUBQUERY(xs, $x, $x.name == 'a').@count > 0", "--object", "-"], input: object)
    #expect(result.exitCode == 2)
    let tail = result.standardOutput.split(separator: "\n").suffix(4).joined(separator: "\n")
    #expect(
        tail == """
                  ├─ error  element 25
                  │  └─ error  $x.name: the number 25 has no key 'name'
                  │     └─ … 1 more not shown
                  └─ … 5 more not shown
            """)
}

private let hostileLine = #"{"name": "\#(String(repeating: "a", count: 40))!"}"#

/// A rule that fails on a line drops it, even under `NOT`, as in `eval` (the batch engine used to
/// answer `false` where the VM stopped with `limitExceeded`); without the back-reference the
/// automaton answers.
@Test(arguments: [
    (#"NOT (name MATCHES '(a+)+\\1?$')"#, ""),
    (#"name MATCHES '(a+)+\\1?$' OR name BEGINSWITH 'a'"#, ""),
    ("NOT (name MATCHES '(a+)+$')", hostileLine + "\n"),
])
func filterDropsLinesWhoseRuleFails(rule: String, output: String) {
    let result = run(["filter", rule, "--items", "-"], input: hostileLine + "\n")
    #expect(result.standardOutput == output)
}
