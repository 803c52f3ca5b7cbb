import Foundation
import PredicateCommandLine
import Testing

/// The repository's `Examples/FileProvider` directory, with a trailing slash.
private let examples =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples/FileProvider").path + "/"

private func run(_ arguments: [String], input: String = "") -> CommandLineResult {
    CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
        .run(arguments: arguments, standardInput: Array(input.utf8))
}

@Test func checkSampleInfoPlistFlagsTheTypoWithItsSuggestion() {
    let result = run(["check", examples + "Info.plist"])
    #expect(result.exitCode == 1)
    #expect(result.standardError == "")
    let typoRule = "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploadded == YES).@count > 0"
    let fixedRule = "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.uploaded == YES).@count > 0"
    let expected = """
        com.example.action.share (Share Link):
          \(examples)Info.plist:19:78: error: FileProviderItem has no key 'uploadded': reading it fails, so the rule is false; \
        did you mean 'uploaded' (or 'isUploaded')?
          \(typoRule)
          \(String(repeating: " ", count: 65))^~~~~~~~~
          fix-it: replace 'uploadded' with 'uploaded': \(fixedRule)
        com.example.action.publish (Publish): no findings
        com.example.action.unlock (Unlock): no findings
        com.example.action.rename (Rename…): no findings
        com.example.action.compress (Compress Folders): no findings
        com.example.action.preview (Preview Text): no findings
        6 actions: 1 error, 0 warnings

        """
    #expect(result.standardOutput == expected)
}

@Test func checkExtensionInfoPlistChecksUserInteractionsInTheirContext() {
    let result = run(["check", examples + "Extension-Info.plist"])
    #expect(result.exitCode == 1)
    let expected = """
        com.example.action.pin (Keep Downloaded): no findings
        interaction 1: no findings
        interaction 1.1 (Share this item?):
          \(examples)Extension-Info.plist:34:61: error: FileProviderItem has no key 'isShard': reading it fails, so the rule is false; did you mean \
        'isShared' (or 'shared')?
          sourceItem.isShared == NO AND destinationItem.isShard == YES
                                                        ^~~~~~~
          fix-it: replace 'isShard' with 'isShared': sourceItem.isShared == NO AND destinationItem.isShared == YES
        interaction 2 (Move many items to the trash?): no findings
        1 action, 3 interactions: 1 error, 0 warnings

        """
    #expect(result.standardOutput == expected)
}

@Test func checkInfoPlistAsJSON() throws {
    let result = run(["check", "--json", examples + "Info.plist"])
    #expect(result.exitCode == 1)
    let document = try #require(
        try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let actions = try #require(document["actions"] as? [[String: Any]])
    #expect(actions.count == 6)
    let findings = try #require(actions.first?["findings"] as? [[String: Any]])
    #expect(findings.count == 1)
    #expect(findings.first?["text"] as? String == "uploadded")
    #expect(findings.first?["line"] as? Int == 19)
    #expect(findings.first?["column"] as? Int == 78)
    #expect(findings.first?["ruleColumn"] as? Int == 66)
    #expect(document["errors"] as? Int == 1)
    #expect((findings.first?["fixIt"] as? [String: Any])?["replacement"] as? String == "uploaded")
    #expect(actions.dropFirst().allSatisfy { ($0["findings"] as? [Any])?.isEmpty == true })
}

/// `check <rule>`: exit code and output for rules with and without findings.
private let checkRuleCases: [(rule: String, code: Int32, output: String)] = [
    ("fileproviderItems.@count == 1", 0, "no findings\n"),
    (
        "fileProviderItems.@count == 1", 0,
        """
        1:1: warning: 'fileProviderItems' is not a key of the context, so it reads as nil; did you mean \
        'fileproviderItems'?
        fileProviderItems.@count == 1
        ^~~~~~~~~~~~~~~~~
        fix-it: replace 'fileProviderItems' with 'fileproviderItems': fileproviderItems.@count == 1
        0 errors, 1 warning

        """
    ),
    (
        "fileproviderItems.@count ==", 1,
        """
        1:28: error: expected an expression, found end of input
        fileproviderItems.@count ==
                                   ^
        1 error, 0 warnings

        """
    ),
]

