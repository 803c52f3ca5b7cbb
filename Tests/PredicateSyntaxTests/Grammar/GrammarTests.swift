import PredicateSyntax
import PredicateValue
import Testing

/// Keeps `grammar.ebnf` and the parser in step (grammar.ebnf's header comment): thousands of
/// random sentences generated from the grammar parse, every rule is exercised, every rule is
/// implemented by a parse function that names it, and printed trees parse back to the same tree.
///
/// The run is deterministic. Set `GRAMMAR_SEED` (hexadecimal) to try another run; a failure names
/// the run seed and the sentence seed, and `generator.sentence(from:seed:)` reproduces it.
@Suite struct GrammarTests {
    static let defaultSeed: UInt64 = 0x5EED_0F9A_77A5
    static let predicateCount = 5_000
    static let expressionCount = 2_000
    /// One argument for every format specifier a sentence can hold (the token allowance keeps
    /// sentences well under 64 specifiers; ``sentencesStaySmall()`` checks it).
    static let arguments: [Value] = Array(repeating: .string("a.b"), count: 64)
    /// How many failures each test describes in full.
    static let reportedFailures = 10

    static let corpus = Result { () throws(GrammarError) -> Corpus in try Corpus.make() }

    // MARK: - The grammar itself

    @Test func grammarIsWellFormed() throws {
        let corpus = try GrammarTests.corpus.get()
        let grammar = corpus.grammar
        #expect(grammar.rule(Corpus.predicateStart) != nil)
        #expect(grammar.rule(Corpus.expressionStart) != nil)
        #expect(grammar.undefinedReferences.isEmpty, "undefined rules: \(grammar.undefinedReferences)")
        #expect(
            grammar.lexicalRulesUsingSyntacticRules.isEmpty,
            "lexical rules using syntactic rules: \(grammar.lexicalRulesUsingSyntacticRules)")
        for rule in grammar.rules where rule.kind == .syntactic {
            for literal in rule.body.literals {
                #expect(!literal.contains(" "), "\(rule.name): a token literal with a space: \(literal)")
            }
        }
    }

    @Test func generatorCharactersBelongToTheirRules() throws {
        let corpus = try GrammarTests.corpus.get()
        let matcher = corpus.generator.matcher
        for letter in SentenceGenerator.unicodeLetters {
            #expect(matcher.matches(String(letter), rule: GrammarConventions.unicodeLetterRule), "\(letter)")
            #expect(matcher.matches("a" + String(letter), rule: "IDENT_SHAPE"), "\(letter)")
        }
        for digit in SentenceGenerator.unicodeDigits {
            #expect(matcher.matches(String(digit), rule: GrammarConventions.unicodeDigitRule), "\(digit)")
            #expect(!matcher.matches(String(digit), rule: "IDENT_SHAPE"), "\(digit)")
        }
        #expect(matcher.matches("modulus:by:", rule: GrammarConventions.selectorRule))
        #expect(matcher.matches("tokenMatches", rule: GrammarConventions.reservedWordRule))
        #expect(!matcher.matches("tokenMatches", rule: "IDENTIFIER"))
        #expect(matcher.matches("ternary", rule: "IDENTIFIER"))
    }

    /// Reserved words match in any ASCII letter case only: a word with a non-ASCII letter whose
    /// upper case is ASCII (`ſome`, `ﬁrst`, `ın`) is an identifier, as grammar.ebnf says.
    @Test(arguments: ["\u{17F}ome", "\u{FB01}rst", "\u{131}n", "falsepred\u{131}cate", "aNd", "SeLf"])
    func reservedWordsIgnoreASCIICaseOnly(word: String) throws {
        let corpus = try GrammarTests.corpus.get()
        let isASCII = word.unicodeScalars.allSatisfy(\.isASCII)
        #expect(corpus.generator.matcher.matches(word, rule: "IDENTIFIER") == !isASCII)
        #expect(Keyword.isReserved(word) == isASCII)
        guard !isASCII else { return }
        let parsed = try PredicateParser.parsePredicate("\(word) == 1")
        let key = ExpressionNode(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.key(word)]))
        #expect(
            parsed.predicate == PredicateNode(.comparison(Comparison(key, .equal, ExpressionNode(.constant(.int(1)))))))
        #expect(parsed.predicate.format == "\(word) == 1")
    }

    @Test func generatorIsDeterministic() throws {
        let corpus = try GrammarTests.corpus.get()
        for sentence in corpus.predicates.prefix(20) {
            let again = try corpus.generator.sentence(from: Corpus.predicateStart, seed: sentence.seed)
            #expect(again.text == sentence.text)
        }
    }

    @Test func sentencesStaySmall() throws {
        let corpus = try GrammarTests.corpus.get()
        let all = corpus.predicates + corpus.expressions
        let longest = all.map(\.text.utf8.count).max() ?? 0
        let mostSpecifiers = all.map { $0.text.split(separator: "%", omittingEmptySubsequences: false).count - 1 }.max()
        #expect(longest < 4_000, "longest sentence: \(longest) bytes")
        #expect((mostSpecifiers ?? 0) <= GrammarTests.arguments.count)
    }

    // MARK: - Generated sentences parse

    @Test func generatedPredicatesParse() throws {
        let corpus = try GrammarTests.corpus.get()
        #expect(corpus.predicates.count >= 5_000)
        var failures: [String] = []
        for (index, sentence) in corpus.predicates.enumerated() {
            do {
                _ = try PredicateParser.parsePredicate(sentence.text, arguments: GrammarTests.arguments)
            } catch {
                failures.append(corpus.describe(sentence, index: index, problem: error.rendered()))
            }
        }
        GrammarTests.report(failures, of: corpus.predicates.count, what: "generated predicates do not parse")
    }

    @Test func generatedExpressionsParse() throws {
        let corpus = try GrammarTests.corpus.get()
        #expect(corpus.expressions.count >= 2_000)
        var failures: [String] = []
        for (index, sentence) in corpus.expressions.enumerated() {
            do {
                _ = try PredicateParser.parseExpression(sentence.text, arguments: GrammarTests.arguments)
            } catch {
                failures.append(corpus.describe(sentence, index: index, problem: error.rendered()))
            }
        }
        GrammarTests.report(failures, of: corpus.expressions.count, what: "generated expressions do not parse")
    }

    @Test func everyRuleIsUsed() throws {
        let corpus = try GrammarTests.corpus.get()
        var used: Set<String> = []
        for sentence in corpus.predicates + corpus.expressions { used.formUnion(sentence.usedRules) }
        let unused = corpus.grammar.ruleNames.filter { !used.contains($0) }
        #expect(unused.isEmpty, "rules no generated sentence used: \(unused.joined(separator: ", "))")
    }

    // MARK: - Every rule is implemented

    @Test func everyRuleIsNamedByAnImplementation() throws {
        let corpus = try GrammarTests.corpus.get()
        let sources = try PackageFiles.root() + "/Sources"
        var implemented: [String: [String]] = [:]
        var emptyClaims: [String] = []
        for path in try PackageFiles.files(under: sources, endingWith: ".swift") {
            let relative = String(path.dropFirst(sources.count + 1))
            for claim in ImplementationClaim.claims(in: try PackageFiles.read(path)) {
                let place = "\(relative):\(claim.line)"
                if claim.rules.isEmpty { emptyClaims.append(place) }
                for rule in claim.rules { implemented[rule, default: []].append(place) }
            }
        }
        #expect(emptyClaims.isEmpty, "'Implements grammar rule' comments naming no rule: \(emptyClaims)")
        let grammarRules = Set(corpus.grammar.ruleNames)
        let unimplemented = corpus.grammar.ruleNames.filter { implemented[$0] == nil }
        #expect(
            unimplemented.isEmpty,
            "rules of grammar.ebnf that no 'Implements grammar rule' comment names: \(unimplemented)")
        let unknown = implemented.keys.filter { !grammarRules.contains($0) }.sorted().map {
            "\($0) (\(implemented[$0, default: []].joined(separator: ", ")))"
        }
        #expect(unknown.isEmpty, "'Implements grammar rule' comments naming rules not in grammar.ebnf: \(unknown)")
    }

    @Test func implementationClaimsAreRead() {
        let text = """
            /// Implements grammar rules `A`, `B_C`,
            ///   `D` and `E` (see ``F``).
            func f() {}
            /// Implements grammar rule `G`: `H(x)`.
            """
        let claims = ImplementationClaim.claims(in: text)
        #expect(claims.map(\.rules) == [["A", "B_C", "D", "E"], ["G"]])
        #expect(claims.map(\.line) == [1, 4])
    }

    // MARK: - Printed trees parse back

    @Test func printedPredicatesRoundTrip() throws {
        let corpus = try GrammarTests.corpus.get()
        GrammarTests.checkRoundTrips(of: corpus.predicates, in: corpus, what: "predicates") { text in
            guard let parsed = try? PredicateParser.parsePredicate(text, arguments: GrammarTests.arguments) else {
                return nil
            }
            let printed = parsed.predicate.format(.roundTripSafe)
            do throws(Diagnostic) {
                let reparsed = try PredicateParser.parsePredicate(printed).predicate
                let same = BooleansAsNumbers.predicate(reparsed) == BooleansAsNumbers.predicate(parsed.predicate)
                return RoundTrip(printed: printed, reprinted: reparsed.format(.roundTripSafe), sameTree: same)
            } catch {
                return RoundTrip(printed: printed, error: error)
            }
        }
    }

    @Test func printedExpressionsRoundTrip() throws {
        let corpus = try GrammarTests.corpus.get()
        GrammarTests.checkRoundTrips(of: corpus.expressions, in: corpus, what: "expressions") { text in
            guard let parsed = try? PredicateParser.parseExpression(text, arguments: GrammarTests.arguments) else {
                return nil
            }
            let printed = parsed.expression.format(.roundTripSafe)
            do throws(Diagnostic) {
                let reparsed = try PredicateParser.parseExpression(printed).expression
                let same = BooleansAsNumbers.expression(reparsed) == BooleansAsNumbers.expression(parsed.expression)
                return RoundTrip(printed: printed, reprinted: reparsed.format(.roundTripSafe), sameTree: same)
            } catch {
                return RoundTrip(printed: printed, error: error)
            }
        }
    }

    /// Runs `roundTrip` on every sentence that parses and reports the ones whose printed form
    /// does not parse back to the same tree, or does not print the same again.
    static func checkRoundTrips(
        of sentences: [GeneratedSentence], in corpus: Corpus, what: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation, roundTrip: (String) -> RoundTrip?
    ) {
        var failures: [String] = []
        var checked = 0
        for (index, sentence) in sentences.enumerated() {
            guard let result = roundTrip(sentence.text) else { continue }
            checked += 1
            if let problem = result.problem {
                failures.append(corpus.describe(sentence, index: index, problem: problem))
            }
        }
        #expect(checked >= sentences.count / 2, sourceLocation: sourceLocation)
        let summary = "printed \(what) do not parse back to the same tree"
        report(failures, of: checked, what: summary, sourceLocation: sourceLocation)
    }

    // MARK: - Reporting

    /// Records the first few failures in full and the total, so one bug does not flood the log.
    static func report(
        _ failures: [String], of total: Int, what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        for failure in failures.prefix(reportedFailures) {
            Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
        }
        let failed = failures.count
        #expect(
            failed == 0, "\(failed) of \(total) \(what) (run seed \(Corpus.hex(Corpus.runSeed)))",
            sourceLocation: sourceLocation)
    }
}

