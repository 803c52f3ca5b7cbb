/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, deterministic generator, so that a seed
/// printed by a failing test reproduces the case on any platform and toolchain.
struct SplitMix64 {
    private(set) var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// True with probability `numerator / denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    /// A uniformly chosen element of a non-empty array.
    mutating func element<T>(of array: [T]) -> T {
        array[below(array.count)]
    }

    /// The seed of sentence `index` of a run with seed `base`: each sentence reproduces alone.
    static func seed(base: UInt64, index: Int) -> UInt64 {
        var generator = SplitMix64(seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}

/// A sentence generated from the grammar, and what produced it.
struct GeneratedSentence: Sendable {
    /// The sentence.
    var text: String
    /// The seed that reproduces it: `generator.sentence(from: rule, seed: seed)`.
    var seed: UInt64
    /// The rules its derivation used (see ``SentenceGenerator`` for the three token classes).
    var usedRules: Set<String>
    /// The number of tokens of the sentence.
    var tokenCount: Int
}

/// Generates random sentences from an ``EBNFGrammar``.
///
/// Syntactic rules join their tokens with a single space (now and then with another `WHITESPACE`
/// derivation); lexical rules produce characters with no spaces. One sentence in four is written
/// tight instead: with no whitespace between tokens except where grammar.ebnf requires it, where
/// two tokens would otherwise run together (see ``SentenceGenerator/needsWhitespace(between:and:)``).
///
/// Recursion is bounded by each rule's minimal derivation height (a token counts as height 0 in a
/// syntactic rule): every sentence draws a height budget, and a choice takes only alternatives that
/// fit in what is left of it. Once the sentence has used its token allowance, a choice takes only
/// alternatives that terminate soonest (within a slack of two levels, so that `1` and `now()` stay
/// possible besides `SELF`), its subtree is held to that height, and optional items and
/// repetitions are skipped. Among the alternatives that fit, a bare literal or a directly
/// recursive alternative (`"-" UnaryExpr`) weighs half as much as the others, which keeps
/// sentences from being mostly `TRUEPREDICATE`, `NOT NOT …` or `- - …`.
///
/// Three lexical rules describe token classes rather than being referred to: a literal token of a
/// syntactic rule that `RESERVED_WORD` or `SELECTOR` matches counts as a use of that rule, and the
/// separator between tokens as a use of `WHITESPACE`.
struct SentenceGenerator: Sendable {
    /// Size controls; each sentence draws its own height budget and token allowance.
    struct Limits: Sendable {
        /// The least number of levels a sentence may use beyond the start rule's minimal height.
        var extraHeight = 14...46
        /// The number of tokens after which the derivation only closes what is open.
        var tokens = 4...48
        /// How far beyond the shortest alternative a choice may go once the tokens are used up.
        var slack = 2
        /// One sentence in this many is written without optional whitespace.
        var tightSentences = 4
    }

    let grammar: EBNFGrammar
    let conventions: GrammarConventions
    let matcher: EBNFMatcher
    let limits: Limits
    /// The height of each rule's shallowest derivation: for a syntactic rule counting the tokens
    /// it uses as leaves, for a lexical rule counting the lexical rules it uses.
    let minimumHeights: [String: Int]
    /// The rules, prepared for generation, in grammar order.
    fileprivate let plans: [PlannedRule]
    private let planIndex: [String: Int]
    /// The index of `WHITESPACE`, which derives the separators between tokens.
    fileprivate let whitespaceIndex: Int?

    /// Real non-ASCII letters for `UNICODE_LETTER` (é, ß, 日, π, ж, Ω, ñ, ا, 한), and three whose
    /// upper case is ASCII (ſ, ı, ﬁ: `ſome` upper-cases to `SOME` but is not the keyword).
    static let unicodeLetters: [Unicode.Scalar] = [
        "\u{E9}", "\u{DF}", "\u{65E5}", "\u{3C0}", "\u{436}", "\u{3A9}", "\u{F1}", "\u{627}", "\u{D55C}",
        "\u{17F}", "\u{131}", "\u{FB01}",
    ]
    /// Real non-ASCII decimal digits for `UNICODE_DIGIT` (٣, ५, ３, ৭, ๒).
    static let unicodeDigits: [Unicode.Scalar] = ["\u{663}", "\u{96B}", "\u{FF13}", "\u{9ED}", "\u{E52}"]
    /// Candidates for classes that cannot be enumerated (`[^'\]`, `[^xXuU]`): printable ASCII, tab,
    /// line feed, and a few non-ASCII characters (é, 日, π, a no-break space, 😀).
    static let characterPool: [Unicode.Scalar] =
        (0x20...0x7E).compactMap { Unicode.Scalar(UInt32($0)) }
        + ["\t", "\n", "\u{E9}", "\u{65E5}", "\u{3C0}", "\u{A0}", "\u{1F600}"]

    init(grammar: EBNFGrammar, limits: Limits = Limits()) throws(GrammarError) {
        guard grammar.undefinedReferences.isEmpty else {
            throw GrammarError("undefined rules: \(grammar.undefinedReferences)")
        }
        guard grammar.lexicalRulesUsingSyntacticRules.isEmpty else {
            throw GrammarError("lexical rules using syntactic rules: \(grammar.lexicalRulesUsingSyntacticRules)")
        }
        self.grammar = grammar
        self.limits = limits
        conventions = GrammarConventions(grammar: grammar)
        matcher = EBNFMatcher(grammar: grammar, conventions: conventions)
        minimumHeights = try SentenceGenerator.heights(of: grammar)
        var index: [String: Int] = [:]
        for (position, rule) in grammar.rules.enumerated() { index[rule.name] = position }
        planIndex = index
        whitespaceIndex = index[GrammarConventions.whitespaceRule]
        var planner = Planner(
            grammar: grammar, conventions: conventions, matcher: matcher, heights: minimumHeights, ruleIndex: index)
        var plans: [PlannedRule] = []
        for rule in grammar.rules { plans.append(try planner.plan(rule)) }
        self.plans = plans
    }

    /// A sentence derived from the rule called `start`.
    func sentence(from start: String, seed: UInt64) throws(GrammarError) -> GeneratedSentence {
        guard let startIndex = planIndex[start], plans[startIndex].kind == .syntactic else {
            throw GrammarError("no syntactic rule \(start)")
        }
        var derivation = Derivation(generator: self, seed: seed)
        let extra = limits.extraHeight.lowerBound + derivation.random.below(limits.extraHeight.count)
        derivation.tokenAllowance = limits.tokens.lowerBound + derivation.random.below(limits.tokens.count)
        let tight = derivation.random.chance(1, in: limits.tightSentences)
        try derivation.expand(.reference(startIndex), remaining: plans[startIndex].height + extra)
        var text = ""
        for (index, token) in derivation.tokens.enumerated() {
            if index > 0 {
                let previous = derivation.tokens[index - 1]
                if !tight || SentenceGenerator.needsWhitespace(between: previous, and: token) {
                    text += try derivation.separator()
                }
            }
            text += token
        }
        let used = Set(plans.indices.filter { derivation.used[$0] }.map { plans[$0].name })
        return GeneratedSentence(text: text, seed: seed, usedRules: used, tokenCount: derivation.tokens.count)
    }

    /// The two-character operators of the language: longest match glues their halves together.
    static let twoCharacterOperators: Set<String> = [
        "**", "<<", ">>", "&&", "||", "==", "=<", "=>", "!=", "<>", "<=", ">=", ":=",
    ]

    /// Whether two tokens would run together without whitespace between them (grammar.ebnf,
    /// "Conventions"): two word characters (`a` `AND`), the halves of a two-character operator
    /// (`<` `<`), a word before `-` (`UTI` `-` `CONFORMS` would become `UTI-CONFORMS`), or a `.`
    /// before a digit.
    static func needsWhitespace(between left: String, and right: String) -> Bool {
        guard let last = left.unicodeScalars.last, let first = right.unicodeScalars.first else { return false }
        func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar) || scalar.value >= 0x80
        }
        if isWordCharacter(last) { return isWordCharacter(first) || first == "-" }
        if last == ".", ("0"..."9").contains(first) { return true }
        return twoCharacterOperators.contains(String(last) + String(first))
    }