@Test(arguments: checkRuleCases)
func checkRule(_ rule: String, _ code: Int32, _ expectedOutput: String) {
    let result = run(["check", rule])
    #expect(result.exitCode == code)
    #expect(result.standardOutput == expectedOutput)
}

@Test func checkRuleInTheUserInteractionContext() {
    let rule = "action == 'Move' AND sourceItem.isShared == NO AND destinationItem.isShared == YES"
    #expect(run(["check", "--context", "interaction", rule]).exitCode == 0)
    #expect(run(["check", rule]).exitCode == 0)
    #expect(run(["check", "--fail-on", "warning", rule]).exitCode == 1)
    let typo = run(["check", "--context=interaction", "sourceItem.isShard == NO"])
    #expect(typo.exitCode == 1)
    #expect(typo.standardOutput.contains("did you mean 'isShared'"))
}

@Test func checkRuleAsJSON() {
    let result = run(["check", "--json", "--fail-on=warning", "1 == 2"])
    #expect(result.exitCode == 1)
    #expect(
        result.standardOutput
            == #"{"rule":"1 == 2","findings":[{"severity":"warning","line":1,"column":1,"#
            + #""message":"this comparison of two constants is always false","ruleLine":1,"ruleColumn":1,"#
            + #""start":0,"end":6,"text":"1 == 2","#
            + #""fixIt":{"start":0,"end":6,"replacement":"FALSEPREDICATE","fixedRule":"FALSEPREDICATE"}}]}"#
            + "\n")
}

@Test func actionsForTextSelection() {
    let result = run(["actions", examples + "Info.plist", "--items", examples + "selection-text.json"])
    #expect(result.exitCode == 0)
    #expect(
        result.standardOutput == """
            hidden  com.example.action.share (Share Link): error: FileProviderItem has no key 'uploadded'; did you \
            mean 'uploaded'?
            shown   com.example.action.publish (Publish)
            shown   com.example.action.unlock (Unlock)
            shown   com.example.action.rename (Rename…)
            hidden  com.example.action.compress (Compress Folders): the rule is false
            shown   com.example.action.preview (Preview Text)
            4 of 6 actions shown

            """)
    // Each problem is written once, on standard output.
    #expect(result.standardError == "")
}

/// `--explain`: the deciding clause of each false rule with the values it read, and the caret
/// under each error; false and error in different colours.
@Test func actionsExplainWhyEachIsHidden() {
    let result = run([
        "actions", examples + "Info.plist", "--items", examples + "selection-folders.json", "--explain",
    ])
    #expect(result.exitCode == 0)
    let expected = """
        hidden  com.example.action.rename (Rename…): the rule is false
                false: fileproviderItems.@count == 1
                  fileproviderItems.@count = 2
        """
    #expect(result.standardOutput.contains(expected), "\(result.standardOutput)")
    #expect(
        result.standardOutput.contains(
            """
                    false: ANY fileproviderItems.filename ENDSWITH[c] ".txt"
                      fileproviderItems.filename = ["Photos","Music"]
            """))
    #expect(result.standardOutput.contains("        ^~~~~~~~~~~~~~~~~~~~~~~~~~~"))
    let colored = CommandLineTool(evaluator: virtualMachineEvaluator, colorOutput: true).run(arguments: [
        "actions", examples + "Info.plist", "--items", examples + "selection-folders.json",
    ])
    #expect(colored.standardOutput.contains("\u{1B}[33mhidden\u{1B}[0m  com.example.action.rename"))
    #expect(colored.standardOutput.contains("\u{1B}[31mhidden\u{1B}[0m  com.example.action.share"))
}

