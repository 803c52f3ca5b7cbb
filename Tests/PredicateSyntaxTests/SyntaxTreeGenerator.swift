import PredicateValue

@testable import PredicateSyntax

// MARK: - Random numbers

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator whose output depends only on the
/// seed, so a failing case replays identically on every platform and toolchain (the standard
/// library's `random(in:using:)` algorithms are not guaranteed to stay the same).
struct TreeRandom {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`; `bound` must be positive. The modulo bias does not matter here.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with probability `numerator / denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }

    /// The seed of case `index` of a run started from `seed`: replaying that one case needs only
    /// this number (`ROUNDTRIP_SEED=<it> ROUNDTRIP_COUNT=1`).
    static func caseSeed(_ seed: UInt64, index: Int) -> UInt64 {
        var mixer = TreeRandom(seed: seed &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
        return index == 0 ? seed : mixer.next()
    }
}

// MARK: - Vocabulary

/// The words and values the generator draws from. Each list exercises one printing rule.
enum GeneratorVocabulary {
    /// Keys that print bare.
    static let plainKeys = [
        "a", "b", "name", "firstName", "contentType", "_private", "x1", "e5", "now", "sum", "uti", "TERNARY",
        "ternary", "ключ", "名前", "café", "ANYKEYS", "selfish", "INDEX", "K",
    ]
    /// Keys spelled like reserved words (any letter case): they print as `#word`.
    static let reservedKeys: [String] =
        Keyword.allCases.map(\.rawValue).filter { !$0.contains("-") }
        + ["size", "Size", "self", "first", "last", "like", "in", "anyKey", "truepredicate", "minus", "apply"]
    /// `@`-prefixed keys: they print bare, with the `@`.
    static let atKeys = ["@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfObjects", "@size", "@SELF"]
    /// Keys that no identifier can spell: they print as string literals.
    static let quotedKeys = [
        "com.example.testBit", "with space", "", "a-b", "1abc", "quote\"d", "single'quote", "back\\slash",
        "line\nbreak", "tab\there", "@", "@1", "#x", "$x", "%K", "%@", "🙂", "UTI-CONFORMS-TO", "UTI-EQUALS",
        "e\u{301}", "a:b", "ANY thing", "a.b.c", "(", "\u{0}", "\r\n",
    ]
    /// Variable names: identifiers, some of them reserved words (printed `$#word`).
    static let variableNames = [
        "x", "item", "fileproviderItem", "_v1", "ключ", "size", "ANY", "self", "SUBQUERY", "now", "TERNARY",
    ]
    /// Selector names for `FUNCTION(receiver, 'selector', …)`.
    static let invokeSelectors = [
        "lastPathComponent", "stringByAppendingString:", "pow:", "compare:options:", "a\"b\\c", "", "with space",
        "é:", "valueForKeyPath:", "valueForKeyPath:",
    ]
    /// Pieces that random string constants are glued from.
    static let stringPieces = [
        "a", "Hello", " ", "'", "\"", "\\", "\n", "\r\n", "\r", "\t", "\u{0}", "\u{1}", "\u{7F}", "%@", "%K", "%%",
        "$x", "#size", "é", "e\u{301}", "ß", "漢字", "🙂", "👨‍👩‍👧", "\u{FEFF}", "\u{2028}", "\u{FFFD}", "\\u0041", "*?",
        "\\n", "''", "\"\"", "TRUEPREDICATE", ")", "(",
    ]
}

// MARK: - Trees

/// Generates random well-formed syntax trees whose canonical print parses back to the same tree.
///
/// The shapes SPEC §3.9b documents as not round-tripping are never produced: boolean constants
/// (they print as `1`/`0`), `AND`/`OR` with fewer than two operands, constants of kind `null`,
/// date, data, array and dictionary, NaN and infinities, unsigned integers that fit in `Int64`
/// (they come back as `int`), options on operators that drop them (`BETWEEN`, the UTI
/// operators, `TOKENMATCHES`) and `w` on operators whose printer drops it.
struct SyntaxTreeGenerator {
    var random: TreeRandom

    init(seed: UInt64) { random = TreeRandom(seed: seed) }