    /// The least fixed point of `height(rule) = 1 + height(body)`; every rule must terminate.
    private static func heights(of grammar: EBNFGrammar) throws(GrammarError) -> [String: Int] {
        var heights: [String: Int] = [:]
        var changed = true
        while changed {
            changed = false
            for rule in grammar.rules {
                let body = height(of: rule.body, heights: heights, lexical: rule.kind == .lexical)
                if body < unknownHeight, 1 + body < heights[rule.name] ?? unknownHeight {
                    heights[rule.name] = 1 + body
                    changed = true
                }
            }
        }
        let endless = grammar.ruleNames.filter { heights[$0] == nil }
        guard endless.isEmpty else {
            throw GrammarError("rules with no finite derivation: \(endless.joined(separator: ", "))")
        }
        return heights
    }

    private static let unknownHeight = Int.max / 4

    /// The minimal height of `expression` in a lexical rule, or in a syntactic one (where a
    /// reference to a lexical rule is one token, a leaf).
    static func height(of expression: EBNFExpression, heights: [String: Int], lexical: Bool) -> Int {
        switch expression {
        case .literal, .characterClass, .optional, .zeroOrMore:
            return 0
        case .reference(let name):
            if !lexical, EBNFRule.kind(of: name) == .lexical { return 0 }
            return heights[name] ?? unknownHeight
        case .sequence(let items):
            return items.map { height(of: $0, heights: heights, lexical: lexical) }.max() ?? 0
        case .choice(let alternatives):
            return alternatives.map { height(of: $0, heights: heights, lexical: lexical) }.min() ?? 0
        case .oneOrMore(let inner), .exclusion(let inner, _):
            return height(of: inner, heights: heights, lexical: lexical)
        }
    }
}

