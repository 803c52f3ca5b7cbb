import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Evaluates a parsed predicate against an object with variable bindings; the hook through which
/// an evaluator plugs into `predicate eval`.
///
/// Return the predicate's truth value, or throw for an evaluation error (an unknown key, values
/// that cannot be ordered, a spent step budget, …); the error's description becomes the reported
/// message. `limits` are the run's (`--max-steps` sets ``EvaluationLimits/maximumSteps``).
public typealias PredicateEvaluator =
    @Sendable (_ predicate: PredicateNode, _ object: Value, _ variables: [String: Value], _ limits: EvaluationLimits)
    throws -> Bool

/// An evaluation failure as a diagnostic: `line:column: error: message` with a caret under the
/// failing sub-expression when the evaluator reported where it failed.
func evaluationDiagnostic(_ error: any Error, source: String) -> Diagnostic {
    if let error = error as? EvaluationError { return error.diagnostic(source: source) }
    return Diagnostic(
        .evaluationFailed(String(describing: error)), range: SourceRange(0, source.utf8.count), source: source)
}

/// The reference interpreter as the tool's evaluator.
public let interpreterEvaluator: PredicateEvaluator = { predicate, object, variables, limits in
    try Interpreter(environment: EvaluationEnvironment(limits: limits)).evaluate(
        predicate, on: object, variables: variables)
}

/// The bytecode VM as the tool's evaluator: compile, then run.
public let virtualMachineEvaluator: PredicateEvaluator = { predicate, object, variables, limits in
    try Compiler.compile(predicate).evaluate(
        on: object, variables: variables, environment: EvaluationEnvironment(limits: limits))
}

/// What a run of the tool produced, for runs with in-memory streams.
public struct CommandLineResult: Hashable, Sendable {
    /// The exit code: 0 success or true, 1 false or findings, 2 usage or input error.
    public var exitCode: Int32
    /// Everything written to standard output.
    public var standardOutput: String
    /// Everything written to standard error.
    public var standardError: String

