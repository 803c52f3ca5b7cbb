import Foundation
import PredicateCommandLine
import PredicateValue
import Testing

/// `predicate sql` end to end through the tool's entry: the clause, its parameters and the
/// residual as text, `--explain`, `--json`, mappings from a file or inferred, and its errors.
@Suite struct SQLCommandTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        var input = ""
        let exitCode: Int32
        /// Standard output, whole.
        let output: String
        /// The first line of standard error ("" when nothing is written there).
        var error = ""
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let mapping = #"""
        {"table": "files", "columns": {"documentSize": {"column": "size", "type": "integer"},
                                       "filename": {"column": "name", "type": "text", "nullable": false}},
         "json": {"userInfo": "info"},
         "children": {"tags": {"table": "tags", "columns": {"label": {"type": "text"}}}}}
        """#

    static let readmeRule = #"isUploaded == NO AND (filename ENDSWITH[c] ".pdf" OR documentSize > 1e6)"#

    static let cases: [Case] = [
        // Without --mapping: columns named after the keys, typed by the constants they meet.
        .init(
            arguments: ["sql", "documentSize > 100"], exitCode: 0,
            output: """
                WHERE ("items"."documentSize" IS NOT NULL AND "items"."documentSize" > ?)
                  ?1 = 100
                residual: none (exact)

                """),
        .init(
            arguments: ["sql", "parent.name == 'x'", "--dialect", "postgres"], exitCode: 0,
            output: """
                WHERE ("items"."parent_name" IS NOT NULL AND "items"."parent_name" = $1::text)
                  $1 = 'x'
                residual: none (exact)

                """),
        // The mapping from standard input; a hostile constant stays a parameter.
        .init(
            arguments: ["sql", "filename == \"'; DROP TABLE files; --\"", "--mapping", "-"], input: mapping,
            exitCode: 0,
            output: """
                WHERE "files"."name" = ?
                  ?1 = '''; DROP TABLE files; --'
                residual: none (exact)

                """),
        .init(
            arguments: ["sql", "ANY tags.label == 'red' AND userInfo.owner == 'bob'", "--mapping", "-"],
            input: mapping, exitCode: 0,
            output: """
                WHERE (EXISTS (SELECT 1 FROM "tags" AS "c1" WHERE "c1"."item_id" = "files"."id" AND ("c1"."label" IS NOT NULL AND "c1"."label" = ?)) AND (COALESCE(json_type("files"."info", ?), 'null') = 'text' AND json_extract("files"."info", ?) = ?))
                  ?1 = 'red'
                  ?2 = '$."owner"'
                  ?3 = '$."owner"'
                  ?4 = 'bob'
                residual: none (exact)

                """),
        // --explain: every comparison marked; SQLite decides [c] with this package's function.
        .init(
            arguments: ["sql", readmeRule, "--explain"], exitCode: 0,
            output: """
                WHERE (("items"."isUploaded" IS NOT NULL AND "items"."isUploaded" = ?) AND (("items"."filename" IS NOT NULL AND pvm_ends_with("items"."filename", ?, 1)) OR ("items"."documentSize" IS NOT NULL AND "items"."documentSize" > ?)))
                  ?1 = 0
                  ?2 = '.pdf'
                  ?3 = 1000000.0
                residual: none (exact)
                functions: pvm_ends_with
                  exact       isUploaded == NO
                  exact       filename ENDSWITH[c] ".pdf"
                  exact       documentSize > 1e6

                """),
        // PostgreSQL re-checks [c]; the residual parses back to the same rule (1e6 keeps its fraction).
        .init(
            arguments: ["sql", readmeRule, "--explain", "--dialect", "postgres"], exitCode: 0,
            output: """
                WHERE ("items"."isUploaded" IS NOT NULL AND "items"."isUploaded" = $1::bigint)
                  $1 = 0
                residual: filename ENDSWITH[c] ".pdf" OR documentSize > 1000000.0
                  exact       isUploaded == NO
                  re-checked  filename ENDSWITH[c] ".pdf"
                  exact       documentSize > 1e6

                """),
        // --json: exactly the five keys, in order.
        .init(
            arguments: ["sql", "isUploaded == NO AND filename LIKE[c] '*.pdf'", "--dialect", "postgres", "--json"],
            exitCode: 0,
            output: #"{"sql":"(\"items\".\"isUploaded\" IS NOT NULL AND \"items\".\"isUploaded\" = $1::bigint)","#
                + #""parameters":[0],"exact":false,"residual":"filename LIKE[c] \"*.pdf\"","functions":[]}"# + "\n"),
        .init(
            arguments: ["sql", "name MATCHES %@ AND n > %d", "--args", #"["a.*", 3]"#, "--json"], exitCode: 0,
            output: #"{"sql":"((\"items\".\"name\" IS NOT NULL AND pvm_matches(\"items\".\"name\", ?, 0)) AND "#
                + #"(\"items\".\"n\" IS NOT NULL AND \"items\".\"n\" > ?))","parameters":["a.*",3],"exact":true,"#
                + #""residual":null,"functions":["pvm_matches"]}"# + "\n"),
        // Errors: usage (exit 2 with the usage line), input, and the rule's own, at their place.
        .init(
            arguments: ["sql", "a == 1", "--dialect", "mysql"], exitCode: 2, output: "",
            error: "predicate: error: unknown dialect 'mysql' (use sqlite or postgres)"),
        .init(
            arguments: ["sql", "a == 1", "--json", "--explain"], exitCode: 2, output: "",
            error: "predicate: error: give either --json or --explain, not both"),
        .init(
            arguments: ["sql", "a == 1", "--expression"], exitCode: 2, output: "",
            error: "predicate: error: unknown option '--expression' for 'sql'"),
        .init(arguments: ["sql"], exitCode: 2, output: "", error: "predicate: error: missing rule"),
        .init(
            arguments: ["sql", "a ==", "--dialect", "postgres"], exitCode: 2, output: "",
            error: "1:5: error: expected an expression, found end of input"),
        .init(
            arguments: ["sql", "documentSize > 1 AND nmae == 'x'", "--mapping", "-"], input: mapping, exitCode: 2,
            output: "",
            error: "1:22: error: the key 'nmae' has no column, JSON column or child table in the mapping of 'files'"),
        .init(
            arguments: ["sql", "nmae == 'x'", "--mapping", "-", "--json"], input: mapping, exitCode: 2,
            output:
                #"{"error":"1:1: error: the key 'nmae' has no column, JSON column or child table in the mapping of 'files'"}"#
                + "\n",
            error: "1:1: error: the key 'nmae' has no column, JSON column or child table in the mapping of 'files'"),
        .init(
            arguments: ["sql", "x == 1", "--mapping", "-"],
            input: #"{"table": "t", "columns": {"x": {"type": "uuid"}}}"#,
            exitCode: 2, output: "",
            error:
                "predicate: error: --mapping (standard input): $.columns.x.type: unknown type 'uuid' (one of integer, real, text, boolean, date)"
        ),
        .init(
            arguments: ["sql", "x == 1", "--mapping", "-", "--json"], input: #"{"table": "#, exitCode: 2,
            output:
                #"{"error":"--mapping (standard input): invalid JSON: 1:11: unexpected end of input, expected a value"}"#
                + "\n",
            error:
                "predicate: error: --mapping (standard input): invalid JSON: 1:11: unexpected end of input, expected a value"
        ),
        .init(
            arguments: ["sql", "x == 1", "--mapping", "/nonexistent/mapping.json"], exitCode: 2, output: "",
            error: "predicate: error: cannot read '/nonexistent/mapping.json': No such file or directory"),
    ]

    @Test(arguments: cases) func translates(_ example: Case) {
        let result = CommandLineTool().run(arguments: example.arguments, standardInput: Array(example.input.utf8))
        #expect(result.exitCode == example.exitCode)
        #expect(result.standardOutput == example.output)
        let first = result.standardError.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        #expect(first == example.error)
    }

    /// The mapping a file gives: the same file read from disk as from standard input.
    @Test func mappingFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sql-mapping-\(getpid()).json").path
        try Self.mapping.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = CommandLineTool().run(arguments: ["sql", "documentSize > 5", "--mapping", path])
        let fromInput = CommandLineTool().run(
            arguments: ["sql", "documentSize > 5", "--mapping", "-"], standardInput: Array(Self.mapping.utf8))
        #expect(fromFile.exitCode == 0)
        #expect(fromFile.standardOutput == fromInput.standardOutput)
        #expect(fromFile.standardOutput.hasPrefix(#"WHERE ("files"."size" IS NOT NULL AND "files"."size" > ?)"#))
    }

    /// Quotes, comment markers, semicolons, NUL and a 100,000-character string as constants and
    /// arguments: the statement's text is the one a plain constant gives, in both dialects.
    @Test(arguments: ["sqlite", "postgres"]) func hostileConstantsNeverChangeTheStatement(dialect: String) throws {
        func sql(_ arguments: [String]) throws -> (String, JSON) {
            let result = CommandLineTool().run(arguments: ["sql"] + arguments + ["--dialect", dialect, "--json"])
            #expect(result.exitCode == 0, "\(result.standardError)")
            let document = try JSON.parse(Array(result.standardOutput.utf8))
            guard case .string(let text) = document["sql"], let parameters = document["parameters"] else {
                Issue.record("no sql in \(result.standardOutput)")
                return ("", .null)
            }
            return (text, parameters)
        }
        let (plain, _) = try sql(["name == %@ AND note BEGINSWITH[c] %@", "--args", #"["x", "y"]"#])
        let hostile = [
            "'", "\"", "'; DROP TABLE items; --", "--", ";", "/* */", "\\", "a\u{0}b", "$1", "?",
            String(repeating: "'x", count: 50_000),
        ]
        for text in hostile {
            let arguments = JSON.array([.string(text), .string(text)]).serialized
            let (statement, parameters) = try sql(["name == %@ AND note BEGINSWITH[c] %@", "--args", arguments])
            if dialect == "postgres" && text.utf8.contains(0) {
                // PostgreSQL's text cannot hold NUL: the comparison is left to the residual.
                #expect(statement == "TRUE")
                #expect(parameters == .array([]))
                continue
            }
            #expect(statement == plain)
            guard case .array(let values) = parameters else { continue }
            #expect(values.first == .string(text))
        }
    }

    /// Rules of 20,000 comparisons (about 250 KB) are translated: equalities on a key become one
    /// `IN` list each (exact), and past the translator's limit of pushed comparisons the rest is
    /// left to the residual, here the whole `OR`.
    @Test(arguments: [("==", true), (">", false)]) func aHugeRuleIsTranslated(op: String, exact: Bool) throws {
        let rule = (0..<20_000).map { "k\($0 % 40) \(op) \($0)" }.joined(separator: " OR ")
        let result = CommandLineTool().run(arguments: ["sql", rule, "--json"])
        #expect(result.exitCode == 0)
        let document = try JSON.parse(Array(result.standardOutput.utf8))
        guard case .string(let text) = document["sql"], case .array(let parameters) = document["parameters"] else {
            Issue.record("no sql in \(result.standardOutput.prefix(200))")
            return
        }
        #expect(document["exact"] == .bool(exact))
        #expect(text.hasPrefix(exact ? "(" : "TRUE"))
        #expect(parameters.count == (exact ? 20_000 : 0))
    }

    /// The `$ predicate sql …` examples of the top-level README, each followed by its output up
    /// to the next command or the end of the block: the tool must print exactly that.
    @Test func readmeExamplesPrintWhatTheReadmeShows() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [(command: String, output: [String])] = []
        var inBlock = false
        var collecting = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                collecting = false
            } else if inBlock && line.hasPrefix("$ ") {
                examples.append((line, []))
                collecting = true
            } else if collecting {
                examples[examples.count - 1].output.append(line)
            }
        }
        examples.removeAll { !$0.command.hasPrefix("$ predicate sql ") }
        #expect(examples.count >= 2)
        for (command, output) in examples {
            let result = CommandLineTool().run(arguments: Array(Self.shellWords(command).dropFirst(2)))
            #expect(result.exitCode == 0, "\(command)")
            #expect(result.standardOutput == output.map { $0 + "\n" }.joined(), "\(command)")
        }
    }

    /// Words as a POSIX shell splits them, for the quoting the README uses: single and double
    /// quotes without escapes inside.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current: String?
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current?.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                current = current ?? ""
            } else if character == " " {
                if let word = current { words.append(word) }
                current = nil
            } else {
                current = (current ?? "") + String(character)
            }
        }
        if let word = current { words.append(word) }
        return words
    }

    @Test func helpListsTheSubcommand() {
        let main = CommandLineTool().run(arguments: ["--help"])
        #expect(main.standardOutput.contains("  sql <rule> --dialect sqlite|postgres [--mapping FILE]\n"))
        let help = CommandLineTool().run(arguments: ["sql", "--help"])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.hasPrefix("predicate sql - the SQL a rule becomes where the items live\n"))
        #expect(CommandLineTool().run(arguments: ["help", "sql"]).standardOutput == help.standardOutput)
    }
}