// MARK: - Plans

/// A rule body prepared for generation: heights, weights and candidate characters worked out once.
private indirect enum Plan: Sendable {
    case literal(String, caseInsensitive: Bool, tokenClasses: [Int])
    case characters([Unicode.Scalar])
    case reference(Int)
    case sequence([Plan])
    case choice([Plan], heights: [Int], weights: [Int])
    case optional(Plan, height: Int)
    case zeroOrMore(Plan, height: Int)
    case oneOrMore(Plan, height: Int)
    case exclusion(Plan, excluded: EBNFExpression)
}

private struct PlannedRule: Sendable {
    var name: String
    var kind: EBNFRule.Kind
    var height: Int
    var body: Plan
}

private struct Planner {
    let grammar: EBNFGrammar
    let conventions: GrammarConventions
    let matcher: EBNFMatcher
    let heights: [String: Int]
    let ruleIndex: [String: Int]
    var candidates: [CharacterClass: [Unicode.Scalar]] = [:]

    mutating func plan(_ rule: EBNFRule) throws(GrammarError) -> PlannedRule {
        let body: Plan
        switch rule.name {
        case GrammarConventions.unicodeLetterRule: body = .characters(SentenceGenerator.unicodeLetters)
        case GrammarConventions.unicodeDigitRule: body = .characters(SentenceGenerator.unicodeDigits)
        default: body = try plan(rule.body, in: rule)
        }
        return PlannedRule(name: rule.name, kind: rule.kind, height: heights[rule.name] ?? 0, body: body)
    }

