/// The built-in functions callable as `name(args)` or `selector:(args)` (SPEC §4.8), by selector.
///
/// This table is the parser's whole knowledge of functions: a call to any other name is a syntax
/// error, as on Apple's platforms. What the functions compute is the evaluators' business.
public struct BuiltinFunction: Hashable, Sendable {
    /// The Apple selector, for example `sum:` or `modulus:by:`; zero-argument functions have no colon.
    public let selector: String
    /// The number of arguments.
    public let arity: Int
    /// Whether several arguments are packed into one array (`max(1, 5, 10)` is `max({1, 5, 10})`).
    public let packsArguments: Bool
    /// The infix spelling Apple prints for this selector, if any (`+` for `add:to:`).
    public let infixSymbol: String?

    init(_ selector: String, arity: Int, packsArguments: Bool = false, infix: String? = nil) {
        self.selector = selector
        self.arity = arity
        self.packsArguments = packsArguments
        self.infixSymbol = infix
    }

    /// Every built-in function.
    public static let all: [BuiltinFunction] = {
        let aggregates = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]
        let unary = [
            "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:", "abs:", "randomn:",
            "uppercase:", "lowercase:", "length:", "canonical:", "onesComplement:", "noindex:",
        ]
        let binary = ["modulus:by:", "distanceToLocation:fromLocation:"]
        var functions = aggregates.map { BuiltinFunction($0, arity: 1, packsArguments: true) }
        functions += unary.map { BuiltinFunction($0, arity: 1) }
        functions += binary.map { BuiltinFunction($0, arity: 2) }
        functions += ["random", "now"].map { BuiltinFunction($0, arity: 0) }
        functions += infixOperators.map { BuiltinFunction($0.selector, arity: 2, infix: $0.symbol) }
        return functions
    }()

    /// The infix operators and their selectors, loosest-binding group last (SPEC §3.4).
    public static let infixOperators: [(symbol: String, selector: String)] = [
        ("+", "add:to:"), ("-", "from:subtract:"), ("*", "multiply:by:"), ("/", "divide:by:"),
        ("**", "raise:toPower:"), ("&", "bitwiseAnd:with:"), ("|", "bitwiseOr:with:"),
        ("^", "bitwiseXor:with:"), ("<<", "leftshift:by:"), (">>", "rightshift:by:"),
    ]

    private static let bySelector: [String: BuiltinFunction] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.selector, $0) })

    /// The built-in function with this selector, if there is one.
    public static func named(_ selector: String) -> BuiltinFunction? { bySelector[selector] }

    /// The selector of the built-in function closest in spelling to `name`, for did-you-mean hints.
    static func suggestion(for name: String) -> String? {
        let lowered = name.lowercased()
        let stem = lowered.split(separator: ":").first.map(String.init) ?? lowered
        if let match = all.first(where: {
            $0.selector.lowercased().hasPrefix(stem + ":") || $0.selector.lowercased() == stem
        }) {
            return match.selector
        }
        // No selector is longer than 32 characters, so no name of more than 48 is within edit
        // distance `count / 3` of one. Without this guard a 1 MB name cost 45 edit distances of
        // a million columns each (35 s in a debug build).
        guard lowered.utf8.count <= 64 else { return nil }
        let scored = all.map { ($0.selector, editDistance(lowered, $0.selector.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, lowered.count / 3) else { return nil }
        return best.0
    }
}

/// Levenshtein distance over UTF-8 bytes, for did-you-mean suggestions on short names (shared by
/// the stages after the parser, hence `package`).
package func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
