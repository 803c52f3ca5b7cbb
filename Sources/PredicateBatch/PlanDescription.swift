import PredicateSyntax

extension Plan: CustomStringConvertible {
    /// The plan as an indented tree, one node a line.
    var description: String {
        var lines: [String] = []
        describe(root, depth: 0, into: &lines)
        return lines.joined(separator: "\n")
    }

    private func describe(_ node: PlanNode, depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        switch node {
        case .constant(let flag):
            lines.append(indent + (flag ? "TRUE" : "FALSE"))
        case .and(let left, let right), .or(let left, let right):
            if case .and = node { lines.append(indent + "AND") } else { lines.append(indent + "OR") }
            describe(left, depth: depth + 1, into: &lines)
            describe(right, depth: depth + 1, into: &lines)
        case .not(let operand):
            lines.append(indent + "NOT")
            describe(operand, depth: depth + 1, into: &lines)
        case .compare(let leaf):
            let column = "column \(leaf.column) (\(Plan.format(columns[leaf.column])))"
            let op = (leaf.quantifier == .direct ? "" : leaf.quantifier.rawValue + " ") + leaf.op.rawValue
            lines.append(
                indent + "COMPARE " + (leaf.constantOnLeft ? "constant \(op) \(column)" : "\(column) \(op) constant"))
        case .subquery(let leaf):
            lines.append(
                indent
                    + "SUBQUERY over column \(leaf.collection) (\(Plan.format(columns[leaf.collection]))), @count \(leaf.op.rawValue) constant"
            )
            for line in leaf.inner.description.split(separator: "\n") {
                lines.append(indent + "  " + line)
            }
        case .scalar(let region):
            lines.append(indent + "SCALAR \(region.program.code.count - 1) instructions")
        }
    }

    private static func format(_ path: [KeyComponent]) -> String {
        path.map { component in
            switch component {
            case .key(let key): return key
            case .variable(let name): return "$" + name
            case .field(let field): return field.key
            }
        }.joined(separator: ".")
    }
}
