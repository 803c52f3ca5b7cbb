import PredicateSQL
import PredicateSyntax
import PredicateValue

extension Session {
    // MARK: sql

    /// `predicate sql '<rule>' --dialect sqlite|postgres [--mapping FILE|-]`: the `WHERE` clause a
    /// store would run, its parameters, and the residual it would re-check, without a database.
    mutating func sql(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.sql + "\n")
            return 0
        }
        let json = arguments.has("--json")
        if json && arguments.has("--explain") {
            // `--json` promises exactly five keys; the per-comparison marks have no place there.
            throw UsageError(message: "give either --json or --explain, not both", subcommand: .sql)
        }
        let dialectName = arguments.options["--dialect"] ?? SQLDialect.sqlite.rawValue
        guard let dialect = SQLDialect(rawValue: dialectName) else {
            let known = SQLDialect.allCases.map(\.rawValue).joined(separator: " or ")
            throw UsageError(message: "unknown dialect '\(dialectName)' (use \(known))", subcommand: .sql)
        }
        // An unreadable mapping is an input error (reported as the other subcommands report their
        // files) before the rule is looked at: the rule's own errors need the mapping's keys.
        var mapping: TableMapping?
        if let source = arguments.options["--mapping"] {
            do throws(CommandLineIOError) {
                mapping = try mappingFile(source)
            } catch {
                return inputError(error.message, json: json)
            }
        }
        guard let (rule, parsed) = try parseRuleOperand(arguments, for: .sql) else { return 2 }
        guard case .predicate(let predicate) = parsed else {
            throw UsageError(message: "sql needs a predicate, not an expression", subcommand: .sql)
        }
        let translation: SQLTranslation
        do throws(TranslationError) {
            translation = try SQLTranslator.translate(
                predicate, mapping: mapping ?? TableMapping.inferred(for: predicate), dialect: dialect)
        } catch {
            let diagnostic = Diagnostic(.ruleCheck(error.message), range: error.range, source: rule)
            if json { output.write(JSON.object([("error", .string(diagnostic.description))]).serialized + "\n") }
            report([diagnostic])
            return 2
        }
        if json {
            output.write(translation.json.serialized + "\n")
        } else {
            output.write(translation.explained(source: arguments.has("--explain") ? rule : nil) + "\n")
        }
        return 0
    }

    /// Reads `--mapping FILE` (standard input for `-`) as a ``TableMapping`` JSON document.
    private mutating func mappingFile(_ source: String) throws(CommandLineIOError) -> TableMapping {
        let origin = source == "-" ? "--mapping (standard input)" : "--mapping '\(source)'"
        let bytes = source == "-" ? try readAll(from: &input) : try readFile(atPath: source)
        let document: JSON
        do throws(JSONParseError) {
            document = try JSON.parse(bytes)
        } catch {
            throw CommandLineIOError("\(origin): invalid JSON: \(error)")
        }
        do throws(MappingError) {
            return try TableMapping(json: document)
        } catch {
            throw CommandLineIOError("\(origin): \(error.message)")
        }
    }
}
