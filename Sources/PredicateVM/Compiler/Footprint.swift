import PredicateSyntax

/// The key paths a rule reads, so that an engine holding its result re-evaluates it only when
/// a change touches one of them.
///
/// Paths start at the evaluated object (`documentSize`, `fileproviderItems.isUploaded`): a
/// `SUBQUERY` variable or a quantified path reads through its collection, so
/// `SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO)` reads `fileproviderItems` and
/// `fileproviderItems.isUploaded`. A path from a caller-supplied variable starts with `$name`;
/// a variable used as a key is written `$name` in place of the key. Keys read from a computed
/// value (`SUBQUERY(…).@count`, a function's result) add nothing: computing it read the input.
public enum Footprint {
    /// The distinct key paths `predicate` reads, sorted.
    public static func keyPaths(of predicate: PredicateNode) -> [String] {
        var collector = Collector()
        collector.visit(.predicate(predicate), scope: [:])
        return collector.paths.sorted()
    }

    /// The distinct key paths any of `predicates` reads, sorted.
    public static func keyPaths(of predicates: [PredicateNode]) -> [String] {
        var collector = Collector()
        for predicate in predicates { collector.visit(.predicate(predicate), scope: [:]) }
        return collector.paths.sorted()
    }

    private struct Collector {
        var paths = Set<String>()

        /// `scope`: the path each `SUBQUERY` variable in scope stands for (`nil` for a computed
        /// collection).
        mutating func visit(_ node: SyntaxNode, scope: [String: String?]) {
            if case .expression(let expression) = node {
                switch expression.kind {
                case .keyPath:
                    _ = path(of: expression, scope: scope)
                    return
                case .subquery(let collection, let variable, let predicate):
                    var inner = scope
                    inner[variable] = .some(path(of: collection, scope: scope))
                    visit(.predicate(predicate), scope: inner)
                    return
                default:
                    break
                }
            }
            for child in node.children { visit(child, scope: scope) }
        }

        /// The path `expression` denotes, recording it and every path read on the way; `nil`
        /// when it is not a path (its reads are still recorded).
        mutating func path(of expression: ExpressionNode, scope: [String: String?]) -> String? {
            switch expression.kind {
            case .evaluatedObject:
                return ""
            case .variable(let name):
                if let entry = scope[name] { return entry }
                return "$" + name
            case .keyPath(let base, let components):
                // Keys read from a computed value (a function's result, `SUBQUERY(…).@count`)
                // read nothing of the input beyond what computing it read.
                guard let prefix = path(of: base, scope: scope) else { return nil }
                let keys = components.map { component in
                    switch component {
                    case .key(let key): return key
                    case .field(let field): return field.key
                    case .variable(let name): return "$" + name
                    }
                }
                let joined = (prefix.isEmpty ? [] : [prefix]) + keys
                let result = joined.joined(separator: ".")
                if !result.isEmpty { paths.insert(result) }
                return result
            case .subquery:
                visit(.expression(expression), scope: scope)
                return nil
            default:
                for child in expression.kind.children { visit(child, scope: scope) }
                return nil
            }
        }
    }
}