    private mutating func plan(_ expression: EBNFExpression, in rule: EBNFRule) throws(GrammarError) -> Plan {
        let lexical = rule.kind == .lexical
        func height(_ expression: EBNFExpression) -> Int {
            SentenceGenerator.height(of: expression, heights: heights, lexical: lexical)
        }
        switch expression {
        case .literal(let text):
            var classes: [Int] = []
            if !lexical {
                for name in [GrammarConventions.reservedWordRule, GrammarConventions.selectorRule] {
                    if let index = ruleIndex[name], matcher.matches(text, rule: name) { classes.append(index) }
                }
            }
            return .literal(
                text, caseInsensitive: conventions.caseInsensitiveLiterals.contains(text), tokenClasses: classes)
        case .characterClass(let characterClass):
            return .characters(try members(of: characterClass))
        case .reference(let name):
            guard let index = ruleIndex[name] else { throw GrammarError("undefined rule \(name)") }
            return .reference(index)
        case .sequence(let items):
            var plans: [Plan] = []
            for item in items { plans.append(try plan(item, in: rule)) }
            return .sequence(plans)
        case .choice(let alternatives):
            var plans: [Plan] = []
            for alternative in alternatives { plans.append(try plan(alternative, in: rule)) }
            let weights = alternatives.map { alternative in
                let references = alternative.references
                if lexical {
                    // The Unicode extension (UNICODE_LETTER, UNICODE_DIGIT) is picked a third as often.
                    return references.contains { GrammarConventions.refinement(ofRule: $0) != nil } ? 1 : 3
                }
                // Bare literals (`TRUEPREDICATE`) and direct recursion (`"-" UnaryExpr`) weigh half.
                return references.isEmpty || references.contains(rule.name) ? 1 : 2
            }
            return .choice(plans, heights: alternatives.map(height), weights: weights)
        case .optional(let inner):
            return .optional(try plan(inner, in: rule), height: height(inner))
        case .zeroOrMore(let inner):
            return .zeroOrMore(try plan(inner, in: rule), height: height(inner))
        case .oneOrMore(let inner):
            return .oneOrMore(try plan(inner, in: rule), height: height(inner))
        case .exclusion(let base, let excluded):
            guard lexical else { throw GrammarError("\(rule.name): an exclusion between tokens is not supported") }
            return .exclusion(try plan(base, in: rule), excluded: excluded)
        }
    }

    private mutating func members(of characterClass: CharacterClass) throws(GrammarError) -> [Unicode.Scalar] {
        if let known = candidates[characterClass] { return known }
        let members: [Unicode.Scalar]
        if characterClass.isSmallASCII {
            members = characterClass.ranges.flatMap { range in range.compactMap { Unicode.Scalar($0) } }
        } else {
            members = SentenceGenerator.characterPool.filter { characterClass.contains($0) }
        }
        guard !members.isEmpty else { throw GrammarError("no candidate characters for \(characterClass)") }
        candidates[characterClass] = members
        return members
    }
}

// MARK: - Derivations

/// One derivation in progress.
private struct Derivation {
    let generator: SentenceGenerator
    var random: SplitMix64
    var tokens: [String] = []
    var used: [Bool]
    var tokenAllowance = 0
    static let lexicalDepthLimit = 64

    init(generator: SentenceGenerator, seed: UInt64) {
        self.generator = generator
        random = SplitMix64(seed: seed)
        used = Array(repeating: false, count: generator.plans.count)
    }

    private var exhausted: Bool { tokens.count >= tokenAllowance }

    /// Appends the tokens of `plan`, part of a syntactic rule, to ``tokens``, using at most
    /// `remaining` levels of rules (never less than the plan's minimal height).
    mutating func expand(_ plan: Plan, remaining: Int) throws(GrammarError) {
        switch plan {
        case .literal(let text, let caseInsensitive, let tokenClasses):
            tokens.append(spelling(of: text, caseInsensitive: caseInsensitive))
            for index in tokenClasses { used[index] = true }
        case .characters:
            tokens.append(try characters(of: plan, depth: 0))
        case .reference(let index):
            switch generator.plans[index].kind {
            case .syntactic:
                used[index] = true
                try expand(generator.plans[index].body, remaining: remaining - 1)
            case .lexical:
                tokens.append(try characters(of: plan, depth: 0))
            }
        case .sequence(let items):
            for item in items { try expand(item, remaining: remaining) }
        case .choice(let alternatives, let heights, let weights):
            let lowest = heights.min() ?? 0
            let limit = exhausted ? min(remaining, lowest + generator.limits.slack) : remaining
            let fitting = alternatives.indices.filter { heights[$0] <= limit }
            let chosen = pick(fitting, weights: weights)
            try expand(alternatives[chosen], remaining: limit)
        case .optional(let inner, let height):
            if fits(height, remaining: remaining), random.chance(1, in: 3) { try expand(inner, remaining: remaining) }
        case .zeroOrMore(let inner, let height):
            while fits(height, remaining: remaining), random.chance(1, in: 4) {
                try expand(inner, remaining: remaining)
            }
        case .oneOrMore(let inner, let height):
            repeat {
                try expand(inner, remaining: remaining)
            } while fits(height, remaining: remaining) && random.chance(1, in: 4)
        case .exclusion:
            throw GrammarError("an exclusion between tokens is not supported")
        }
    }

