import Foundation
import PredicateCommandLine
import Testing

/// End to end: every `$ predicate …` command in `Examples/FileProvider/README.md` runs through
/// the tool in that directory, and its output must be what the README shows (standard output,
/// or standard error then standard output, as a terminal interleaves them), and its exit code
/// what a following `$ echo $?` shows. The README cannot drift from the tool.
@Suite struct ExamplesReadmeTests {
    static let directory =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/FileProvider")

    struct Example: CustomTestStringConvertible, Sendable {
        var command: String
        var expected: [String] = []
        var exitCode: Int32?
        var testDescription: String { command }
    }

    /// The commands of the README's code blocks with the lines shown after each.
    static let examples: [Example] = {
        let readme = (try? String(contentsOf: directory.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        var examples: [Example] = []
        var inBlock = false
        var current: Example?
        var awaitingExitCode = false
        func finish() {
            if let example = current { examples.append(example) }
            current = nil
        }
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if inBlock { finish() }
                inBlock.toggle()
                awaitingExitCode = false
                continue
            }
            guard inBlock else { continue }
            if line == "$ echo $?" {
                awaitingExitCode = true
                continue
            }
            if awaitingExitCode {
                current?.exitCode = Int32(line)
                awaitingExitCode = false
                continue
            }
            if line.hasPrefix("$ predicate ") {
                finish()
                current = Example(command: String(line.dropFirst(2)))
                continue
            }
            current?.expected.append(line)
        }
        return examples
    }()

    @Test func readmeHasExamplesOfEverySubcommand() {
        let commands = Self.examples.map(\.command)
        for subcommand in ["check", "actions", "explain", "filter"] {
            #expect(commands.contains { $0.hasPrefix("predicate \(subcommand) ") }, "no \(subcommand) example")
        }
        #expect(commands.contains { $0.contains("--interaction") })
        for format in ["xcode", "github"] {
            #expect(commands.contains { $0.contains("--format \(format)") }, "no --format \(format) example")
        }
        #expect(commands.count == 19)
    }

    @Test(arguments: examples)
    func readmeExampleRunsAsShown(_ example: Example) throws {
        var words = try #require(Self.words(example.command))
        var dropStandardError = false
        if words.last == "2>/dev/null" {
            words.removeLast()
            dropStandardError = true
        }
        #expect(words.first == "predicate")
        let arguments = words.dropFirst().map { word in
            // Relative file operands and option values are files of the examples directory.
            FileManager.default.fileExists(atPath: Self.directory.appendingPathComponent(word).path)
                ? Self.directory.appendingPathComponent(word).path : word
        }
        let result = CommandLineTool(evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator)
            .run(arguments: Array(arguments))
        let shown = example.expected.joined(separator: "\n") + "\n"
        // The tool names files as given, and the README gives them relative to its directory.
        let prefix = Self.directory.path + "/"
        let output = result.standardOutput.replacingOccurrences(of: prefix, with: "")
        let errors = result.standardError.replacingOccurrences(of: prefix, with: "")
        let matches = output == shown || (!dropStandardError && errors + output == shown)
        #expect(matches, "stdout:\n\(result.standardOutput)\nstderr:\n\(result.standardError)")
        if let code = example.exitCode { #expect(result.exitCode == code) }
    }

    /// Shell words: single quotes literal, double quotes without escapes, spaces separate.
    static func words(_ command: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil else { return nil }
        if inWord { words.append(current) }
        return words
    }
}
