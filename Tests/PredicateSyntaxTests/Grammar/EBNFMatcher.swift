/// The conventions grammar.ebnf states in its header comment and in rule comments, which EBNF
/// itself cannot express.
struct GrammarConventions: Sendable {
    /// The words matched in any letter case: the literals of `RESERVED_WORD`, plus `TERNARY` (a
    /// contextual keyword) and the two UTI operators ("one token, any letter case").
    let caseInsensitiveLiterals: Set<String>

    /// The lexical rule whose literals are the reserved words.
    static let reservedWordRule = "RESERVED_WORD"
    /// The lexical rule of selector-style function names (`modulus:by:`).
    static let selectorRule = "SELECTOR"
    /// The lexical rule of the whitespace allowed between the tokens of a syntactic rule.
    static let whitespaceRule = "WHITESPACE"
    /// `[#x80-#x10FFFF] /* with the Alphabetic property */`
    static let unicodeLetterRule = "UNICODE_LETTER"
    /// `[#x80-#x10FFFF] /* with Numeric_Type=Decimal */`
    static let unicodeDigitRule = "UNICODE_DIGIT"

    init(grammar: EBNFGrammar) {
        var words = Set(grammar.rule(GrammarConventions.reservedWordRule)?.body.literals ?? [])
        words.formUnion(["TERNARY", "UTI-CONFORMS-TO", "UTI-EQUALS"])
        caseInsensitiveLiterals = words
    }

    /// The refinement a rule comment adds to a rule's character class, if any.
    static func refinement(ofRule name: String) -> ((Unicode.Scalar) -> Bool)? {
        switch name {
        case unicodeLetterRule: return { $0.properties.isAlphabetic }
        case unicodeDigitRule: return { $0.properties.numericType == .decimal }
        default: return nil
        }
    }
}

/// Recognises text against the lexical rules of a grammar (backtracking over all match ends).
struct EBNFMatcher {
    let grammar: EBNFGrammar
    let conventions: GrammarConventions

    /// Whether the whole of `text` is matched by the rule called `ruleName`.
    func matches(_ text: String, rule ruleName: String) -> Bool {
        matches(text, .reference(ruleName))
    }

    /// Whether the whole of `text` is matched by `expression`.
    func matches(_ text: String, _ expression: EBNFExpression) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return ends(of: expression, in: scalars, from: 0).contains(scalars.count)
    }

    /// Every offset at which a match of `expression` starting at `start` can end.
    private func ends(of expression: EBNFExpression, in scalars: [Unicode.Scalar], from start: Int) -> Set<Int> {
        switch expression {
        case .literal(let text):
            let caseInsensitive = conventions.caseInsensitiveLiterals.contains(text)
            var position = start
            for expected in text.unicodeScalars {
                guard position < scalars.count else { return [] }
                let actual = scalars[position]
                let same =
                    caseInsensitive
                    ? EBNFMatcher.asciiUppercased(actual) == EBNFMatcher.asciiUppercased(expected)
                    : actual == expected
                guard same else { return [] }
                position += 1
            }
            return [position]
        case .characterClass(let characterClass):
            guard start < scalars.count, characterClass.contains(scalars[start]) else { return [] }
            return [start + 1]
        case .reference(let name):
            guard let rule = grammar.rule(name) else { return [] }
            let all = ends(of: rule.body, in: scalars, from: start)
            guard let refinement = GrammarConventions.refinement(ofRule: name) else { return all }
            return all.filter { end in scalars[start..<end].allSatisfy(refinement) }
        case .sequence(let items):
            var positions: Set<Int> = [start]
            for item in items {
                positions = Set(positions.flatMap { ends(of: item, in: scalars, from: $0) })
                if positions.isEmpty { return [] }
            }
            return positions
        case .choice(let alternatives):
            return Set(alternatives.flatMap { ends(of: $0, in: scalars, from: start) })
        case .optional(let inner):
            return ends(of: inner, in: scalars, from: start).union([start])
        case .zeroOrMore(let inner):
            return repetitions(of: inner, in: scalars, from: start)
        case .oneOrMore(let inner):
            let first = ends(of: inner, in: scalars, from: start)
            return Set(first.flatMap { repetitions(of: inner, in: scalars, from: $0) })
        case .exclusion(let base, let excluded):
            return ends(of: base, in: scalars, from: start).subtracting(ends(of: excluded, in: scalars, from: start))
        }
    }

    /// The ends of zero or more repetitions of `inner` from `start`.
    private func repetitions(of inner: EBNFExpression, in scalars: [Unicode.Scalar], from start: Int) -> Set<Int> {
        var reached: Set<Int> = [start]
        var frontier: Set<Int> = [start]
        while !frontier.isEmpty {
            let next = Set(frontier.flatMap { ends(of: inner, in: scalars, from: $0) }).subtracting(reached)
            reached.formUnion(next)
            frontier = next
        }
        return reached
    }

    private static func asciiUppercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard ("a"..."z").contains(scalar), let upper = Unicode.Scalar(scalar.value - 0x20) else { return scalar }
        return upper
    }
}