/// The generated sentences every test of ``GrammarTests`` shares (generated once per run).
struct Corpus: Sendable {
    static let predicateStart = "PredicateFormat"
    static let expressionStart = "ExpressionFormat"

    /// `GRAMMAR_SEED` (hexadecimal), or the fixed default.
    static let runSeed: UInt64 =
        PackageFiles.environment("GRAMMAR_SEED").flatMap { UInt64($0.replacing("0x", with: ""), radix: 16) }
        ?? GrammarTests.defaultSeed

    let grammar: EBNFGrammar
    let generator: SentenceGenerator
    let predicates: [GeneratedSentence]
    let expressions: [GeneratedSentence]

    static func make() throws(GrammarError) -> Corpus {
        let path = try PackageFiles.root() + "/grammar.ebnf"
        let grammar = try EBNFGrammar(parsing: try PackageFiles.read(path))
        let generator = try SentenceGenerator(grammar: grammar)
        var predicates: [GeneratedSentence] = []
        for index in 0..<GrammarTests.predicateCount {
            let seed = SplitMix64.seed(base: runSeed, index: index)
            predicates.append(try generator.sentence(from: predicateStart, seed: seed))
        }
        var expressions: [GeneratedSentence] = []
        for index in 0..<GrammarTests.expressionCount {
            let seed = SplitMix64.seed(base: ~runSeed, index: index)
            expressions.append(try generator.sentence(from: expressionStart, seed: seed))
        }
        return Corpus(grammar: grammar, generator: generator, predicates: predicates, expressions: expressions)
    }

