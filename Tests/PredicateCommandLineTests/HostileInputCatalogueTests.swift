import Foundation
import PredicateCommandLine
import Testing

/// Every subcommand against hostile rules, items, Info.plists and JSON (issue 18), one line per
/// input with the exact first line of its error: none may crash, hang or allocate without bound.
/// Step-heavy rules run with `--max-steps 100000` (where the subcommand has it) so that the debug
/// build stays quick; scripts/hostile-inputs runs the release tool at the default limits.
@Suite struct HostileInputCatalogueTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        var input: [UInt8] = []
        let exitCode: Int32
        /// The first line of standard error, or of standard output when nothing went to error.
        let message: String
        var testDescription: String { name }
    }

    static func repeated(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

    static let six =
        "SUBQUERY(a, $x1, SUBQUERY(a, $x2, SUBQUERY(a, $x3, SUBQUERY(a, $x4, SUBQUERY(a, $x5, "
        + "SUBQUERY(a, $x6, $x6 == 1).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0).@count > 0"
    static let four =
        "SUBQUERY(fileproviderItems, $x1, SUBQUERY(fileproviderItems, $x2, SUBQUERY(fileproviderItems, $x3, "
        + "SUBQUERY(fileproviderItems, $x4, $x4.filename == \"zz\").@count > 0).@count > 0).@count > 0).@count > 0"
    static let twenty = Array(#"{"a": [\#((0..<20).map(String.init).joined(separator: ","))]}"#.utf8)
    static let items300 = Array(("[" + (0..<300).map { #"{"filename":"f\#($0)"}"# }.joined(separator: ",") + "]").utf8)
    static let items100001 = Array(("[" + repeated("{},", 100_000) + "{}]").utf8)
    static let deepJSON = Array(repeated("[", 100_000).utf8)
    static let overLimit = [UInt8](repeating: 0x20, count: (32 << 20) + 1)
    static let laughs = Array(
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ENTITY a0 \"lol\">\n"
            + (1...9).map { "<!ENTITY a\($0) \"\(repeated("&a\($0 - 1);", 10))\">\n" }.joined()
            + "]><plist version=\"1.0\"><dict><key>NSExtension</key><string>&a9;</string></dict></plist>\n").utf8)
    static let deepPlist = Array(
        ("<?xml version=\"1.0\"?><plist version=\"1.0\">\n" + repeated("<array>", 100_000)).utf8)
    static let deepRule = repeated("(", 200) + "a == 1"
    static let longRule = "a == '" + repeated("x", 1 << 20) + "'"
    static let steps = "evaluation stopped after 100,000 steps, the limit; the rule does too much work for this input"
    static let stepsHint = "1:1: error: " + steps + " (raise it with --max-steps)"
    static let tooMany =
        "predicate: error: --items (standard input): more than 100000 items; a selection holds at most 100000"
    static let tooDeep = "1:129: error: rule is nested too deeply (the limit is 128 levels)"
    static let tooLong = "1:1: error: rule is 1048583 bytes long; the limit is 1048576"
    static let tooLarge = "the input is larger than 32 MiB, the limit for one document"
    static let entity =
        "line 12, column 60: not a valid XML property list: unknown entity '&a9;' (XML knows &amp; &lt; &gt; &quot; &apos;)"
    static let nested =
        "line 2, column 1793: not a valid XML property list: the property list nests deeper than 256 levels"
    static let jsonDepth = "invalid JSON: 1:513: nesting is deeper than 512 levels"
    static let plist = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/PluginSample/Extension/Info.plist").path

    static let cases: [Case] = [
        // explain
        .init(
            name: "explain: six nested SUBQUERYs",
            arguments: ["explain", six, "--object", "-", "--max-steps", "100000"],
            input: twenty, exitCode: 2, message: stepsHint),
        .init(
            name: "explain --json: six nested SUBQUERYs",
            arguments: ["explain", six, "--object", "-", "--max-steps", "100000", "--json"], input: twenty, exitCode: 2,
            message: stepsHint),
        .init(
            name: "explain --items: four nested SUBQUERYs over 300 items",
            arguments: ["explain", four, "--items", "-", "--max-steps", "100000"], input: items300, exitCode: 2,
            message: stepsHint),
        .init(
            name: "explain --items: 100,001 items", arguments: ["explain", "TRUEPREDICATE", "--items", "-"],
            input: items100001, exitCode: 2,
            message: tooMany),
        .init(
            name: "explain: JSON nested 100,000 deep", arguments: ["explain", "a == 1", "--object", "-"],
            input: deepJSON, exitCode: 2, message: "predicate: error: --object (standard input): " + jsonDepth),
        .init(
            name: "explain: 32 MiB and a byte", arguments: ["explain", "a == 1", "--object", "-"], input: overLimit,
            exitCode: 2, message: "predicate: error: " + tooLarge),
        .init(name: "explain: 200 parentheses", arguments: ["explain", deepRule], exitCode: 2, message: tooDeep),
        .init(name: "explain: a rule over 1 MiB", arguments: ["explain", longRule], exitCode: 2, message: tooLong),
        // eval
        .init(
            name: "eval: JSON nested 100,000 deep", arguments: ["eval", "a == 1", "--object", "-"], input: deepJSON,
            exitCode: 2, message: "predicate: error: --object (standard input): " + jsonDepth),
        .init(
            name: "eval: 32 MiB and a byte", arguments: ["eval", "a == 1", "--object", "-"], input: overLimit,
            exitCode: 2, message: "predicate: error: " + tooLarge),
        .init(name: "eval: 200 parentheses", arguments: ["eval", deepRule], exitCode: 2, message: tooDeep),
        .init(name: "eval: a rule over 1 MiB", arguments: ["eval", longRule], exitCode: 2, message: tooLong),
        .init(
            name: "eval: six nested SUBQUERYs", arguments: ["eval", six, "--object", "-", "--max-steps", "100000"],
            input: twenty, exitCode: 2, message: stepsHint),
        .init(
            name: "eval --engine interpreter: six nested SUBQUERYs",
            arguments: ["eval", six, "--object", "-", "--max-steps", "100000", "--engine", "interpreter"],
            input: twenty, exitCode: 2, message: stepsHint),
        .init(
            name: "eval --jsonl: six nested SUBQUERYs", arguments: ["eval", "--jsonl", "--max-steps", "100000"],
            input: Array(#"{"predicate": "\#(six)", "object": \#(String(decoding: twenty, as: UTF8.self))}"#.utf8),
            exitCode: 0,
            message: #"{"id":null,"parsed":true,"format":"\#(six)","result":null,"error":"1:1: error: \#(steps)"}"#),
        .init(
            name: "eval: --max-steps 0", arguments: ["eval", "TRUEPREDICATE", "--max-steps", "0"], exitCode: 2,
            message: "predicate: error: --max-steps needs a positive integer, got '0'"),
        // filter
        .init(
            name: "filter: a line nested 100,000 deep", arguments: ["filter", "a == 1", "--items", "-"],
            input: deepJSON, exitCode: 2, message: "predicate: error: --items (standard input): line 1: " + jsonDepth),
        .init(
            name: "filter: six nested SUBQUERYs drop the line",
            arguments: ["filter", six, "--items", "-", "--count", "--max-steps", "100000"], input: twenty, exitCode: 1,
            message: "0"),
        .init(
            name: "filter: 200 parentheses", arguments: ["filter", deepRule, "--items", "-"], exitCode: 2,
            message: tooDeep),
        .init(
            name: "filter: a rule over 1 MiB", arguments: ["filter", longRule, "--items", "-"], exitCode: 2,
            message: tooLong),
        // check
        .init(
            name: "check: XML entity expansion", arguments: ["check", "-"], input: laughs, exitCode: 1,
            message:
                "<stdin>:12:60: error: not a valid XML property list: unknown entity '&a9;' (XML knows &amp; &lt; &gt; &quot; &apos;)"
        ),
        .init(
            name: "check: plist nested 100,000 deep", arguments: ["check", "-"], input: deepPlist, exitCode: 1,
            message:
                "<stdin>:2:1793: error: not a valid XML property list: the property list nests deeper than 256 levels"),
        .init(
            name: "check: 32 MiB and a byte", arguments: ["check", "-"], input: overLimit, exitCode: 2,
            message: "predicate: error: <stdin>: " + tooLarge),
        .init(name: "check: 200 parentheses", arguments: ["check", deepRule], exitCode: 1, message: tooDeep),
        .init(name: "check: a rule over 1 MiB", arguments: ["check", longRule], exitCode: 1, message: tooLong),
        // actions
        .init(
            name: "actions: XML entity expansion", arguments: ["actions", "-", "--items", "/dev/null"], input: laughs,
            exitCode: 2, message: "predicate: error: <stdin>: " + entity),
        .init(
            name: "actions: plist nested 100,000 deep", arguments: ["actions", "-", "--items", "/dev/null"],
            input: deepPlist, exitCode: 2, message: "predicate: error: <stdin>: " + nested),
        .init(
            name: "actions: 32 MiB and a byte", arguments: ["actions", "-", "--items", "/dev/null"], input: overLimit,
            exitCode: 2, message: "predicate: error: <stdin>: " + tooLarge),
        .init(
            name: "actions --items: 100,001 items", arguments: ["actions", plist, "--items", "-"], input: items100001,
            exitCode: 2,
            message: tooMany),
        // format and disasm
        .init(name: "format: 200 parentheses", arguments: ["format", deepRule], exitCode: 2, message: tooDeep),
        .init(name: "format: a rule over 1 MiB", arguments: ["format", longRule], exitCode: 2, message: tooLong),
        .init(name: "disasm: 200 parentheses", arguments: ["disasm", deepRule], exitCode: 2, message: tooDeep),
        .init(name: "disasm: a rule over 1 MiB", arguments: ["disasm", longRule], exitCode: 2, message: tooLong),
        // sql
        .init(name: "sql: 200 parentheses", arguments: ["sql", deepRule], exitCode: 2, message: tooDeep),
        .init(
            name: "sql: a rule over 1 MiB", arguments: ["sql", longRule, "--dialect", "postgres"], exitCode: 2,
            message: tooLong),
        .init(
            name: "sql --mapping: JSON nested 100,000 deep", arguments: ["sql", "a == 1", "--mapping", "-"],
            input: deepJSON, exitCode: 2, message: "predicate: error: --mapping (standard input): " + jsonDepth),
        .init(
            name: "sql --mapping: 32 MiB and a byte", arguments: ["sql", "a == 1", "--mapping", "-"], input: overLimit,
            exitCode: 2, message: "predicate: error: " + tooLarge),
        .init(
            name: "sql --mapping /dev/zero", arguments: ["sql", "a == 1", "--mapping", "/dev/zero"], exitCode: 2,
            message: "predicate: error: cannot read '/dev/zero': " + tooLarge),
        .init(
            name: "sql --mapping: a key not in it", arguments: ["sql", "(a == 1) OR b == 2", "--mapping", "-"],
            input: Array(#"{"table": "t", "columns": {"a": {"type": "integer"}}}"#.utf8), exitCode: 2,
            message: "1:13: error: the key 'b' has no column, JSON column or child table in the mapping of 't'"),
    ]

    @Test(arguments: cases) func hostileInputGetsItsOwnError(_ hostile: Case) {
        let tool = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
        let result = tool.run(arguments: hostile.arguments, standardInput: hostile.input)
        let text = result.standardError.isEmpty ? result.standardOutput : result.standardError
        let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        #expect(result.exitCode == hostile.exitCode)
        #expect(first == hostile.message)
    }

    /// The limits these inputs hit are documented where users look: the main help and that of
    /// every subcommand that reads a document or a selection.
    @Test(arguments: ["help", "eval", "explain", "actions", "check"])
    func helpStatesTheInputLimits(_ subcommand: String) {
        let arguments = subcommand == "help" ? ["help"] : [subcommand, "--help"]
        let help = CommandLineTool().run(arguments: arguments).standardOutput
        #expect(help.contains("is at most 32 MiB;"), "\(subcommand)")
        #expect(help.contains("holds at most\n  100,000 items."), "\(subcommand)")
    }
}