    /// Creates a result.
    public init(exitCode: Int32, standardOutput: String, standardError: String) {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// The `predicate` command-line tool, as a library so it can be tested and embedded without
/// spawning processes.
///
/// ```swift
/// let result = CommandLineTool().run(arguments: ["format", "a = 1"])
/// // result.exitCode == 0, result.standardOutput == "a == 1\n"
/// ```
///
/// `predicate --help` lists the subcommands and `predicate help eval` documents the JSON Lines
/// contract. Exit codes: 0 success (or true), 1 false or findings, 2 usage or input error.
public struct CommandLineTool: Sendable {
    /// The tool's version, as `predicate --version` prints it and SARIF logs record it.
    public static let version = "0.16.0"

    /// The evaluator `eval` uses by default (`--engine vm`); with `nil`, `eval` reports that
    /// evaluation is unavailable and `eval --jsonl` writes null results.
    public var evaluator: PredicateEvaluator?
    /// The evaluator `eval --engine interpreter` uses.
    public var interpreter: PredicateEvaluator?
    /// Whether diagnostics on standard error use ANSI colours.
    public var colorDiagnostics: Bool
    /// Whether readable output on standard output (check, actions, explain) uses ANSI colours.
    public var colorOutput: Bool

    /// Creates a tool.
    ///
    /// - Parameters:
    ///   - evaluator: The evaluator for `eval`, or `nil` for none.
    ///   - colorDiagnostics: Whether to colour diagnostics with ANSI escapes.
    ///   - interpreter: The evaluator for `--engine interpreter`, or `nil` for none.
    ///   - colorOutput: Whether to colour standard output's readable text with ANSI escapes.
    public init(
        evaluator: PredicateEvaluator? = nil, interpreter: PredicateEvaluator? = nil, colorDiagnostics: Bool = false,
        colorOutput: Bool = false
    ) {
        self.evaluator = evaluator
        self.interpreter = interpreter
        self.colorDiagnostics = colorDiagnostics
        self.colorOutput = colorOutput
    }

    /// Runs the tool as the `predicate` process: real standard streams, colour on each of
    /// standard output and standard error when it is a terminal and `NO_COLOR` is unset, the VM
    /// as evaluator (the interpreter on request).
    ///
    /// - Parameter arguments: The command-line arguments without the program name.
    /// - Returns: The exit code.
    public static func run(arguments: [String]) -> Int32 {
        let colorAllowed = environmentVariable("NO_COLOR").map(\.isEmpty) ?? true
        var input = FileDescriptorInput(descriptor: 0)
        var output = FileDescriptorOutput(descriptor: 1)
        var errorOutput = FileDescriptorOutput(descriptor: 2, bufferSize: 0)
        return CommandLineTool(
            evaluator: virtualMachineEvaluator, interpreter: interpreterEvaluator,
            colorDiagnostics: colorAllowed && isTerminal(2), colorOutput: colorAllowed && isTerminal(1)
        )
        .run(arguments: arguments, input: &input, output: &output, errorOutput: &errorOutput)
    }

    /// Runs the tool with standard input taken from memory and both outputs captured.
    ///
    /// - Parameters:
    ///   - arguments: The command-line arguments without the program name.
    ///   - standardInput: The bytes standard input yields.
    /// - Returns: The exit code and everything written.
    public func run(arguments: [String], standardInput: [UInt8] = []) -> CommandLineResult {
        var input = InMemoryInput(standardInput)
        var output = InMemoryOutput()
        var errorOutput = InMemoryOutput()
        let code = run(arguments: arguments, input: &input, output: &output, errorOutput: &errorOutput)
        return CommandLineResult(exitCode: code, standardOutput: output.text, standardError: errorOutput.text)
    }

    /// Runs the tool against any streams.
    ///
    /// Both outputs are flushed before returning; a failure to write standard output turns the
    /// exit code into 2.
    ///
    /// - Parameters:
    ///   - arguments: The command-line arguments without the program name.
    ///   - input: Standard input.
    ///   - output: Standard output.
    ///   - errorOutput: Standard error.
    /// - Returns: The exit code.
    public func run(
        arguments: [String], input: inout some CommandLineInput, output: inout some CommandLineOutput,
        errorOutput: inout some CommandLineOutput
    ) -> Int32 {
        var session = Session(tool: self, input: input, output: output, errorOutput: errorOutput)
        var code = session.run(arguments)
        do {
            try session.output.flush()
        } catch {
            session.errorOutput.write("predicate: error: \(error)\n")
            code = 2
        }
        try? session.errorOutput.flush()
        input = session.input
        output = session.output
        errorOutput = session.errorOutput
        return code
    }
}

/// One run of the tool: its configuration and its streams.
struct Session<Input: CommandLineInput, Output: CommandLineOutput, ErrorOutput: CommandLineOutput> {
    let tool: CommandLineTool
    var input: Input
    var output: Output
    var errorOutput: ErrorOutput

    mutating func run(_ arguments: [String]) -> Int32 {
        do {
            return try dispatch(arguments)
        } catch {
            errorOutput.write("predicate: error: \(error.message)\n\(HelpText.usage(for: error.subcommand))\n")
            let helpCommand = error.subcommand.map { "predicate help \($0.rawValue)" } ?? "predicate --help"
            errorOutput.write("Run '\(helpCommand)' for more.\n")
            return 2
        }
    }

    private mutating func dispatch(_ arguments: [String]) throws(UsageError) -> Int32 {
        guard let first = arguments.first else {
            throw UsageError(message: "missing subcommand", subcommand: nil)
        }
        let rest = arguments.dropFirst()
        switch first {
        case "--version":
            guard rest.isEmpty else {
                throw UsageError(message: "unexpected '\(rest[rest.startIndex])'", subcommand: nil)
            }
            output.write("predicate \(CommandLineTool.version)\n")
            return 0
        case "--help", "-h":
            guard rest.isEmpty else {
                throw UsageError(message: "unexpected '\(rest[rest.startIndex])'", subcommand: nil)
            }
            output.write(HelpText.main + "\n")
            return 0
        case Subcommand.help.rawValue:
            let parsed = try ParsedArguments(rest, for: .help)
            guard parsed.operands.count <= 1 else {
                throw UsageError(message: "help takes at most one subcommand", subcommand: .help)
            }
            if parsed.operands.first == "items" {
                output.write(ItemsHelp.text + "\n")
                return 0
            }
            var topic: Subcommand?
            if let name = parsed.operands.first {
                guard let subcommand = Subcommand(rawValue: name) else {
                    throw UsageError(message: "no help for unknown subcommand '\(name)'", subcommand: nil)
                }
                topic = subcommand
            }
            output.write(HelpText.help(for: topic) + "\n")
            return 0
        case Subcommand.format.rawValue:
            return try format(ParsedArguments(rest, for: .format))
        case Subcommand.eval.rawValue:
            return try eval(ParsedArguments(rest, for: .eval))
        case Subcommand.disasm.rawValue:
            return try disassemble(ParsedArguments(rest, for: .disasm))
        case Subcommand.check.rawValue:
            return try check(ParsedArguments(rest, for: .check))
        case Subcommand.actions.rawValue:
            return try actions(ParsedArguments(rest, for: .actions))
        case Subcommand.filter.rawValue:
            return try filter(ParsedArguments(rest, for: .filter))
        case Subcommand.explain.rawValue:
            return try explain(ParsedArguments(rest, for: .explain))
        case Subcommand.sql.rawValue:
            return try sql(ParsedArguments(rest, for: .sql))
        default:
            let kind = first.hasPrefix("-") ? "option" : "subcommand"
            throw UsageError(message: "unknown \(kind) '\(first)'", subcommand: nil)
        }
    }

    // MARK: format and disasm

    enum ParsedRule {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    /// Reads `<rule>` with `--args`, `--strict` and `--expression`, parses it and reports its
    /// warnings; `nil` once a problem has been reported (exit 2).
    mutating func parseRuleOperand(
        _ arguments: ParsedArguments, for subcommand: Subcommand
    ) throws(UsageError) -> (rule: String, parsed: ParsedRule)? {
        let rule = try singleRule(arguments, for: subcommand)
        let options = ParseOptions(strict: arguments.has("--strict"))
        let values: [Value]
        do throws(CommandLineIOError) {
            values = try argumentValues(arguments.options["--args"])
        } catch {
            errorOutput.write("predicate: error: \(error)\n")
            return nil
        }
        do throws(Diagnostic) {
            if arguments.has("--expression") {
                let parsed = try PredicateParser.parseExpression(rule, arguments: values, options: options)
                report(parsed.warnings)
                return (rule, .expression(parsed.expression))
            }
            let parsed = try PredicateParser.parsePredicate(rule, arguments: values, options: options)
            report(parsed.warnings)
            return (rule, .predicate(parsed.predicate))
        } catch {
            report([error])
            return nil
        }
    }

    private mutating func format(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.format + "\n")
            return 0
        }
        guard let (_, parsed) = try parseRuleOperand(arguments, for: .format) else { return 2 }
        let style: PredicateFormatStyle = arguments.has("--round-trip") ? .roundTripSafe : .apple
        switch parsed {
        case .predicate(let predicate): output.write(predicate.format(style) + "\n")
        case .expression(let expression): output.write(expression.format(style) + "\n")
        }
        return 0
    }

    private mutating func disassemble(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.disasm + "\n")
            return 0
        }
        guard let (rule, parsed) = try parseRuleOperand(arguments, for: .disasm) else { return 2 }
        do throws(CompileError) {
            let program: Program
            switch parsed {
            case .predicate(let predicate): program = try Compiler.compile(predicate, source: rule)
            case .expression(let expression): program = try Compiler.compile(expression, source: rule)
            }
            output.write(Disassembler.listing(program))
            return 0
        } catch {
            errorOutput.write("predicate: error: \(error)\n")
            return 2
        }
    }

    /// The evaluator `--engine` names: `vm` (the default) or `interpreter`.
    private func engine(_ arguments: ParsedArguments) throws(UsageError) -> PredicateEvaluator? {
        switch arguments.options["--engine"] ?? "vm" {
        case "vm": return tool.evaluator
        case "interpreter": return tool.interpreter
        case let other:
            throw UsageError(message: "unknown engine '\(other)' (use vm or interpreter)", subcommand: .eval)
        }
    }

    // MARK: eval

    private mutating func eval(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.eval + "\n")
            return 0
        }
        let options = ParseOptions(strict: arguments.has("--strict"))
        if arguments.has("--jsonl") {
            return try evalJSONLines(arguments, options: options)
        }
        let rule = try singleRule(arguments, for: .eval)
        let values: [Value]
        let variables: [String: Value]
        let object: Value
        do throws(CommandLineIOError) {
            values = try argumentValues(arguments.options["--args"])
            variables = try variableValues(arguments.options["--vars"])
            object = try objectValue(arguments.options["--object"])
        } catch {
            return inputError(error.message, json: arguments.has("--json"))
        }
        let parsed: ParsedPredicate
        do throws(Diagnostic) {
            parsed = try PredicateParser.parsePredicate(rule, arguments: values, options: options)
        } catch {
            report([error])
            return 2
        }
        report(parsed.warnings)
        guard let evaluator = try engine(arguments) else {
            errorOutput.write(
                """
                predicate: error: evaluation is not available yet: this build has no evaluator.
                The rule parses as: \(parsed.predicate.format(.roundTripSafe))

                """)
            return 2
        }
        let json = arguments.has("--json")
        let limits = try stepLimits(arguments, for: .eval)
        do {
            let result = try evaluator(parsed.predicate, object, variables, limits)
            if json {
                output.write(JSON.object([("result", .bool(result)), ("error", .null)]).serialized + "\n")
            } else {
                output.write(result ? "true\n" : "false\n")
            }
            return result ? 0 : 1
        } catch {
            let found = evaluationDiagnostic(error, source: rule)
            let diagnostic = Diagnostic(
                .evaluationFailed(Self.withStepsHint(found.message)), range: found.range, source: rule)
            if json {
                let members: [(key: String, value: JSON)] = [
                    ("result", .null), ("error", .string(diagnostic.message)),
                    ("start", .number(JSON.Number(Int64(diagnostic.range.lowerBound)))),
                    ("end", .number(JSON.Number(Int64(diagnostic.range.upperBound)))),
                ]
                output.write(JSON.object(members).serialized + "\n")
            }
            report([diagnostic])
            return 2
        }
    }

    private mutating func evalJSONLines(
        _ arguments: ParsedArguments, options: ParseOptions
    ) throws(UsageError) -> Int32 {
        if let operand = arguments.operands.first {
            throw UsageError(
                message: "--jsonl reads cases from standard input; unexpected '\(operand)'", subcommand: .eval)
        }
        for option in ["--args", "--vars", "--object"] where arguments.has(option) {
            throw UsageError(message: "\(option) cannot be used with --jsonl", subcommand: .eval)
        }
        let processor = JSONLinesProcessor(
            options: options, evaluator: try engine(arguments), limits: try stepLimits(arguments, for: .eval))
        // The input moves into a local so the line callback can write to `self.output` without
        // overlapping access to `self`.
        var input = self.input
        defer { self.input = input }
        do throws(CommandLineIOError) {
            try LineReader.forEachLine(in: &input) { line in
                output.write(processor.process(line))
                output.write("\n")
            }
        } catch {
            errorOutput.write("predicate: error: \(error)\n")
            return 2
        }
        return 0
    }

    // MARK: Helpers

    func singleRule(_ arguments: ParsedArguments, for subcommand: Subcommand) throws(UsageError) -> String {
        switch arguments.operands.count {
        case 0: throw UsageError(message: "missing rule", subcommand: subcommand)
        case 1: return arguments.operands[0]
        default:
            throw UsageError(
                message: "expected one rule, got \(arguments.operands.count) (quote the rule as one argument)",
                subcommand: subcommand)
        }
    }

    func argumentValues(_ text: String?) throws(CommandLineIOError) -> [Value] {
        guard let text else { return [] }
        guard case .array(let values) = try value(ofJSON: Array(text.utf8), from: "--args", expecting: "array") else {
            return []
        }
        return values
    }

    func variableValues(_ text: String?) throws(CommandLineIOError) -> [String: Value] {
        guard let text else { return [:] }
        guard case .dictionary(let values) = try value(ofJSON: Array(text.utf8), from: "--vars", expecting: "object")
        else { return [:] }
        return values
    }

    mutating func objectValue(_ source: String?) throws(CommandLineIOError) -> Value {
        guard let source else { return .nil }
        let bytes = source == "-" ? try readAll(from: &input) : try readFile(atPath: source)
        let origin = source == "-" ? "--object (standard input)" : "--object '\(source)'"
        return try value(ofJSON: bytes, from: origin, expecting: nil)
    }

    /// Parses and converts JSON from an option, checking its top-level type.
    /// The JSON document in `bytes` as a value; `maximumElements` bounds a root array (see
    /// `JSON.parse`), and `tooMany` is the error for one that holds more.
    func value(
        ofJSON bytes: [UInt8], from origin: String, expecting type: String?, maximumElements: Int = .max,
        tooMany: String = ""
    ) throws(CommandLineIOError) -> Value {
        let json: JSON
        do throws(JSONParseError) {
            json = try JSON.parse(bytes, maximumRootElements: maximumElements)
        } catch {
            if error.exceedsRootElementLimit { throw CommandLineIOError("\(origin): \(tooMany)") }
            throw CommandLineIOError("\(origin): invalid JSON: \(error)")
        }
        if let type, json.typeName != type {
            throw CommandLineIOError("\(origin) must be a JSON \(type), found \(json.typeName)")
        }
        do throws(JSONConversionError) {
            return try Value(json: json)
        } catch {
            throw CommandLineIOError("\(origin): invalid value: \(error)")
        }
    }

    mutating func report(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics {
            errorOutput.write(diagnostic.rendered(colored: tool.colorDiagnostics) + "\n")
        }
    }
}
