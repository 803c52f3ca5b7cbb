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

    static let cases: [Case] = [
        // Without --mapping: columns named after the keys, typed by the constants.
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
        // The mapping from standard input; a constant never becomes SQL text.
        .init(
            arguments: ["sql", "filename == \"'; DROP TABLE files; --\"", "--mapping", "-"], input: mapping,
            exitCode: 0,
            output: """
                WHERE ("files"."name" = ?)
                  ?1 = '''; DROP TABLE files; --'
                residual: none (exact)

                """),
    ]

    @Test(arguments: cases) func translates(_ example: Case) {
        let result = CommandLineTool().run(arguments: example.arguments, standardInput: Array(example.input.utf8))
        #expect(result.exitCode == example.exitCode)
        #expect(result.standardOutput == example.output)
        let first = result.standardError.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        #expect(first == example.error)
    }
}
