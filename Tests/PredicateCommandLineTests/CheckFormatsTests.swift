import Foundation
import PredicateCommandLine
import Testing

/// `predicate check`'s formats, exit codes and inputs: what CI systems, Xcode and scripts read.
@Suite struct CheckFormatsTests {
    static let directory =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/FileProvider").path + "/"

    static func run(_ arguments: [String], input: [UInt8] = []) -> CommandLineResult {
        let result = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
            .run(arguments: arguments, standardInput: input)
        return CommandLineResult(
            exitCode: result.exitCode,
            standardOutput: result.standardOutput.replacingOccurrences(of: directory, with: ""),
            standardError: result.standardError.replacingOccurrences(of: directory, with: ""))
    }

    static let typo =
        "Info.plist:19:78: error: FileProviderItem has no key 'uploadded': reading it fails, so the rule is false; "
        + "did you mean 'uploaded' (or 'isUploaded')?"

    /// Arguments (example files relative to the examples directory), exit code, and the lines of
    /// standard output that must appear, in order.
    static let cases: [(arguments: [String], code: Int32, lines: [String])] = [
        (
            ["check", "Info.plist", "--format", "xcode"], 1,
            [typo, "Info.plist:19:78: note: fix-it: replace 'uploadded'"]
        ),
        (["check", "Info.plist", "--format=xcode", "--fail-on", "never"], 0, [typo]),
        (["check", "Info.plist", "--fail-on=warning"], 1, ["6 actions: 1 error, 0 warnings"]),
        (
            ["check", "Info.plist", "--format", "github"], 1,
            [
                "::error file=Info.plist,line=19,col=78,title=action 'com.example.action.share'::FileProviderItem has "
                    + "no key 'uploadded'"
            ]
        ),
        (
            ["check", "--format", "github", "fileProviderItems.@count == 1"], 0,
            ["::warning file=<rule>,line=1,col=1::'fileProviderItems' is not a key of the context"]
        ),
        (["check", "--format", "xcode", "fileproviderItems.count == 1"], 1, ["<rule>:1:19: error: '.count' reads"]),
        (
            ["check", "Info.plist", "Extension-Info.plist"], 1,
            [
                "Info.plist: 6 actions: 1 error, 0 warnings",
                "Extension-Info.plist: 1 action, 3 interactions: 1 error, 0 warnings", "2 files: 2 errors, 0 warnings",
            ]
        ),
        (
            ["check", "."], 1,
            [
                "./Broken-Info.plist: 2 actions, 1 interaction: 5 errors, 1 warning",
                "./Extension-Info.plist: 1 action, 3 interactions: 1 error, 0 warnings",
                "./Info.plist: 6 actions: 1 error, 0 warnings", "3 files: 7 errors, 1 warning",
            ]
        ),
        (
            ["check", "--json", "Info.plist", "/nonexistent/Info.plist"], 2,
            [
                #"{"file":"Info.plist","actions":[{"identifier":"com.example.action.share""#,
                #"{"file":"/nonexistent/Info.plist","error":"cannot read '/nonexistent/Info.plist': No such file"#,
            ]
        ),
        (
            ["check", "--format", "xcode", "/nonexistent/Info.plist"], 2,
            ["/nonexistent/Info.plist: error: cannot read"]
        ),
        (["--version"], 0, ["predicate \(CommandLineTool.version)"]),
    ]

    @Test(arguments: cases)
    func formatsAndExitCodes(_ arguments: [String], _ code: Int32, _ lines: [String]) {
        let files: Set = ["Info.plist", "Extension-Info.plist", "Broken-Info.plist", "."]
        let result = Self.run(arguments.map { files.contains($0) ? Self.directory + $0 : $0 })
        #expect(result.exitCode == code, "\(result.standardOutput)\(result.standardError)")
        var remaining = result.standardOutput.split(separator: "\n").map(String.init)[...]
        for line in lines {
            guard let index = remaining.firstIndex(where: { $0.hasPrefix(line) }) else {
                Issue.record("missing line \(line) in:\n\(result.standardOutput)")
                return
            }
            remaining = remaining[(index + 1)...]
        }
    }

