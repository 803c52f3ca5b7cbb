/// A reader for the W3C-style EBNF of `grammar.ebnf` (the notation of the XML specification,
/// section 6): `Name ::= expression` rules, `A?`, `A*`, `A+`, `A | B`, `A - B`, `( … )`, quoted
/// literals, `[…]` and `[^…]` character classes, `#xN` code points and `/* comments */`.
///
/// Test-only code: it knows exactly as much EBNF as the grammar uses, and reports anything else.

/// One expression of a rule's right-hand side.
indirect enum EBNFExpression: Hashable, Sendable {
    /// A quoted literal: a whole token in a syntactic rule, characters in a lexical rule.
    case literal(String)
    /// A reference to another rule by name.
    case reference(String)
    /// A character class `[…]`, `[^…]`, or a single `#xN` code point.
    case characterClass(CharacterClass)
    /// Items one after another.
    case sequence([EBNFExpression])
    /// One of several alternatives.
    case choice([EBNFExpression])
    /// `A?`
    case optional(EBNFExpression)
    /// `A*`
    case zeroOrMore(EBNFExpression)
    /// `A+`
    case oneOrMore(EBNFExpression)
    /// `A - B`: what `A` matches, except what `B` matches.
    case exclusion(EBNFExpression, EBNFExpression)

    /// The names of the rules this expression refers to, in order of appearance.
    var references: [String] {
        switch self {
        case .literal, .characterClass:
            return []
        case .reference(let name):
            return [name]
        case .sequence(let items), .choice(let items):
            return items.flatMap(\.references)
        case .optional(let inner), .zeroOrMore(let inner), .oneOrMore(let inner):
            return inner.references
        case .exclusion(let base, let excluded):
            return base.references + excluded.references
        }
    }

    /// Every literal in the expression.
    var literals: [String] {
        switch self {
        case .literal(let text):
            return [text]
        case .reference, .characterClass:
            return []
        case .sequence(let items), .choice(let items):
            return items.flatMap(\.literals)
        case .optional(let inner), .zeroOrMore(let inner), .oneOrMore(let inner):
            return inner.literals
        case .exclusion(let base, let excluded):
            return base.literals + excluded.literals
        }
    }
}

/// A set of code points: `[a-z_]`, `[^'\]`, `#x20`.
struct CharacterClass: Hashable, Sendable {
    /// `[^…]`: every code point except those listed.
    var negated: Bool
    /// The listed code points, as inclusive ranges.
    var ranges: [ClosedRange<UInt32>]

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar.value) } != negated
    }

    /// Whether every member is listed and ASCII, so members can be enumerated.
    var isSmallASCII: Bool {
        !negated && ranges.allSatisfy { $0.upperBound < 0x80 }
    }
}

/// One rule: `name ::= body`.
struct EBNFRule: Hashable, Sendable {
    /// How a rule's name classifies it (grammar.ebnf, "Conventions").
    enum Kind: Hashable, Sendable {
        /// CamelCase: tokens, with whitespace allowed between them.
        case syntactic
        /// UPPER_CASE: characters of one token, no whitespace inside.
        case lexical
    }

    var name: String
    var body: EBNFExpression
    var kind: Kind { EBNFRule.kind(of: name) }

    static func kind(of name: String) -> Kind {
        name.unicodeScalars.contains { ("a"..."z").contains($0) } ? .syntactic : .lexical
    }
}

/// What went wrong reading or using the grammar, with enough context to find it.
struct GrammarError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The rules of an EBNF file, in file order.
struct EBNFGrammar: Sendable {
    let rules: [EBNFRule]
    private let index: [String: Int]

    /// Reads EBNF source text.
    init(parsing text: String) throws(GrammarError) {
        var reader = EBNFReader(tokens: try EBNFTokenizer.tokens(of: text))
        let rules = try reader.rules()
        var index: [String: Int] = [:]
        for (position, rule) in rules.enumerated() {
            guard index[rule.name] == nil else { throw GrammarError("rule \(rule.name) is defined twice") }
            index[rule.name] = position
        }
        self.rules = rules
        self.index = index
    }

    /// The rule called `name`, if there is one.
    func rule(_ name: String) -> EBNFRule? {
        index[name].map { rules[$0] }
    }

    /// The names of all rules, in file order.
    var ruleNames: [String] { rules.map(\.name) }

