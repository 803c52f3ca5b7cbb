import PredicateSyntax
import PredicateValue

extension SQLTranslation {
    /// The translation as `predicate sql --json` prints it:
    /// `{"sql": …, "parameters": […], "exact": …, "residual": "<rule>" | null, "functions": […]}`.
    ///
    /// The residual is printed to parse back to the same rule (`1e6` stays `1000000.0`): it is
    /// what a caller re-checks each row with, so its text must keep the rule's meaning.
    public var json: JSON {
        let values: [JSON] = parameters.map { parameter in
            switch parameter {
            case .null: return .null
            case .integer(let number): return .number(JSON.Number(number))
            case .real(let number): return JSON.Number(number).map(JSON.number) ?? .string(String(number))
            case .text(let text): return .string(text)
            }
        }
        return .object([
            (key: "sql", value: .string(sql)),
            (key: "parameters", value: .array(values)),
            (key: "exact", value: .bool(isExact)),
            (key: "residual", value: residual.map { .string($0.format(.roundTripSafe)) } ?? .null),
            (key: "functions", value: .array(functions.map(JSON.string))),
        ])
    }

    /// The clause, its parameters and the residual for a reader; with `source`, the rule's text,
    /// each comparison marked exact or re-checked (`predicate sql --explain`).
    public func explained(source: String? = nil) -> String {
        var lines = ["WHERE " + sql]
        for (index, parameter) in parameters.enumerated() {
            lines.append("  \(dialect == .sqlite ? "?" : "$")\(index + 1) = \(parameter)")
        }
        lines.append("residual: " + (residual?.format(.roundTripSafe) ?? "none (exact)"))
        if !functions.isEmpty { lines.append("functions: " + functions.joined(separator: ", ")) }
        if let source {
            let bytes = Array(source.utf8)
            for comparison in comparisons {
                let lower = min(max(0, comparison.range.lowerBound), bytes.count)
                let upper = min(max(lower, comparison.range.upperBound), bytes.count)
                let text = String(decoding: bytes[lower..<upper], as: UTF8.self)
                lines.append((comparison.isExact ? "  exact       " : "  re-checked  ") + text)
            }
        }
        return lines.joined(separator: "\n")
    }
}