    /// A directory with nothing to check passes, with a warning: a CI path may be wrong.
    @Test func directoryWithoutInfoPlists() {
        let result = Self.run(["check", Self.directory + "../PluginSample/Sources"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "0 files: no findings\n")
        #expect(result.standardError.contains("warning: no *Info.plist declaring File Provider rules under"))
    }

    /// Symbolic links to directories are not followed: two links to the scanned directory itself
    /// would otherwise make the scan exponential.
    @Test func directoryScanDoesNotFollowDirectoryLinks() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.copyItem(
            atPath: Self.directory + "Info.plist", toPath: root.appendingPathComponent("Info.plist").path)
        for name in ["a", "b"] {
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent(name).path, withDestinationPath: root.path)
        }
        let result = Self.run(["check", root.path, "--format", "xcode"])
        #expect(result.exitCode == 1)
        #expect(result.standardOutput.split(separator: "\n").count == 2, "\(result.standardOutput)")
    }

    /// `-` reads the Info.plist from standard input and names it `<stdin>`.
    @Test func standardInput() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.directory + "Info.plist")))
        let result = Self.run(["check", "-", "--format", "xcode"], input: bytes)
        #expect(result.exitCode == 1)
        #expect(result.standardOutput.hasPrefix(Self.typo.replacingOccurrences(of: "Info.plist", with: "<stdin>")))
    }

    /// SARIF: one run, a result per finding with its region, the tool's name and version.
    @Test func sarifLog() throws {
        let result = Self.run(["check", Self.directory + "Broken-Info.plist", "--format", "sarif"])
        #expect(result.exitCode == 1)
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = (run["tool"] as? [String: Any])?["driver"] as? [String: Any]
        #expect(driver?["name"] as? String == "predicate")
        #expect(driver?["version"] as? String == CommandLineTool.version)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.map { $0["level"] as? String } == ["error", "error", "error", "error", "warning", "error"])
        let location = (results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
        let region = location?["region"] as? [String: Any]
        #expect(region?["startLine"] as? Int == 16)
        #expect(region?["startColumn"] as? Int == 5)
        #expect((location?["artifactLocation"] as? [String: Any])?["uri"] as? String == "Broken-Info.plist")
    }

    /// SARIF locations are URI references: a path with spaces or other bytes is percent-encoded.
    @Test func sarifURIsArePercentEncoded() throws {
        let plist = try Data(contentsOf: URL(fileURLWithPath: Self.directory + "Info.plist"))
        let result = Self.run(["check", "-", "--format", "sarif"], input: Array(plist))
        #expect(result.standardOutput.contains(#""artifactLocation":{"uri":"%3Cstdin%3E"}"#))
    }

    /// GitHub's workflow commands end at a line break: messages and properties are escaped.
    @Test(arguments: [("a%b\nc", "a%25b%0Ac", "a%25b%0Ac"), ("x:y,z", "x:y,z", "x%3Ay%2Cz")])
    func githubEscaping(_ text: String, _ data: String, _ property: String) throws {
        let plist = """
            <?xml version="1.0"?><plist><dict><key>NSExtension</key><dict><key>NSExtensionFileProviderActions</key>\
            <array><dict><key>NSExtensionFileProviderActionIdentifier</key><string>\(text)</string>\
            <key>NSExtensionFileProviderActionActivationRule</key><string>TRUEPREDICATE</string>\
            </dict></array></dict></dict></plist>
            """
        let result = Self.run(["check", "-", "--format", "github"], input: Array(plist.utf8))
        let line = try #require(result.standardOutput.split(separator: "\n").first.map(String.init))
        #expect(line.contains("title=action '\(property)'"), "\(line)")
        #expect(
            line.hasSuffix("::action '\(data)' has no NSExtensionFileProviderActionName, so its menu item has no title")
        )
    }
}