    /// A predicate whose nesting is at most `depth` predicate or expression levels.
    mutating func predicate(depth: Int) -> PredicateNode {
        guard depth > 0 else {
            return random.chance(1, in: 6) ? PredicateNode(.constant(random.chance(1, in: 2))) : comparison(depth: 0)
        }
        switch random.below(20) {
        case 0: return PredicateNode(.constant(random.chance(1, in: 2)))
        case 1, 2: return PredicateNode(.not(predicate(depth: depth - 1)))
        case 3, 4, 5: return PredicateNode(.and(operands(depth: depth - 1)))
        case 6, 7, 8: return PredicateNode(.or(operands(depth: depth - 1)))
        default: return comparison(depth: depth - 1)
        }
    }

    private mutating func operands(depth: Int) -> [PredicateNode] {
        (0..<(2 + random.below(2))).map { _ in predicate(depth: depth) }
    }

    private mutating func comparison(depth: Int) -> PredicateNode {
        let op = random.pick(ComparisonOperator.allCases)
        let quantifier: Quantifier = random.chance(2, in: 3) ? .direct : random.pick([.any, .all])
        var options: ComparisonOptions = []
        if op.usesOptions, random.chance(1, in: 3) {
            for (_, option) in ComparisonOptions.letters where random.chance(1, in: 2) {
                if option != .widthInsensitive || op.keepsWidthOption { options.insert(option) }
            }
        }
        let lhs = expression(depth: depth)
        let rhs = expression(depth: depth)
        return PredicateNode(.comparison(Comparison(lhs, op, rhs, quantifier: quantifier, options: options)))
    }

    /// An expression whose nesting is at most `depth` levels.
    mutating func expression(depth: Int) -> ExpressionNode {
        guard depth > 0 else { return leaf() }
        let inner = depth - 1
        switch random.below(26) {
        case 0...3:
            return leaf()
        case 4, 5:
            return keyPath(base: random.chance(1, in: 2) ? ExpressionNode(.evaluatedObject) : expression(depth: inner))
        case 6...9:
            let function = random.pick(BuiltinFunction.all)
            return ExpressionNode(
                .function(function.selector, (0..<function.arity).map { _ in expression(depth: inner) }))
        case 10, 11:
            let symbol = random.pick(BuiltinFunction.infixOperators)
            return ExpressionNode(.function(symbol.selector, [expression(depth: inner), expression(depth: inner)]))
        case 12:
            let arguments = (0..<random.below(4)).map { _ in expression(depth: inner) }
            let selector = random.pick(GeneratorVocabulary.invokeSelectors)
            return ExpressionNode(.invoke(receiver: expression(depth: inner), selector: selector, arguments: arguments))
        case 13, 14:
            return ExpressionNode(.aggregate((0..<random.below(5)).map { _ in expression(depth: inner) }))
        case 15, 16:
            let spec: IndexSpec
            switch random.below(5) {
            case 0: spec = .first
            case 1: spec = .last
            case 2: spec = .size
            default: spec = .expression(expression(depth: inner))
            }
            return ExpressionNode(.index(expression(depth: inner), spec))
        case 17:
            let collection = expression(depth: inner)
            let variable = random.pick(GeneratorVocabulary.variableNames)
            return ExpressionNode(
                .subquery(collection: collection, variable: variable, predicate: predicate(depth: inner)))
        case 18:
            let condition = predicate(depth: inner)
            return ExpressionNode(.ternary(condition, expression(depth: inner), expression(depth: inner)))
        case 19:
            let type =
                random.chance(1, in: 2) ? ExpressionNode(.constant(.string("NSNumber"))) : expression(depth: inner)
            return ExpressionNode(.cast(expression(depth: inner), type))
        case 20, 21:
            let variable = random.pick(GeneratorVocabulary.variableNames)
            return ExpressionNode(.assignment(variable: variable, expression(depth: inner)))
        case 22, 23:
            let op = random.pick(SetOperator.allCases)
            return ExpressionNode(.setOperation(op, expression(depth: inner), expression(depth: inner)))
        default:
            return ExpressionNode(.constant(constant()))
        }
    }

    /// An expression with no sub-expressions (besides the implicit `SELF` of a key path).
    private mutating func leaf() -> ExpressionNode {
        switch random.below(12) {
        case 0, 1, 2: return ExpressionNode(.constant(constant()))
        case 3: return ExpressionNode(.evaluatedObject)
        case 4: return ExpressionNode(.variable(random.pick(GeneratorVocabulary.variableNames)))
        case 5: return ExpressionNode(.anyKey)
        case 6: return ExpressionNode(.function(random.pick(["now", "random"]), []))
        default: return keyPath(base: ExpressionNode(.evaluatedObject))
        }
    }

