import PredicateValue

// MARK: - Predicates

extension Parser {
    /// Implements grammar rules `Predicate`, `OrPred`.
    ///
    /// `first` is a leading operand already parsed by the caller (see
    /// ``parsePredicateOrExpression()``).
    mutating func parsePredicate(first: PredicateNode? = nil) throws(Diagnostic) -> PredicateNode {
        var operands = [try parseAndPredicate(first: first)]
        while consume(.keyword(.or)) != nil || consume(.logicalOr) != nil {
            operands.append(try parseAndPredicate())
        }
        guard operands.count > 1 else { return operands[0].predicate }
        let range = operands[0].predicate.range.union(previousRange)
        let predicate = try checked(PredicateNode(.or(operands.map(\.predicate)), range: range))
        if operands.contains(where: \.isChain) {
            try reportAndOrMix(operands, range: range)
        }
        return predicate
    }

    /// An operand of `OR`, remembering whether it is an unparenthesised `AND` chain.
    struct OrOperand {
        var predicate: PredicateNode
        var isChain: Bool
    }

    /// Implements grammar rule `AndPred`.
    private mutating func parseAndPredicate(first: PredicateNode? = nil) throws(Diagnostic) -> OrOperand {
        var operands: [PredicateNode]
        if let first { operands = [first] } else { operands = [try parseNotPredicate()] }
        while consume(.keyword(.and)) != nil || consume(.logicalAnd) != nil {
            operands.append(try parseNotPredicate())
        }
        guard operands.count > 1 else { return OrOperand(predicate: operands[0], isChain: false) }
        let range = operands[0].range.union(previousRange)
        return OrOperand(predicate: try checked(PredicateNode(.and(operands), range: range)), isChain: true)
    }

    /// Implements grammar rule `NotPred`.
    private mutating func parseNotPredicate() throws(Diagnostic) -> PredicateNode {
        guard let not = consume(.keyword(.not)) ?? consume(.logicalNot) else { return try parsePrimaryPredicate() }
        try enter()
        defer { leave() }
        let operand = try parseNotPredicate()
        return try checked(PredicateNode(.not(operand), range: not.range.union(operand.range)))
    }

    /// Implements grammar rule `PrimaryPred`.
    ///
    /// A `(` here may open a parenthesised predicate, `(a > 1) OR b`, or the first operand of a
    /// comparison, `(a + b) * 2 > 3`. Rather than backtrack, the parser reads what is inside the
    /// parentheses as "a predicate or an expression" and continues according to what it found.
    private mutating func parsePrimaryPredicate() throws(Diagnostic) -> PredicateNode {
        let token = current
        switch token.kind {
        case .keyword(.truePredicate):
            _ = advance()
            return PredicateNode(.constant(true), range: token.range)
        case .keyword(.falsePredicate):
            _ = advance()
            return PredicateNode(.constant(false), range: token.range)
        case .leftParen:
            switch try parseParenthesizedPredicateOrExpression() {
            case .predicate(let predicate):
                return predicate
            case .expression(let expression):
                return try parseComparisonRest(lhs: try continueExpression(from: expression), start: token.range)
            }
        default:
            return try parseComparison()
        }
    }

    enum PredicateOrExpression {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    /// `"(" Predicate ")"` or `"(" Expr ")"`, whichever the contents turn out to be.
    private mutating func parseParenthesizedPredicateOrExpression() throws(Diagnostic) -> PredicateOrExpression {
        let open = try expect(.leftParen, "'('")
        try enter()
        openers.append(Opener(token: open, construct: ""))
        defer {
            leave()
            openers.removeLast()
        }
        let inner = try parsePredicateOrExpression()
        let close = try closeParenthesis(
            expected: "')' to close the '(' at \(source.location(of: open.range.lowerBound))")
        let range = open.range.union(close.range)
        switch inner {
        case .predicate(let predicate):
            return .predicate(predicate.withRange(range))
        case .expression(let expression):
            return .expression(expression.withRange(range))
        }
    }

    /// Inside parentheses at a predicate position: a whole `OrPred`, or a lone expression.
    private mutating func parsePredicateOrExpression() throws(Diagnostic) -> PredicateOrExpression {
        let start = current
        switch start.kind {
        case .keyword(.not), .logicalNot, .keyword(.truePredicate), .keyword(.falsePredicate),
            .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none):
            return .predicate(try parsePredicate())
        case .leftParen:
            switch try parseParenthesizedPredicateOrExpression() {
            case .predicate(let predicate):
                return .predicate(try parsePredicate(first: predicate))
            case .expression(let expression):
                return try predicateIfComparisonFollows(try continueExpression(from: expression), start: start.range)
            }
        default:
            return try predicateIfComparisonFollows(try parseExpression(), start: start.range)
        }
    }

    private mutating func predicateIfComparisonFollows(
        _ lhs: ExpressionNode, start: SourceRange
    ) throws(Diagnostic) -> PredicateOrExpression {
        guard comparisonOperator(current.kind) != nil else { return .expression(lhs) }
        let comparison = try parseComparisonRest(lhs: lhs, start: start)
        return .predicate(try parsePredicate(first: comparison))
    }

