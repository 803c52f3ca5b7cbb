import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension Explanation {
    /// The explanation as an indented tree, one node a line: each clause's outcome (`true`,
    /// `false`, `= value`, `error`, `skipped`) and its text in `source`, the rule it explains.
    /// With `colored`, outcomes use ANSI colours. `predicate explain` prints this.
    public func text(source: String, colored: Bool = false) -> String {
        ExplanationRenderer(source: source, colored: colored).tree(self)
    }

    /// The explanation as a JSON document: `{"rule", "result", "error", "tree"}`, each node
    /// `{"kind", "text", "start", "end", "outcome", "value"?, "error"?, "children"}`, collections
    /// cut to ``maximumExplainedElements`` elements. `predicate explain --json` prints this.
    public func json(source: String) -> JSON {
        ExplanationRenderer(source: source, colored: false).document(self)
    }
}

/// Explanations as an indented tree of text or as JSON.
package struct ExplanationRenderer {
    let source: String
    let colored: Bool

    /// A renderer for explanations of the rule `source`; with `colored`, ANSI colours.
    package init(source: String, colored: Bool) {
        self.source = source
        self.colored = colored
    }

    /// The longest value shown in the text tree; JSON output shows the first
    /// ``Explanation/maximumExplainedElements`` elements of each collection instead.
    package static let maximumValueWidth = 60

    package func tree(_ root: Explanation) -> String {
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

    package func shortValue(_ value: Value) -> String {
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
    package func excerpt(_ range: SourceRange) -> String {
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
    package func boundedJSON(_ value: Value) -> JSON {
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
    package static func count(_ value: Value) -> Int? {
        switch value {
        case .array(let elements), .set(let elements): return elements.count
        case .dictionary(let entries): return entries.count
        default: return nil
        }
    }

    package func document(_ root: Explanation) -> JSON {
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