    private mutating func keyPath(base: ExpressionNode) -> ExpressionNode {
        let components = (0..<(1 + random.below(3))).map { _ in keyComponent() }
        return ExpressionNode(.keyPath(base: base, components: components))
    }

    mutating func keyComponent() -> KeyComponent {
        switch random.below(12) {
        case 0, 1: return .key(random.pick(GeneratorVocabulary.reservedKeys))
        case 2: return .key(random.pick(GeneratorVocabulary.atKeys))
        case 3, 4: return .key(random.pick(GeneratorVocabulary.quotedKeys))
        case 5: return .variable(random.pick(GeneratorVocabulary.variableNames))
        case 6: return .key(identifier())
        default: return .key(random.pick(GeneratorVocabulary.plainKeys))
        }
    }

    /// A random ASCII C identifier.
    private mutating func identifier() -> String {
        let first = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
        let rest = first + Array("0123456789")
        return String(random.pick(first)) + String((0..<random.below(8)).map { _ in random.pick(rest) })
    }

    /// A constant of a kind that round-trips: int, uint above `Int64.max`, finite double, string, nil.
    mutating func constant() -> Value {
        switch random.below(14) {
        case 0: return .nil
        case 1, 2: return .int(Int64(random.below(2001) - 1000))
        case 3:
            return .int(random.pick([0, 1, -1, .max, .min, .min + 1, 4_294_967_296, -4_294_967_297]))
        case 4: return .int(Int64(bitPattern: random.next()))
        case 5:
            let value = UInt64(Int64.max) + 1 + random.next() % (UInt64.max - UInt64(Int64.max))
            return .uint(random.chance(1, in: 4) ? random.pick([UInt64(Int64.max) + 1, .max]) : value)
        case 6, 7: return .double(double())
        default: return .string(string())
        }
    }

    private mutating func double() -> Double {
        switch random.below(4) {
        case 0:
            return random.pick([
                0.0, -0.0, 0.5, -1.5, 0.1, 1e-300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e16, 1e15,
                123_456.789, .pi,
                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 9.2e-5, 1.0, 100.0,
            ])
        case 1:
            return Double(random.below(20001) - 10000) / 100
        default:
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite { return value }
            }
        }
    }

    private mutating func string() -> String {
        String((0..<random.below(6)).map { _ in random.pick(GeneratorVocabulary.stringPieces) }.joined())
    }
}

// MARK: - Coverage

/// Which cases of the syntax tree a set of generated trees exercised, by name.
///
/// The switches are exhaustive on purpose: a new case in the syntax tree fails to compile here
/// until the generator and this census learn about it.
struct TreeCoverage {
    private(set) var seen: Set<String> = []

    /// Every name ``record(_:)-(PredicateNode)`` can produce, which a big enough run must all see.
    static let expected: Set<String> = {
        var names: Set<String> = [
            "predicate.constant", "predicate.not", "predicate.and", "predicate.or", "predicate.comparison",
            "expression.constant", "expression.evaluatedObject", "expression.variable", "expression.keyPath",
            "expression.function", "expression.invoke", "expression.aggregate", "expression.index",
            "expression.subquery", "expression.ternary", "expression.cast", "expression.assignment",
            "expression.setOperation", "expression.anyKey",
            "key.plain", "key.reserved", "key.at", "key.quoted", "key.variable", "variable.reserved",
            "index.first", "index.last", "index.size", "index.expression",
            "value.nil", "value.int", "value.negativeInt", "value.uint", "value.double", "value.negativeDouble",
            "value.string", "value.escapedString", "value.multilineString", "value.nonASCIIString",
        ]
        names.formUnion(ComparisonOperator.allCases.map { "operator.\($0.rawValue)" })
        names.formUnion(Quantifier.allCases.map { "quantifier.\($0)" })
        names.formUnion(SetOperator.allCases.map { "set.\($0.rawValue)" })
        names.formUnion(ComparisonOptions.letters.map { "option.\($0.0)" })
        names.formUnion(BuiltinFunction.all.map { "function.\($0.selector)" })
        return names
    }()

