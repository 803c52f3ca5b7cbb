import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension Session {
    // MARK: explain

    /// `predicate explain '<rule>' --object FILE|-`: the rule's tree with what each node
    /// produced, so the clause that made the rule false stands out.
    mutating func explain(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.explain + "\n")
            return 0
        }
        guard let (rule, parsed) = try parseRuleOperand(arguments, for: .explain) else { return 2 }
        guard case .predicate(let predicate) = parsed else {
            throw UsageError(message: "explain needs a predicate, not an expression", subcommand: .explain)
        }
        let object: Value
        let variables: [String: Value]
        if arguments.has("--object") && arguments.has("--items") {
            throw UsageError(message: "give either --object or --items, not both", subcommand: .explain)
        }
        do throws(CommandLineIOError) {
            variables = try variableValues(arguments.options["--vars"])
            if let itemsSource = arguments.options["--items"] {
                // An activation rule's SELF, with real items: their unknown keys are errors.
                object = FileProviderContext.activation(selectedItems: try selection(from: itemsSource))
            } else {
                object = try objectValue(arguments.options["--object"])
            }
        } catch {
            return inputError(error.message, json: arguments.has("--json"))
        }
        if case .array = object, arguments.has("--object") {
            errorOutput.write(
                colorize("predicate: error: ", .red)
                    + "--object got a JSON array: for a selection of items, use --items FILE (the rule then sees "
                    + "SELF = {fileproviderItems: [...]})\n")
            return 2
        }
        let limits = try stepLimits(arguments, for: .explain)
        let explanation = Interpreter(environment: EvaluationEnvironment(limits: limits))
            .explain(predicate, on: object, variables: variables)
        if arguments.has("--json") {
            output.write(explanation.json(source: rule).serialized + "\n")
        } else {
            output.write(explanation.text(source: rule, colored: tool.colorOutput))
        }
        switch explanation.outcome {
        case .truth(let flag):
            return flag ? 0 : 1
        case .error(let error):
            let diagnostic = evaluationDiagnostic(error, source: rule)
            report([
                Diagnostic(
                    .evaluationFailed(Self.withStepsHint(diagnostic.message)), range: diagnostic.range, source: rule)
            ])
            return 2
        case .value, .skipped:
            return 2
        }
    }
}