    /// Whether an optional or repeated item of minimal height `height` may be added.
    private func fits(_ height: Int, remaining: Int) -> Bool {
        !exhausted && height <= remaining
    }

    /// One of `candidates` (indices into `weights`), chosen with those weights.
    private mutating func pick(_ candidates: [Int], weights: [Int]) -> Int {
        var ticket = random.below(candidates.reduce(0) { $0 + weights[$1] })
        for candidate in candidates {
            if ticket < weights[candidate] { return candidate }
            ticket -= weights[candidate]
        }
        return candidates[candidates.count - 1]
    }

    /// The characters of `plan`, part of a lexical rule (no whitespace is added).
    mutating func characters(of plan: Plan, depth: Int) throws(GrammarError) -> String {
        switch plan {
        case .literal(let text, let caseInsensitive, _):
            return spelling(of: text, caseInsensitive: caseInsensitive)
        case .characters(let candidates):
            return String(random.element(of: candidates))
        case .reference(let index):
            used[index] = true
            return try characters(of: generator.plans[index].body, depth: depth + 1)
        case .sequence(let items):
            var text = ""
            for item in items { text += try characters(of: item, depth: depth) }
            return text
        case .choice(let alternatives, let heights, let weights):
            // Lexical rules are not recursive in practice; the limit only keeps a recursive one finite.
            var candidates = Array(alternatives.indices)
            if depth > Derivation.lexicalDepthLimit {
                let lowest = heights.min() ?? 0
                candidates = candidates.filter { heights[$0] == lowest }
            }
            return try characters(of: alternatives[pick(candidates, weights: weights)], depth: depth)
        case .optional(let inner, _):
            return random.chance(1, in: 2) ? try characters(of: inner, depth: depth) : ""
        case .zeroOrMore(let inner, _):
            var text = ""
            for _ in 0..<lexicalRepetitions() { text += try characters(of: inner, depth: depth) }
            return text
        case .oneOrMore(let inner, _):
            var text = ""
            for _ in 0...lexicalRepetitions() { text += try characters(of: inner, depth: depth) }
            return text
        case .exclusion(let base, let excluded):
            let usedBefore = used
            for _ in 0..<1000 {
                used = usedBefore
                let text = try characters(of: base, depth: depth)
                if !generator.matcher.matches(text, excluded) { return text }
            }
            throw GrammarError("could not derive anything outside \(excluded)")
        }
    }

    /// Mostly short runs; now and then a long one (long numbers overflow, long names).
    private mutating func lexicalRepetitions() -> Int {
        if random.chance(1, in: 30) { return 8 + random.below(24) }
        var count = 0
        while count < 6, random.chance(1, in: 2) { count += 1 }
        return count
    }

    /// The literal as it may be written: words matched case-insensitively get a random case.
    private mutating func spelling(of literal: String, caseInsensitive: Bool) -> String {
        guard caseInsensitive, random.chance(1, in: 2) else { return literal }
        var result = ""
        for character in literal {
            result += random.chance(1, in: 2) ? character.lowercased() : character.uppercased()
        }
        return result
    }

    /// What goes between two tokens: one space (itself a `WHITESPACE`), now and then another
    /// `WHITESPACE` derivation.
    mutating func separator() throws(GrammarError) -> String {
        guard let index = generator.whitespaceIndex else { return " " }
        used[index] = true
        guard random.chance(1, in: 32) else { return " " }
        return try characters(of: .reference(index), depth: 0)
    }
}