    func describe(_ sentence: GeneratedSentence, index: Int, problem: String) -> String {
        """
        sentence #\(index) (seed \(Corpus.hex(sentence.seed)), run seed \(Corpus.hex(Corpus.runSeed))):
        \(String(reflecting: sentence.text))
        \(problem)
        """
    }

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16, uppercase: true) }
}

/// What became of one sentence printed and parsed again.
struct RoundTrip {
    var printed: String
    var reprinted = ""
    var sameTree = false
    var error: Diagnostic?

    init(printed: String, reprinted: String, sameTree: Bool) {
        self.printed = printed
        self.reprinted = reprinted
        self.sameTree = sameTree
    }

    init(printed: String, error: Diagnostic) {
        self.printed = printed
        self.error = error
    }

    /// What went wrong, or `nil` when the printout parsed back to the same tree and printed the same.
    var problem: String? {
        let shown = "printed as \(String(reflecting: printed)), which"
        if let error { return "\(shown) does not parse:\n\(error.rendered())" }
        if !sameTree { return "\(shown) parses to a different tree, printed as \(String(reflecting: reprinted))" }
        if reprinted != printed { return "\(shown) prints again as \(String(reflecting: reprinted))" }
        return nil
    }
}

/// A doc comment line ``/// Implements grammar rule `Name`.`` or ``… rules `A`, `B`, `C`.``, which
/// may continue on the following `///` lines.
struct ImplementationClaim: Equatable {
    /// The 1-based line the claim starts on.
    var line: Int
    /// The rule names, in order.
    var rules: [String]