    /// References to rules that are not defined, as `"Rule -> Missing"`.
    var undefinedReferences: [String] {
        rules.flatMap { rule in
            rule.body.references.filter { index[$0] == nil }.map { "\(rule.name) -> \($0)" }
        }
    }

    /// Syntactic rules referred to by lexical rules, as `"LEXICAL -> Syntactic"`: a token cannot
    /// contain whitespace-separated tokens.
    var lexicalRulesUsingSyntacticRules: [String] {
        rules.filter { $0.kind == .lexical }.flatMap { rule in
            rule.body.references.filter { EBNFRule.kind(of: $0) == .syntactic }.map { "\(rule.name) -> \($0)" }
        }
    }
}

// MARK: - Tokens

private enum EBNFToken: Equatable {
    case name(String)
    case definedAs
    case literal(String)
    case characterClass(CharacterClass)
    case leftParen
    case rightParen
    case bar
    case minus
    case question
    case star
    case plus
}

private enum EBNFTokenizer {
    static func tokens(of text: String) throws(GrammarError) -> [(token: EBNFToken, line: Int)] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [(token: EBNFToken, line: Int)] = []
        var position = 0
        var line = 1

        func at(_ offset: Int) -> Unicode.Scalar? {
            offset < scalars.count ? scalars[offset] : nil
        }

        while let scalar = at(position) {
            switch scalar {
            case "\n":
                line += 1
                position += 1
            case " ", "\t", "\r":
                position += 1
            case "/" where at(position + 1) == "*":
                position += 2
                while position < scalars.count, !(scalars[position] == "*" && at(position + 1) == "/") {
                    if scalars[position] == "\n" { line += 1 }
                    position += 1
                }
                guard position < scalars.count else { throw GrammarError("line \(line): unterminated comment") }
                position += 2
            case ":" where at(position + 1) == ":" && at(position + 2) == "=":
                tokens.append((.definedAs, line))
                position += 3
            case "\"", "'":
                let quote = scalar
                var end = position + 1
                while end < scalars.count, scalars[end] != quote, scalars[end] != "\n" { end += 1 }
                guard at(end) == quote else { throw GrammarError("line \(line): unterminated literal") }
                let literal = String(String.UnicodeScalarView(scalars[(position + 1)..<end]))
                guard !literal.isEmpty else { throw GrammarError("line \(line): empty literal") }
                tokens.append((.literal(literal), line))
                position = end + 1
            case "[":
                let (characterClass, end) = try readClass(scalars, from: position + 1, line: line)
                tokens.append((.characterClass(characterClass), line))
                position = end
            case "#":
                let (value, end) = try readCodePoint(scalars, from: position, line: line)
                tokens.append((.characterClass(CharacterClass(negated: false, ranges: [value...value])), line))
                position = end
            case "(":
                tokens.append((.leftParen, line))
                position += 1
            case ")":
                tokens.append((.rightParen, line))
                position += 1
            case "|":
                tokens.append((.bar, line))
                position += 1
            case "-":
                tokens.append((.minus, line))
                position += 1
            case "?":
                tokens.append((.question, line))
                position += 1
            case "*":
                tokens.append((.star, line))
                position += 1
            case "+":
                tokens.append((.plus, line))
                position += 1
            default:
                guard isNameCharacter(scalar) else {
                    throw GrammarError("line \(line): unexpected character '\(scalar)'")
                }
                var end = position
                while let next = at(end), isNameCharacter(next) { end += 1 }
                tokens.append((.name(String(String.UnicodeScalarView(scalars[position..<end]))), line))
                position = end
            }
        }
        return tokens
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// `#xHHHH` at `start`; returns the code point and the offset after it.
    private static func readCodePoint(
        _ scalars: [Unicode.Scalar], from start: Int, line: Int
    ) throws(GrammarError) -> (UInt32, Int) {
        guard start + 1 < scalars.count, scalars[start] == "#", scalars[start + 1] == "x" else {
            throw GrammarError("line \(line): expected '#x' and hexadecimal digits")
        }
        var end = start + 2
        var value: UInt32 = 0
        while end < scalars.count, let digit = UInt32(String(scalars[end]), radix: 16) {
            value = value * 16 + digit
            end += 1
            guard value <= 0x10FFFF else { throw GrammarError("line \(line): code point out of range") }
        }
        guard end > start + 2 else { throw GrammarError("line \(line): expected hexadecimal digits after '#x'") }
        return (value, end)
    }