    mutating func record(_ predicate: PredicateNode) {
        switch predicate.kind {
        case .constant:
            seen.insert("predicate.constant")
        case .not(let operand):
            seen.insert("predicate.not")
            record(operand)
        case .and(let operands):
            seen.insert("predicate.and")
            for part in operands { record(part) }
        case .or(let operands):
            seen.insert("predicate.or")
            for part in operands { record(part) }
        case .comparison(let comparison):
            seen.insert("predicate.comparison")
            seen.insert("operator.\(comparison.op.rawValue)")
            seen.insert("quantifier.\(comparison.quantifier)")
            for (letter, option) in ComparisonOptions.letters where comparison.options.contains(option) {
                seen.insert("option.\(letter)")
            }
            record(comparison.lhs)
            record(comparison.rhs)
        }
    }

    mutating func record(_ expression: ExpressionNode) {
        switch expression.kind {
        case .constant(let value):
            seen.insert("expression.constant")
            record(value)
        case .evaluatedObject:
            seen.insert("expression.evaluatedObject")
        case .variable(let name):
            seen.insert("expression.variable")
            recordVariable(name)
        case .keyPath(let base, let components):
            seen.insert("expression.keyPath")
            record(base)
            for part in components { record(part) }
        case .function(let selector, let arguments):
            seen.insert("expression.function")
            seen.insert("function.\(selector)")
            for part in arguments { record(part) }
        case .invoke(let receiver, _, let arguments):
            seen.insert("expression.invoke")
            record(receiver)
            for part in arguments { record(part) }
        case .aggregate(let elements):
            seen.insert("expression.aggregate")
            for part in elements { record(part) }
        case .index(let base, let spec):
            seen.insert("expression.index")
            record(base)
            switch spec {
            case .first: seen.insert("index.first")
            case .last: seen.insert("index.last")
            case .size: seen.insert("index.size")
            case .expression(let index):
                seen.insert("index.expression")
                record(index)
            }
        case .subquery(let collection, let variable, let predicate):
            seen.insert("expression.subquery")
            record(collection)
            recordVariable(variable)
            record(predicate)
        case .ternary(let condition, let whenTrue, let whenFalse):
            seen.insert("expression.ternary")
            record(condition)
            record(whenTrue)
            record(whenFalse)
        case .cast(let value, let type):
            seen.insert("expression.cast")
            record(value)
            record(type)
        case .assignment(let variable, let value):
            seen.insert("expression.assignment")
            recordVariable(variable)
            record(value)
        case .setOperation(let op, let lhs, let rhs):
            seen.insert("expression.setOperation")
            seen.insert("set.\(op.rawValue)")
            record(lhs)
            record(rhs)
        case .anyKey:
            seen.insert("expression.anyKey")
        }
    }

    private mutating func record(_ component: KeyComponent) {
        switch component {
        case .key(let key):
            if key.hasPrefix("@"), CanonicalPrinter.isIdentifier(key.dropFirst()) {
                seen.insert("key.at")
            } else if !CanonicalPrinter.isIdentifier(key) {
                seen.insert("key.quoted")
            } else {
                seen.insert(Keyword.isReserved(key) ? "key.reserved" : "key.plain")
            }
        case .variable(let name):
            seen.insert("key.variable")
            recordVariable(name)
        case .field:
            // Made only when a rule is bound to a schema; the parser reads it back as a key.
            seen.insert("key.field")
        }
    }

    private mutating func recordVariable(_ name: String) {
        if Keyword.isReserved(name) { seen.insert("variable.reserved") }
    }

    private mutating func record(_ value: Value) {
        switch value {
        case .nil: seen.insert("value.nil")
        case .int(let number): seen.insert(number < 0 ? "value.negativeInt" : "value.int")
        case .uint: seen.insert("value.uint")
        case .double(let number): seen.insert(number.sign == .minus ? "value.negativeDouble" : "value.double")
        case .string(let text):
            seen.insert("value.string")
            if text.contains("\"") || text.contains("\\") { seen.insert("value.escapedString") }
            if text.contains("\n") { seen.insert("value.multilineString") }
            if text.unicodeScalars.contains(where: { !$0.isASCII }) { seen.insert("value.nonASCIIString") }
        default:
            seen.insert("value.unexpected")
        }
    }
}
