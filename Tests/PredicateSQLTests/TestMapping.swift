import PredicateSQL
import PredicateSyntax
import PredicateValue

/// The mapping every SQL test uses: each column type, a JSON dictionary and a child table with a
/// nullable and a non-null column.
enum TestMapping {
    static let mapping = TableMapping(
        table: "items",
        columns: [
            "bytes": ColumnMapping(column: "bytes", type: .integer),
            "score": ColumnMapping(column: "score", type: .real),
            "name": ColumnMapping(column: "name", type: .text),
            "flag": ColumnMapping(column: "flag", type: .boolean),
            "modified": ColumnMapping(column: "modified", type: .date),
            "kind": ColumnMapping(column: "kind", type: .text),
        ],
        jsonColumns: ["userInfo": "user_info"],
        children: [
            "tags": ChildTableMapping(
                table: "tags",
                columns: [
                    "label": ColumnMapping(column: "label", type: .text),
                    "weight": ColumnMapping(column: "weight", type: .integer, isNullable: false),
                ])
        ])

    /// `SELF.key…` as a tree.
    static func key(_ keys: String...) -> ExpressionNode {
        ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: keys.map { .key($0) }))
    }

    static func constant(_ value: Value) -> ExpressionNode { ExpressionNode(.constant(value)) }

    static func compare(
        _ lhs: ExpressionNode, _ op: ComparisonOperator, _ rhs: ExpressionNode, _ quantifier: Quantifier = .direct,
        _ options: ComparisonOptions = []
    ) -> PredicateNode {
        PredicateNode(.comparison(Comparison(lhs, op, rhs, quantifier: quantifier, options: options)))
    }
}

/// A small deterministic generator (SplitMix64), so that a failing case can be replayed.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