/// The built executable, as CI and an Xcode Run Script phase run it: exit codes and the xcode
/// format through a real process and pipes.
@Test func builtToolChecksForXcodeAndCI() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let tool = builtTool(root: root)
    try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build the tool first: swift build")
    func run(_ arguments: [String], input: Data? = nil) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.currentDirectoryURL = root.appendingPathComponent("Examples/FileProvider")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try inputPipe.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
    let (code, text) = try run(["check", "Broken-Info.plist", "--format", "xcode"])
    #expect(code == 1)
    #expect(text.hasPrefix("Broken-Info.plist:16:5: error: unknown key 'NSExtensionFileProviderActionActivationRules'"))
    #expect(try run(["check", "Broken-Info.plist", "--fail-on", "never"]).0 == 0)
    #expect(try run(["check", "missing-Info.plist", "--fail-on", "never"]).0 == 2)
    let plist = try Data(contentsOf: root.appendingPathComponent("Examples/FileProvider/Extension-Info.plist"))
    let (stdinCode, stdinText) = try run(["check", "-", "--format", "github"], input: plist)
    #expect(stdinCode == 1)
    #expect(stdinText.hasPrefix("::error file=<stdin>,line=34,col=61,title=interaction 1.1::"))
    #expect(try run(["--version"]) == (0, "predicate \(CommandLineTool.version)\n"))
}

/// `predicate help items`: every property of the model with its type and default.
@Test func helpItemsListsEveryPropertyWithItsDefault() {
    let result = CommandLineTool().run(arguments: ["help", "items"])
    #expect(result.exitCode == 0)
    for line in [
        "  isUploaded, uploaded: boolean = true", "  isDownloaded, downloaded: boolean = true",
        "  capabilities: integer or array of capability names = 0", "  documentSize: integer, optional = absent (nil)",
        "  itemIdentifier: string = the filename", "  contentPolicy: integer = 0",
    ] {
        #expect(result.standardOutput.contains(line + "\n"), "\(line)")
    }
    #expect(result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains(": ") }.count >= 35)
}

/// `explain --object` given a selection array says to use `--items`; `--items` reads ISO dates
/// and capability names.
@Test func explainObjectArrayAndFriendlyItems() {
    let tool = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
    let array = tool.run(
        arguments: ["explain", "isUploaded == NO", "--object", "-"], standardInput: Array("[{}]".utf8))
    #expect(array.exitCode == 2)
    #expect(array.standardError.contains("--object got a JSON array: for a selection of items, use --items FILE"))
    let items = #"[{"filename": "a", "capabilities": ["allowsRenaming"], "creationDate": "2026-12-02T09:30:00Z"}]"#
    let rule =
        #"ALL fileproviderItems.capabilities == 8 AND ANY fileproviderItems.creationDate > CAST("2026-12-01", "NSDate")"#
    let result = tool.run(arguments: ["explain", rule, "--items", "-"], standardInput: Array(items.utf8))
    #expect(result.exitCode == 0, "\(result.standardError)")
}

/// `explain --json` on a large selection writes each collection's first 20 elements and its
/// count, not the whole selection at every node.
@Test func explainJSONIsBoundedOnLargeSelections() {
    let items = "[" + (0..<5_000).map { #"{"filename": "f\#($0)"}"# }.joined(separator: ",") + "]"
    let result = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator).run(
        arguments: ["explain", "ANY fileproviderItems.filename == 'zzz'", "--items", "-", "--json"],
        standardInput: Array(items.utf8))
    #expect(result.exitCode == 1)
    #expect(result.standardOutput.utf8.count < 20_000)
    #expect(result.standardOutput.contains(#""valueCount":5000"#))
}

/// A binary Info.plist has no lines: xcode and github output name the file and give the key path.
@Test func binaryPlistFindingsNameTheKeyPath() throws {
    let xml = try Data(contentsOf: URL(fileURLWithPath: CheckFormatsTests.directory + "Info.plist"))
    let value = try PropertyListSerialization.propertyList(from: xml, options: [], format: nil)
    let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    let keyPath = "NSExtension.NSExtensionFileProviderActions[0].NSExtensionFileProviderActionActivationRule"
    let xcode = CheckFormatsTests.run(["check", "-", "--format", "xcode"], input: Array(binary))
    #expect(xcode.exitCode == 1)
    #expect(
        xcode.standardOutput.hasPrefix(
            "<stdin>: error: FileProviderItem has no key 'uploadded': reading it fails, so the rule is false; "
                + "did you mean 'uploaded' (or 'isUploaded')? (at \(keyPath))\n"))
    let github = CheckFormatsTests.run(["check", "-", "--format", "github"], input: Array(binary))
    #expect(github.standardOutput.hasPrefix("::error file=<stdin>,title=action 'com.example.action.share'::"))
}