@Test func actionsExplainAsJSON() {
    let result = run([
        "actions", examples + "Info.plist", "--items", examples + "selection-folders.json", "--explain", "--json",
    ])
    #expect(
        result.standardOutput.contains(
            #"{"identifier":"com.example.action.rename","name":"Rename…","enabled":false,"error":null,"#
                + #""false":{"clause":"fileproviderItems.@count == 1","values":["fileproviderItems.@count = 2"]}}"#))
    #expect(result.standardOutput.contains(#""name":"Compress Folders","enabled":true,"error":null}"#))
}

/// `--expect`: an array of identifiers, or a saved `--json` run; exit 1 on a difference.
private let expectationCases: [(expectation: String, code: Int32, lastLines: [String])] = [
    (#"["com.example.action.compress"]"#, 0, ["1 of 6 actions shown", "as expected"]),
    (
        #"["com.example.action.compress", "com.example.action.share"]"#, 1,
        ["unexpected: 'com.example.action.share' is expected to be shown, and is hidden", "1 different from --expect"]
    ),
    (
        #"{"enabled": []}"#, 1,
        ["unexpected: 'com.example.action.compress' is shown, and is not expected to be", "1 different from --expect"]
    ),
    (#"{"enabled":["com.example.action.compress"],"actions":[]}"#, 0, ["as expected"]),
]

@Test(arguments: expectationCases)
func actionsExpect(_ expectation: String, _ code: Int32, _ lastLines: [String]) {
    let result = run(
        ["actions", examples + "Info.plist", "--items", examples + "selection-folders.json", "--expect", "-"],
        input: expectation)
    #expect(result.exitCode == code)
    #expect(result.standardOutput.split(separator: "\n").suffix(lastLines.count).map(String.init) == lastLines)
}

@Test func actionsExpectInteractionsFromASavedRun() {
    let arguments = ["actions", examples + "Extension-Info.plist", "--interaction", examples + "operation-move.json"]
    let saved = run(arguments + ["--json"])
    #expect(saved.standardOutput.contains(#""position":"1","title":null,"evaluated":true,"matched":true"#))
    #expect(run(arguments + ["--expect", "-"], input: saved.standardOutput).exitCode == 0)
    let other = run(arguments + ["--expect", "-"], input: #"{"matched": ["2"]}"#)
    #expect(other.exitCode == 1)
    #expect(other.standardOutput.contains("unexpected: interaction 1 matches, and is not expected to\n"))
    #expect(other.standardOutput.contains("unexpected: interaction 2 is expected to match, and does not\n"))
}

/// `--json` writes a document for input errors too.
@Test func actionsReportInputErrorsAsJSON() {
    let result = run(["actions", examples + "Info.plist", "--items", "/nonexistent.json", "--json"])
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == #"{"error":"cannot read '/nonexistent.json': No such file or directory"}"# + "\n")
    let plist = run(["actions", examples + "selection-text.json", "--items", "-", "--json"], input: "[]")
    #expect(plist.exitCode == 2)
    #expect(plist.standardOutput.hasPrefix(#"{"error":""#))
    for subcommand in ["eval", "explain"] {
        let bad = run([subcommand, "a == 1", "--object", "-", "--json"], input: "{")
        #expect(bad.exitCode == 2)
        #expect(bad.standardOutput.hasPrefix(#"{"error":"--object (standard input): invalid JSON: "#), "\(subcommand)")
    }
}

/// The Info.plist may come from standard input; `--context` does not change how a plist's rules
/// are checked.
@Test func actionsAndCheckReadThePlistFromStandardInput() throws {
    let plist = try String(contentsOfFile: examples + "Info.plist", encoding: .utf8)
    let actions = run(["actions", "-", "--items", examples + "selection-folders.json"], input: plist)
    #expect(actions.exitCode == 0)
    #expect(actions.standardOutput.hasSuffix("1 of 6 actions shown\n"))
    let check = run(["check", "-", "--context", "interaction"], input: plist)
    #expect(check.standardOutput.hasSuffix("6 actions: 1 error, 0 warnings\n"))
    #expect(check.standardOutput.contains("<stdin>:19:78: error: FileProviderItem has no key 'uploadded'"))
}

/// An incomplete action (no name here) does not stop `actions`: the others are evaluated, and
/// the problem is a warning at its line.
@Test func actionsKeepGoingPastAnIncompleteAction() {
    let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key><array>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>a</string>
        <key>NSExtensionFileProviderActionActivationRule</key><string>TRUEPREDICATE</string></dict>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>b</string>
        <key>NSExtensionFileProviderActionName</key><string>B</string>
        <key>NSExtensionFileProviderActionActivationRule</key><string>FALSEPREDICATE</string></dict>
        </array></dict></dict></plist>
        """
    let result = run(["actions", "-", "--items", examples + "selection-empty.json"], input: plist)
    #expect(result.exitCode == 0)
    #expect(result.standardOutput.hasPrefix("shown   a ()\nhidden  b (B): the rule is false\n"))
    #expect(
        result.standardError
            == "predicate: warning: <stdin>:3:1: action 'a' has no NSExtensionFileProviderActionName, so its menu "
            + "item has no title\n")
}

/// `--max-steps`: the step limit of every rule, named in the limit's message.
@Test func actionsMaxSteps() {
    let arguments = ["actions", examples + "Info.plist", "--items", examples + "selection-text.json"]
    let limited = run(arguments + ["--max-steps", "3"])
    #expect(limited.exitCode == 1)
    #expect(
        limited.standardOutput.contains(
            "error: evaluation stopped after 3 steps, the limit; the rule does too much work for this input "
                + "(raise it with --max-steps)"))
    #expect(run(arguments + ["--max-steps", "100000000"]).standardOutput.hasSuffix("4 of 6 actions shown\n"))
    #expect(run(arguments + ["--max-steps", "0"]).standardError.contains("--max-steps needs a positive integer"))
}

@Test func actionsForFolderSelectionAsJSON() {
    let result = run(["actions", examples + "Info.plist", "--items", examples + "selection-folders.json", "--json"])
    #expect(result.exitCode == 0)
    #expect(result.standardOutput.hasPrefix(#"{"enabled":["com.example.action.compress"],"actions":["#))
}

@Test func actionsReadsItemsFromStandardInput() {
    let items = #"[{"filename": "a.txt", "isUploaded": false}, {"filename": "b.txt"}]"#
    let result = run(["actions", examples + "Info.plist", "--items", "-", "--json"], input: items)
    #expect(result.exitCode == 0)
    #expect(result.standardOutput.hasPrefix(#"{"enabled":["com.example.action.publish","com.example.action.preview"]"#))
}

@Test func actionsWithNoneShownExitsOne() {
    let items = """
        [{"filename": "x", "isUploaded": false, "contentType": "public.data"},
         {"filename": "y", "isUploaded": false, "contentType": "public.data"}]
        """
    let result = run(["actions", examples + "Info.plist", "--items", "-"], input: items)
    #expect(result.exitCode == 1)
    #expect(result.standardOutput.hasSuffix("0 of 6 actions shown\n"))
}

/// Usage and input errors: exit code 2 and part of the message on standard error.
private let errorCases: [(arguments: [String], input: String, message: String)] = [
    (["check"], "", "missing rule or Info.plist"),
    (["check", "a", "b"], "", "expected one rule or Info.plist files, got 2 operands (quote the rule)"),
    (["check", "--format", "html", "a"], "", "unknown --format 'html' (use text, json, github, sarif, xcode)"),
    (["check", "--fail-on", "info", "a"], "", "unknown --fail-on 'info' (use error, warning, never)"),
    (["check", "--json", "--format", "xcode", "a"], "", "--json and --format xcode disagree"),
    (["check", "-", "-"], "", "standard input ('-') can be read only once"),
    (["--version", "x"], "", "unexpected 'x'"),
    (["check", "--bogus", "a"], "", "unknown option '--bogus'"),
    (["check", "--context", "share", "a"], "", "unknown context 'share'"),
    (["check", "/nonexistent/Info.plist"], "", "cannot read"),
    (["actions", examples + "Info.plist"], "", "missing --items"),
    (["actions", "--items", "-"], "[]", "missing Info.plist"),
    (["actions", examples + "Info.plist", "--items", "-"], "{}", "must be a JSON array"),
    (["actions", examples + "Info.plist", "--items", "-"], "[1]", "item 1 is not a JSON object"),
    (["actions", examples + "Info.plist", "--items", "-"], #"[{"uploadded": true}]"#, "item 1: uploadded"),
    (["actions", examples + "selection-text.json", "--items", "-"], "[]", "not a property list"),
]

@Test(arguments: errorCases)
func usageAndInputErrorsExitTwo(_ arguments: [String], _ input: String, _ message: String) {
    let result = run(arguments, input: input)
    #expect(result.exitCode == 2)
    #expect(result.standardError.contains(message), "\(result.standardError)")
}

@Test(arguments: ["check", "actions"])
func subcommandHelp(_ name: String) {
    for arguments in [[name, "--help"], [name, "-h"], ["help", name]] {
        let result = run(arguments)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.hasPrefix("predicate \(name) - "))
        #expect(result.standardOutput.contains("EXIT CODES"))
    }
    #expect(run(["--help"]).standardOutput.contains("\(name) "))
}

/// `actions` on each sample selection: the identifiers shown, in declared order.
private let sampleSelections: [(file: String, shown: [String])] = [
    (
        "selection-text.json",
        [
            "com.example.action.publish", "com.example.action.unlock", "com.example.action.rename",
            "com.example.action.preview",
        ]
    ),
    ("selection-folders.json", ["com.example.action.compress"]),
    // "All selected items are folders" holds vacuously for an empty selection.
    ("selection-empty.json", ["com.example.action.compress"]),
]

@Test(arguments: sampleSelections)
func actionsOnSampleSelections(_ file: String, _ shown: [String]) {
    let result = run(["actions", examples + "Info.plist", "--items", examples + file])
    #expect(result.exitCode == (shown.isEmpty ? 1 : 0))
    let lines = result.standardOutput.split(separator: "\n")
    let listed = lines.filter { $0.hasPrefix("shown ") }.compactMap { $0.split(separator: " ").dropFirst().first }
    #expect(listed.map(String.init) == shown)
    #expect(lines.last.map(String.init) == "\(shown.count) of 6 actions shown")
}

@Test func checkReportsAnActionWithoutARule() throws {
    let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict>
        <key>NSExtensionFileProviderActions</key><array>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>a</string>
        <key>NSExtensionFileProviderActionName</key><string>A</string></dict>
        <dict><key>NSExtensionFileProviderActionIdentifier</key><string>b</string>
        <key>NSExtensionFileProviderActionName</key><string>B</string>
        <key>NSExtensionFileProviderActionActivationRule</key><string>TRUEPREDICATE</string></dict>
        </array></dict></dict></dict></plist>
        """
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString).plist").path
    try Data(plist.utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = run(["check", path])
    #expect(result.exitCode == 1)
    #expect(
        result.standardOutput == """
            a (A):
              \(path):4:1: error: no NSExtensionFileProviderActionActivationRule, so the action is never shown
            b (B): no findings
            2 actions: 1 error, 0 warnings

            """)
    let shown = run(["actions", path, "--items", "-", "--json"], input: "[]")
    #expect(shown.exitCode == 0)
    #expect(shown.standardOutput.hasPrefix(#"{"enabled":["b"],"#))
}
