/// Parses the subset of ICU regular-expression syntax the automaton runs; anything else is
/// `nil`, and the pattern is left to `NSRegularExpression` (back-references, look-around,
/// possessive and atomic groups, inline flags other than a leading `(?i)`, `\b`, `\p{…}`,
/// nested or intersected classes, anchors anywhere but the ends, and all that is rarer).
///
/// The pattern has already compiled in ICU, so the parser need not report errors; it only has
/// to refuse, never to misread: whatever it is unsure of, it refuses.
struct RegexParser {
    /// What a parse yields.
    struct Parsed {
        let root: RegexNode
        /// Under `(?i)` or the `[c]` option.
        let caseInsensitive: Bool
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var caseInsensitive: Bool
    /// Group nesting, bounded so that a deep pattern cannot exhaust the stack.
    private var depth = 0
    private static let maximumDepth = 64
    /// The largest bound of a counted repetition the automaton expands.
    static let maximumCount = 1_000

    private init(_ pattern: String, caseInsensitive: Bool) {
        scalars = Array(pattern.unicodeScalars)
        self.caseInsensitive = caseInsensitive
    }

    /// `pattern` parsed, or `nil` when the automaton does not run it.
    static func parse(_ pattern: String, caseInsensitive: Bool) -> Parsed? {
        var parser = RegexParser(pattern, caseInsensitive: caseInsensitive)
        if parser.scalars.starts(with: Array("(?i)".unicodeScalars)) {
            parser.caseInsensitive = true
            parser.position = 4
        }
        guard let root = parser.alternation(topLevel: true), parser.position == parser.scalars.count else {
            return nil
        }
        return Parsed(root: root, caseInsensitive: parser.caseInsensitive)
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func alternation(topLevel: Bool) -> RegexNode? {
        var branches: [RegexNode] = []
        while true {
            guard let branch = sequence(topLevel: topLevel) else { return nil }
            branches.append(branch)
            guard current == "|" else { break }
            position += 1
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence(topLevel: Bool) -> RegexNode? {
        var items: [RegexNode] = []
        // `^` first and `$` last in a top-level branch hold at the ends of the string, which a
        // whole-string match covers anyway; anywhere else they are ICU's multi-line anchors.
        if topLevel && current == "^" { position += 1 }
        while let scalar = current, scalar != "|", scalar != ")" {
            if scalar == "$" {
                position += 1
                guard topLevel, current == nil || current == "|" else { return nil }
                break
            }
            guard let atom = atom() else { return nil }
            guard let quantified = quantified(atom) else { return nil }
            items.append(quantified)
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .sequence(items)
        }
    }

    private mutating func atom() -> RegexNode? {
        guard let scalar = current else { return nil }
        position += 1
        switch scalar {
        case ".": return .unit(.any)
        case "(": return group()
        case "[": return characterClass().map { .unit($0) }
        case "\\":
            guard let item = escape(inClass: false) else { return nil }
            switch item {
            case .scalar(let value): return literal(value)
            case .property: return .unit(.set([item], negated: false))
            case .range: return nil
            }
        case "^", "$", "?", "*", "+", "{", "}", "]", ")", "|": return nil
        default: return literal(scalar)
        }
    }

    /// A literal scalar; under the case-insensitive flag only ASCII, whose case pairs are plain
    /// (a non-ASCII letter may fold to several characters in ICU).
    private func literal(_ scalar: Unicode.Scalar) -> RegexNode? {
        guard !caseInsensitive || scalar.isASCII else { return nil }
        return .unit(.scalar(scalar))
    }

    /// After `(`: `(?:…)` or a capturing group (captures do not change whether it matches).
    private mutating func group() -> RegexNode? {
        if current == "?" {
            guard position + 1 < scalars.count, scalars[position + 1] == ":" else { return nil }
            position += 2
        }
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        guard let inner = alternation(topLevel: false), current == ")" else { return nil }
        position += 1
        return inner
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy (`?` after it); possessive forms
    /// (`+` after it) and a second quantifier are refused.
    private mutating func quantified(_ atom: RegexNode) -> RegexNode? {
        let bounds: (Int, Int?)
        switch current {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        case "{":
            guard let counted = interval() else { return nil }
            bounds = counted
            position -= 1
        default: return atom
        }
        position += 1
        if current == "?" { position += 1 }
        if let next = current, next == "*" || next == "+" || next == "?" || next == "{" { return nil }
        // ICU leaves a loop whose body matched the empty string, which prunes paths an automaton
        // keeps (`(a*)*b`, `(x?)+?`): such loops are ICU's.
        if bounds.1 != 1 && atom.canBeEmpty { return nil }
        return .repeated(atom, minimum: bounds.0, maximum: bounds.1)
    }

    /// `{n}`, `{n,}` or `{n,m}` from `{`, leaving the position on `}`.
    private mutating func interval() -> (Int, Int?)? {
        position += 1
        guard let minimum = number() else { return nil }
        var maximum: Int? = minimum
        if current == "," {
            position += 1
            maximum = current == "}" ? nil : number()
            if maximum == nil && current != "}" { return nil }
        }
        guard current == "}", maximum.map({ $0 >= minimum }) ?? true else { return nil }
        position += 1
        return (minimum, maximum)
    }

    private mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while let scalar = current, ("0"..."9").contains(scalar) {
            value = value * 10 + Int(scalar.value - 48)
            digits += 1
            position += 1
            guard value <= Self.maximumCount else { return nil }
        }
        return digits > 0 ? value : nil
    }

    /// After `\`: a class escape or a literal.
    private mutating func escape(inClass: Bool) -> RegexClassItem? {
        guard let scalar = current else { return nil }
        position += 1
        switch scalar {
        case "d": return .property(.digit, negated: false)
        case "D": return caseInsensitive ? nil : .property(.digit, negated: true)
        case "w": return .property(.word, negated: false)
        case "W": return caseInsensitive ? nil : .property(.word, negated: true)
        case "s": return .property(.space, negated: false)
        case "S": return caseInsensitive ? nil : .property(.space, negated: true)
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "a": return .scalar("\u{07}")
        case "e": return .scalar("\u{1B}")
        default:
            // Escaped ASCII punctuation is itself; letters and digits are other escapes
            // (`\b`, `\1`, `\p`, `\Q`, `\x`, …), left to ICU.
            guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar),
                scalar.value > 0x20, scalar.value < 0x7F
            else { return nil }
            return .scalar(scalar)
        }
    }

    /// After `[`: a class of scalars, ranges and `\d`-style escapes, maybe negated (not under the
    /// case-insensitive flag, where ICU's case closure and complement interact). Nested classes,
    /// `&&`, `--`, POSIX names and a leading `]` are refused.
    private mutating func characterClass() -> RegexUnit? {
        var negated = false
        if current == "^" {
            guard !caseInsensitive else { return nil }
            negated = true
            position += 1
        }
        var items: [RegexClassItem] = []
        var first = true
        while let scalar = current, scalar != "]" || first {
            guard scalar != "]", scalar != "[", scalar != "&" else { return nil }
            first = false
            guard let item = classMember() else { return nil }
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                guard case .scalar(let lower) = item, let upperItem = classMember(),
                    case .scalar(let upper) = upperItem, lower.value <= upper.value
                else { return nil }
                items.append(.range(lower, upper))
            } else {
                items.append(item)
            }
        }
        guard current == "]", !items.isEmpty else { return nil }
        position += 1
        return .set(items, negated: negated)
    }

    /// One scalar or escape inside a class; a `-` is itself only next to the brackets.
    private mutating func classMember() -> RegexClassItem? {
        guard let scalar = current else { return nil }
        position += 1
        switch scalar {
        case "\\": return escape(inClass: true)
        case "[", "]", "&": return nil
        case "-":
            guard current == "]" || position == 1 || scalars[position - 2] == "[" || scalars[position - 2] == "^"
            else { return nil }
            return .scalar("-")
        default:
            guard !caseInsensitive || scalar.isASCII else { return nil }
            return .scalar(scalar)
        }
    }
}