    static let marker = "Implements grammar rule"

    static func claims(in source: String) -> [ImplementationClaim] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var claims: [ImplementationClaim] = []
        for (index, line) in lines.enumerated() {
            guard let range = line.firstRange(of: marker) else { continue }
            var text = String(line[range.upperBound...])
            for next in lines[(index + 1)...] {
                let trimmed = next.drop { $0 == " " || $0 == "\t" }
                guard trimmed.hasPrefix("///") else { break }
                text += " " + trimmed.dropFirst(3)
            }
            claims.append(ImplementationClaim(line: index + 1, rules: ruleNames(in: text)))
        }
        return claims
    }

    /// The names in `s `A`, `B` and `C`…` up to the first thing that is not a listed name.
    private static func ruleNames(in text: String) -> [String] {
        var rest = Substring(text)
        if rest.hasPrefix("s") { rest = rest.dropFirst() }
        var names: [String] = []
        while true {
            rest = rest.drop { $0 == " " }
            guard rest.first == "`", rest.dropFirst().first != "`" else { break }
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: "`") else { break }
            let name = body[..<close]
            guard !name.isEmpty, name.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber }) else { break }
            names.append(String(name))
            rest = body[body.index(after: close)...]
            let separators = [", and ", ", ", " and "]
            guard let separator = separators.first(where: { rest.hasPrefix($0) }) else { break }
            rest = rest.dropFirst(separator.count)
        }
        return names
    }
}

/// The tree with every boolean constant replaced by the number it prints as (`YES` prints `1`),
/// the one difference SPEC §3.9b allows between a tree and its printed-and-parsed copy.
enum BooleansAsNumbers {
    static func predicate(_ predicate: PredicateNode) -> PredicateNode {
        switch predicate.kind {
        case .constant:
            return predicate
        case .not(let operand):
            return PredicateNode(.not(self.predicate(operand)))
        case .and(let operands):
            return PredicateNode(.and(operands.map(self.predicate)))
        case .or(let operands):
            return PredicateNode(.or(operands.map(self.predicate)))
        case .comparison(var comparison):
            comparison.lhs = expression(comparison.lhs)
            comparison.rhs = expression(comparison.rhs)
            return PredicateNode(.comparison(comparison))
        }
    }

    static func expression(_ expression: ExpressionNode) -> ExpressionNode {
        switch expression.kind {
        case .constant(let value):
            return ExpressionNode(.constant(self.value(value)))
        case .evaluatedObject, .variable, .anyKey:
            return expression
        case .keyPath(let base, let components):
            return ExpressionNode(.keyPath(base: self.expression(base), components: components))
        case .function(let selector, let arguments):
            return ExpressionNode(.function(selector, arguments.map(self.expression)))
        case .invoke(let receiver, let selector, let arguments):
            let kind = ExpressionKind.invoke(
                receiver: self.expression(receiver), selector: selector, arguments: arguments.map(self.expression))
            return ExpressionNode(kind)
        case .aggregate(let elements):
            return ExpressionNode(.aggregate(elements.map(self.expression)))
        case .index(let base, let spec):
            guard case .expression(let index) = spec else { return ExpressionNode(.index(self.expression(base), spec)) }
            return ExpressionNode(.index(self.expression(base), .expression(self.expression(index))))
        case .subquery(let collection, let variable, let predicate):
            let kind = ExpressionKind.subquery(
                collection: self.expression(collection), variable: variable, predicate: self.predicate(predicate))
            return ExpressionNode(kind)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return ExpressionNode(
                .ternary(self.predicate(condition), self.expression(whenTrue), self.expression(whenFalse)))
        case .cast(let value, let type):
            return ExpressionNode(.cast(self.expression(value), self.expression(type)))
        case .assignment(let variable, let value):
            return ExpressionNode(.assignment(variable: variable, self.expression(value)))
        case .setOperation(let op, let lhs, let rhs):
            return ExpressionNode(.setOperation(op, self.expression(lhs), self.expression(rhs)))
        }
    }

    static func value(_ value: Value) -> Value {
        switch value {
        case .bool(let flag): return .int(flag ? 1 : 0)
        case .array(let elements): return .array(elements.map(self.value))
        default: return value
        }
    }
}