    /// Implements grammar rules `Comparison`, `Quantifier`.
    private mutating func parseComparison() throws(Diagnostic) -> PredicateNode {
        let start = current
        var quantifier = Quantifier.direct
        var negated = false
        switch start.kind {
        case .keyword(.any), .keyword(.some): quantifier = .any
        case .keyword(.all): quantifier = .all
        case .keyword(.none):
            quantifier = .any
            negated = true
        default: break
        }
        if quantifier != .direct { _ = advance() }
        let lhs = try parseExpression()
        let comparison = try parseComparisonRest(lhs: lhs, start: start.range, quantifier: quantifier)
        return negated ? PredicateNode(.not(comparison), range: comparison.range) : comparison
    }

    /// The operator, options and right operand of a comparison whose left operand is parsed.
    private mutating func parseComparisonRest(
        lhs: ExpressionNode, start: SourceRange, quantifier: Quantifier = .direct
    ) throws(Diagnostic) -> PredicateNode {
        let operatorToken = current
        guard let op = comparisonOperator(operatorToken.kind) else {
            switch operatorToken.kind {
            case .invalid, .tilde:
                throw unexpected("a comparison operator")
            case .end, .rightParen, .comma, .keyword(.and), .keyword(.or), .logicalAnd, .logicalOr:
                if case .subquery = lhs.kind { throw error(.subqueryAlone, at: lhs.range) }
                throw error(
                    .bareExpression, at: lhs.range.lowerBound == lhs.range.upperBound ? operatorToken.range : lhs.range)
            default:
                throw unexpected("a comparison operator such as '==' or 'CONTAINS'")
            }
        }
        _ = advance()
        let options = try parseOptions(for: op)
        let rhs = try parseExpression()
        if comparisonOperator(current.kind) != nil {
            throw chainedComparison(at: current)
        }
        let comparison = Comparison(lhs, op, rhs, quantifier: quantifier, options: options)
        return try checked(PredicateNode(.comparison(comparison), range: start.union(rhs.range)))
    }

    /// Implements grammar rule `CompOp`: the operator a token spells, if it spells one.
    func comparisonOperator(_ kind: Token.Kind) -> ComparisonOperator? {
        switch kind {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .less
        case .lessEqual: return .lessOrEqual
        case .greater: return .greater
        case .greaterEqual: return .greaterOrEqual
        case .keyword(.between): return .between
        case .keyword(.in): return .in
        case .keyword(.contains): return .contains
        case .keyword(.beginsWith): return .beginsWith
        case .keyword(.endsWith): return .endsWith
        case .keyword(.like): return .like
        case .keyword(.matches): return .matches
        case .keyword(.tokenMatches): return .tokenMatches
        case .utiConformsTo: return .utiConformsTo
        case .utiEquals: return .utiEquals
        default: return nil
        }
    }

    /// Implements grammar rules `Options`, `OPTION_WORD`.
    ///
    /// Unknown letters are ignored with a warning, as Apple ignores them; so are options on
    /// operators that do not use them. `w` is kept only where Apple's printer keeps it.
    private mutating func parseOptions(for op: ComparisonOperator) throws(Diagnostic) -> ComparisonOptions {
        guard let open = consume(.leftBracket) else { return [] }
        let word = current
        switch word.kind {
        case .identifier(_, escaped: false), .keyword:
            _ = advance()
        default:
            throw unexpected("option letters such as 'cd' after '['")
        }
        let close = try expect(.rightBracket, "']' after the comparison options")
        var options: ComparisonOptions = []
        let letters = text(of: word)
        var position = word.range.lowerBound
        for letter in letters {
            let width = letter.utf8.count
            defer { position += width }
            guard let (_, option) = ComparisonOptions.letters.first(where: { $0.0 == Character(letter.lowercased()) })
            else {
                warn(.unknownOptionLetter(letter), at: SourceRange(position, position + width))
                continue
            }
            options.insert(option)
        }
        if !op.usesOptions, !options.isEmpty {
            warn(.optionsIgnored(operator: op.rawValue), at: open.range.union(close.range))
            return []
        }
        if !op.keepsWidthOption { options.remove(.widthInsensitive) }
        return options
    }

    /// Warns (or, in strict mode, fails) on `a OR b AND c`, naming both readings.
    private mutating func reportAndOrMix(_ operands: [OrOperand], range: SourceRange) throws(Diagnostic) {
        if !options.strict, warnings.count >= Parser.maximumWarnings { return }
        var groups: [[PredicateNode]] = [[]]
        for operand in operands {
            let parts: [PredicateNode]
            if operand.isChain, case .and(let chain) = operand.predicate.kind {
                parts = chain
            } else {
                parts = [operand.predicate]
            }
            for (index, part) in parts.enumerated() {
                if index > 0 { groups.append([]) }
                groups[groups.count - 1].append(part)
            }
        }
        let parsed = PredicateNode(.or(operands.map(\.predicate)))
        let other = PredicateNode(.and(groups.map { $0.count == 1 ? $0[0] : PredicateNode(.or($0)) }))
        // Print only the start of each reading: a reading can be most of a 1 MiB rule, and there is
        // one report per OR node. A print cut at 320 bytes has over 80 characters.
        func shortened(_ predicate: PredicateNode) -> String {
            let text = predicate.format(limit: 320)
            return text.count <= 80 ? "'\(text)'" : "'\(text.prefix(77))...'"
        }
        let kind = DiagnosticKind.andOrMixed(parsedAs: shortened(parsed), otherReading: shortened(other))
        if options.strict { throw error(kind, at: range) }
        warn(kind, at: range)
    }
}
