import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension TranslationWalk {
    /// The UTI operators without this package's functions: `UTI-EQUALS` is equality ignoring
    /// ASCII case, and `UTI-CONFORMS-TO` an `IN` list of every identifier the type table makes
    /// conform (plus the constant itself, which any undeclared identifier conforms to when equal
    /// to it). `lower()` under the `C` collation folds ASCII only, as the language does.
    mutating func utiOnPostgres(
        _ column: ColumnOperand, _ op: ComparisonOperator, _ identifier: String, _ parameter: SQLFragment
    ) -> Outcome {
        let lowered = "lower(" + column.ref + ")"
        if op == .utiEquals { return .exact(guarded(column, lowered + " = lower(" + parameter + ")")) }
        let registry = environment.uniformTypes
        // Undeclared `dyn.` identifiers conform to `public.data` and its ancestors; no list names them.
        if registry.conforms("dyn.unknown", to: identifier) { return .opaque(mayRaise: false) }
        var known = Set(registry.declaredIdentifiers)
        for declared in registry.declaredIdentifiers { known.formUnion(registry.ancestors(of: declared)) }
        let conforming = known.filter { registry.conforms($0, to: identifier) }.map(asciiLowercased).sorted()
        var parts: [SQLFragment] = [lowered + " = lower(" + parameter + ")"]
        if !conforming.isEmpty {
            let list = SQLFragment.joined(conforming.map { .parameter(.text($0)) }, separator: ", ")
            parts.append(lowered + " IN (" + list + ")")
        }
        return .exact(guarded(column, .any(parts)))
    }

    private func asciiLowercased(_ text: String) -> String {
        String(
            decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self
        )
    }
}