    /// The body of `[…]` from just after `[`; returns the class and the offset after `]`.
    private static func readClass(
        _ scalars: [Unicode.Scalar], from start: Int, line: Int
    ) throws(GrammarError) -> (CharacterClass, Int) {
        var position = start
        var negated = false
        if position < scalars.count, scalars[position] == "^" {
            negated = true
            position += 1
        }
        func member() throws(GrammarError) -> UInt32 {
            guard position < scalars.count, scalars[position] != "\n" else {
                throw GrammarError("line \(line): unterminated character class")
            }
            if scalars[position] == "#", position + 1 < scalars.count, scalars[position + 1] == "x" {
                let (value, end) = try readCodePoint(scalars, from: position, line: line)
                position = end
                return value
            }
            position += 1
            return scalars[position - 1].value
        }
        var ranges: [ClosedRange<UInt32>] = []
        while position < scalars.count, scalars[position] != "]" {
            let lower = try member()
            if position + 1 < scalars.count, scalars[position] == "-", scalars[position + 1] != "]" {
                position += 1
                let upper = try member()
                guard lower <= upper else { throw GrammarError("line \(line): empty range in character class") }
                ranges.append(lower...upper)
            } else {
                ranges.append(lower...lower)
            }
        }
        guard position < scalars.count, !ranges.isEmpty else {
            throw GrammarError("line \(line): unterminated or empty character class")
        }
        return (CharacterClass(negated: negated, ranges: ranges), position + 1)
    }
}

// MARK: - Rules

private struct EBNFReader {
    let tokens: [(token: EBNFToken, line: Int)]
    var position = 0

    init(tokens: [(token: EBNFToken, line: Int)]) {
        self.tokens = tokens
    }

    private var current: EBNFToken? { position < tokens.count ? tokens[position].token : nil }

    private var line: Int { position < tokens.count ? tokens[position].line : (tokens.last?.line ?? 1) }

    /// Whether the tokens at the current position start a new rule (`Name ::=`).
    private var atRuleStart: Bool {
        guard case .name = current, position + 1 < tokens.count else { return false }
        return tokens[position + 1].token == .definedAs
    }

    mutating func rules() throws(GrammarError) -> [EBNFRule] {
        var rules: [EBNFRule] = []
        while position < tokens.count {
            guard case .name(let name) = current, atRuleStart else {
                throw GrammarError("line \(line): expected 'Name ::='")
            }
            position += 2
            let body = try choice()
            guard current == nil || atRuleStart else {
                throw GrammarError("line \(line): unexpected token in rule \(name)")
            }
            rules.append(EBNFRule(name: name, body: body))
        }
        return rules
    }

    private mutating func choice() throws(GrammarError) -> EBNFExpression {
        var alternatives = [try sequence()]
        while current == .bar {
            position += 1
            alternatives.append(try sequence())
        }
        return alternatives.count == 1 ? alternatives[0] : .choice(alternatives)
    }

    private mutating func sequence() throws(GrammarError) -> EBNFExpression {
        var items: [EBNFExpression] = []
        while let token = current, !atRuleStart {
            switch token {
            case .name, .literal, .characterClass, .leftParen:
                var item = try postfixed()
                if current == .minus {
                    position += 1
                    item = .exclusion(item, try postfixed())
                }
                items.append(item)
            default:
                guard !items.isEmpty else { throw GrammarError("line \(line): expected an item") }
                return items.count == 1 ? items[0] : .sequence(items)
            }
        }
        guard !items.isEmpty else { throw GrammarError("line \(line): expected an item") }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func postfixed() throws(GrammarError) -> EBNFExpression {
        var item = try primary()
        while let token = current {
            switch token {
            case .question: item = .optional(item)
            case .star: item = .zeroOrMore(item)
            case .plus: item = .oneOrMore(item)
            default: return item
            }
            position += 1
        }
        return item
    }

    private mutating func primary() throws(GrammarError) -> EBNFExpression {
        guard let token = current else { throw GrammarError("line \(line): unexpected end of grammar") }
        position += 1
        switch token {
        case .name(let name):
            return .reference(name)
        case .literal(let text):
            return .literal(text)
        case .characterClass(let characterClass):
            return .characterClass(characterClass)
        case .leftParen:
            let inner = try choice()
            guard current == .rightParen else { throw GrammarError("line \(line): expected ')'") }
            position += 1
            return inner
        default:
            throw GrammarError("line \(line): expected a name, a literal, a class or '('")
        }
    }
}
