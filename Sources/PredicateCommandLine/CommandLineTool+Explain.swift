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
        let renderer = ExplanationRenderer(source: rule, colored: tool.colorOutput)
        if arguments.has("--json") {
            output.write(renderer.document(explanation).serialized + "\n")
        } else {
            output.write(renderer.tree(explanation))
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

/// Explanations as an indented tree of text or as JSON.
struct ExplanationRenderer {
    let source: String
    let colored: Bool

    /// The longest value shown in the text tree; JSON output shows the first
    /// ``Explanation/maximumExplainedElements`` elements of each collection instead.
    static let maximumValueWidth = 60

    func tree(_ root: Explanation) -> String {
        var lines: [String] = []
        render(root, prefix: "", childPrefix: "", into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private func render(_ node: Explanation, prefix: String, childPrefix: String, into lines: inout [String]) {
        var children = node.children
        var omitted = node.omittedChildren
        if node.kind == "element", let only = children.first, children.count == 1 {
            children = only.children  // the element's line already says what its predicate gave
            omitted = only.omittedChildren
        }
        lines.append(prefix + line(node))
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1 && omitted == 0
            render(
                child, prefix: childPrefix + (last ? "└─ " : "├─ "), childPrefix: childPrefix + (last ? "   " : "│  "),
                into: &lines)
        }
        if omitted > 0 {
            // Evaluated like the others, but not recorded: an explanation stays bounded.
            lines.append(childPrefix + "└─ " + paint("… \(omitted) more not shown", .dim))
        }
    }

    private func line(_ node: Explanation) -> String {
        let text = node.kind == "element" ? "element " + shortValue(node.element ?? .nil) : excerpt(node.range)
        switch node.outcome {
        case .truth(let flag):
            return paint(flag ? "true " : "false", flag ? .green : .red) + "  " + text
        case .value(let value):
            return text + "  " + paint("= " + shortValue(value), .cyan)
        case .error(let error):
            // The message once, where the error arose; the nodes above only pass it on.
            guard error.range == nil || error.range == node.range else { return paint("error", .red) + "  " + text }
            return paint("error", .red) + "  " + text + paint(": " + error.message, .red)
        case .skipped:
            return paint("skipped  " + text + " (not evaluated)", .dim)
        }
    }

    private func paint(_ text: String, _ color: TerminalColor) -> String { colored ? color.wrap(text) : text }

    func shortValue(_ value: Value) -> String {
        let text = compact(value)
        guard text.count > Self.maximumValueWidth else { return text }
        return String(text.prefix(Self.maximumValueWidth - 1)) + "…"
    }

    /// JSON, except that host objects (File Provider items) show as `<Type identifier>`: their
    /// dozens of properties would hide the value's shape.
    private func compact(_ value: Value) -> String {
        switch value {
        case .nil: return "nil"
        case .object(let object):
            let identifier = object.schema.fields.firstIndex { $0.name == "itemIdentifier" }
                .map { object.value(atSlot: $0) }
            if case .string(let name)? = identifier { return "<\(object.schema.typeName) \(name)>" }
            return "<\(object.schema.typeName)>"
        case .array(let elements), .set(let elements):
            // Only as many elements as the line can show: a selection may hold a million.
            let shown = elements.prefix(Self.maximumValueWidth).map(compact).joined(separator: ",")
            return "[" + shown + (elements.count > Self.maximumValueWidth ? ",…" : "") + "]"
        default: return JSON(value).serialized
        }
    }

    /// The rule's text under `range` (UTF-8 offsets), on one line.
    func excerpt(_ range: SourceRange) -> String {
        let bytes = Array(source.utf8)
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self).split(whereSeparator: \.isNewline)
            .joined(separator: " ")
    }

    /// A value as JSON with every collection cut to its first
    /// ``Explanation/maximumExplainedElements`` elements, as the text tree shows it: a value of a
    /// 100,000-item selection is otherwise written whole at every node that read it.
    /// ``count(_:)`` gives the full count.
    func boundedJSON(_ value: Value) -> JSON {
        boundedJSON(value, depth: 0)
    }

    private func boundedJSON(_ value: Value, depth: Int) -> JSON {
        let limit = Explanation.maximumExplainedElements
        switch value {
        case .array(let elements), .set(let elements):
            guard depth < 32 else { return .array([]) }
            return .array(elements.prefix(limit).map { boundedJSON($0, depth: depth + 1) })
        case .dictionary(let entries):
            guard depth < 32 else { return .object([]) }
            return .object(
                entries.keys.sorted().prefix(limit).map { key in
                    (key, boundedJSON(entries[key] ?? .nil, depth: depth + 1))
                })
        default:
            return JSON(value)
        }
    }

    /// The number of elements of a collection value.
    static func count(_ value: Value) -> Int? {
        switch value {
        case .array(let elements), .set(let elements): return elements.count
        case .dictionary(let entries): return entries.count
        default: return nil
        }
    }

    func document(_ root: Explanation) -> JSON {
        var result = JSON.null
        var error = JSON.null
        switch root.outcome {
        case .truth(let flag): result = .bool(flag)
        case .error(let failure): error = .string(failure.message)
        case .value, .skipped: break
        }
        return .object([("rule", .string(source)), ("result", result), ("error", error), ("tree", node(root))])
    }

    private func node(_ node: Explanation) -> JSON {
        var members: [(key: String, value: JSON)] = [
            ("kind", .string(node.kind)), ("text", .string(excerpt(node.range))),
            ("start", .number(JSON.Number(Int64(node.range.lowerBound)))),
            ("end", .number(JSON.Number(Int64(node.range.upperBound)))),
        ]
        if let element = node.element { members.append(("element", boundedJSON(element))) }
        switch node.outcome {
        case .truth(let flag):
            members.append(("outcome", .string(flag ? "true" : "false")))
        case .value(let value):
            members.append(("outcome", .string("value")))
            members.append(("value", boundedJSON(value)))
            if let count = Self.count(value), count > Explanation.maximumExplainedElements {
                members.append(("valueCount", .number(JSON.Number(Int64(count)))))
            }
        case .error(let error):
            members.append(("outcome", .string("error")))
            members.append(("error", .string(error.message)))
        case .skipped:
            members.append(("outcome", .string("skipped")))
        }
        members.append(("children", .array(node.children.map(self.node))))
        if node.omittedChildren > 0 {
            members.append(("omitted", .number(JSON.Number(Int64(node.omittedChildren)))))
        }
        return .object(members)
    }
}
