import PredicateValue

// MARK: - Expressions

extension Parser {
    /// Implements grammar rules `Expr`, `AssignExpr`.
    mutating func parseExpression() throws(Diagnostic) -> ExpressionNode {
        if case .variable(let name) = current.kind, peek().kind == .assign {
            let variable = advance()
            _ = advance()
            try enter()
            defer { leave() }
            let value = try parseExpression()
            return try checked(
                ExpressionNode(.assignment(variable: name, value), range: variable.range.union(value.range)))
        }
        return try parseBinary(minimumLevel: 1)
    }

    /// Continues an expression whose leftmost primary (a parenthesised expression) is parsed.
    mutating func continueExpression(from primary: ExpressionNode) throws(Diagnostic) -> ExpressionNode {
        let power = try parsePower(from: primary)
        return try parseBinary(minimumLevel: 1, lhs: power)
    }

    /// A binary operator: its precedence level (1 binds loosest) and the node it builds.
    enum BinaryOperator {
        case function(selector: String)
        case set(SetOperator)
    }

    /// Implements grammar rules `SetExpr`, `BitOrExpr`, `BitXorExpr`, `BitAndExpr`, `ShiftExpr`,
    /// `AddExpr`, `MulExpr`: the precedence table, loosest first (SPEC §3.4).
    func binaryOperator(_ kind: Token.Kind) -> (level: Int, op: BinaryOperator)? {
        switch kind {
        case .keyword(.union): return (1, .set(.union))
        case .keyword(.intersection): return (1, .set(.intersection))
        case .keyword(.minus): return (1, .set(.minus))
        case .bitOr: return (2, .function(selector: "bitwiseOr:with:"))
        case .bitXor: return (3, .function(selector: "bitwiseXor:with:"))
        case .bitAnd: return (4, .function(selector: "bitwiseAnd:with:"))
        case .shiftLeft: return (5, .function(selector: "leftshift:by:"))
        case .shiftRight: return (5, .function(selector: "rightshift:by:"))
        case .plus: return (6, .function(selector: "add:to:"))
        case .minus: return (6, .function(selector: "from:subtract:"))
        case .star: return (7, .function(selector: "multiply:by:"))
        case .slash: return (7, .function(selector: "divide:by:"))
        default: return nil
        }
    }

    /// Precedence climbing over ``binaryOperator(_:)``; every level is left-associative.
    private mutating func parseBinary(
        minimumLevel: Int, lhs start: ExpressionNode? = nil
    ) throws(Diagnostic) -> ExpressionNode {
        var lhs: ExpressionNode
        if let start { lhs = start } else { lhs = try parseUnary() }
        while let (level, op) = binaryOperator(current.kind), level >= minimumLevel {
            _ = advance()
            var rhs = try parseUnary()
            while let (nextLevel, _) = binaryOperator(current.kind), nextLevel > level {
                rhs = try parseBinary(minimumLevel: level + 1, lhs: rhs)
            }
            let range = lhs.range.union(rhs.range)
            switch op {
            case .function(let selector):
                lhs = try checked(ExpressionNode(.function(selector, [lhs, rhs]), range: range))
            case .set(let setOperator):
                lhs = try checked(ExpressionNode(.setOperation(setOperator, lhs, rhs), range: range))
            }
        }
        return lhs
    }

    /// Implements grammar rule `UnaryExpr`.
    private mutating func parseUnary() throws(Diagnostic) -> ExpressionNode {
        if current.kind == .tilde { throw error(.unsupportedTilde, at: current.range) }
        guard let minus = consume(.minus) else { return try parsePower() }
        try enter()
        defer { leave() }
        let operandStart = current
        let operand = try parseUnary()
        if case .function("raise:toPower:", _) = operand.kind, operandStart.kind != .leftParen {
            warn(.unaryMinusBeforePower, at: minus.range.union(operand.range))
        }
        return try negated(operand, range: minus.range.union(operand.range))
    }

    /// `-x`: a negated constant for a number literal, otherwise `0 - x` as Apple builds it.
    private func negated(_ operand: ExpressionNode, range: SourceRange) throws(Diagnostic) -> ExpressionNode {
        if case .constant(let value) = operand.kind {
            switch value {
            case .int(let number) where number != .min:
                return ExpressionNode(.constant(.int(-number)), range: range)
            case .int:
                return ExpressionNode(.constant(.uint(1 << 63)), range: range)
            case .uint(let number) where number == 1 << 63:
                return ExpressionNode(.constant(.int(.min)), range: range)
            case .uint(let number):
                return ExpressionNode(.constant(.double(-Double(number))), range: range)
            case .double(let number):
                return ExpressionNode(.constant(.double(-number)), range: range)
            default:
                break
            }
        }
        let zero = ExpressionNode(.constant(.int(0)), range: SourceRange(range.lowerBound, range.lowerBound))
        return try checked(ExpressionNode(.function("from:subtract:", [zero, operand]), range: range))
    }

    /// Implements grammar rule `PowExpr`: `**` binds tighter than unary minus, left-associative.
    private mutating func parsePower(from primary: ExpressionNode? = nil) throws(Diagnostic) -> ExpressionNode {
        var base = try parsePostfix(from: primary)
        while consume(.power) != nil {
            let exponent = try parsePowerOperand()
            base = try checked(
                ExpressionNode(.function("raise:toPower:", [base, exponent]), range: base.range.union(exponent.range)))
        }
        return base
    }

    /// Implements grammar rule `PowOperand`: `2 ** -1` is allowed.
    private mutating func parsePowerOperand() throws(Diagnostic) -> ExpressionNode {
        guard let minus = consume(.minus) else { return try parsePostfix() }
        try enter()
        defer { leave() }
        let operand = try parsePowerOperand()
        return try negated(operand, range: minus.range.union(operand.range))
    }

    /// Implements grammar rules `PostfixExpr`, `Postfix`, `KeyComponent`, `IndexSpec`.
    private mutating func parsePostfix(from primary: ExpressionNode? = nil) throws(Diagnostic) -> ExpressionNode {
        var expression: ExpressionNode
        var extendsPath: Bool
        if let primary {
            expression = primary
            extendsPath = false
        } else {
            let start = current.kind
            expression = try parsePrimaryExpression()
            switch start {
            case .identifier, .atKey, .format, .keyword(.self), .variable: extendsPath = true
            default: extendsPath = false
            }
        }
        while true {
            if consume(.dot) != nil {
                // Read the whole run of `.key`s before building the node: extending the node once
                // per key copies the path every time, which is quadratic in its length.
                var components = try parseKeyComponents()
                var last = components
                while consume(.dot) != nil {
                    last = try parseKeyComponents()
                    components += last
                }
                let range = expression.range.union(previousRange)
                if extendsPath, case .keyPath(let base, let existing) = expression.kind {
                    expression = ExpressionNode(.keyPath(base: base, components: existing + components), range: range)
                } else {
                    expression = try checked(
                        ExpressionNode(.keyPath(base: expression, components: components), range: range))
                }
                extendsPath = true
                if current.kind == .leftBracket {
                    expression = try parseIndexAfterKey(expression, lastKey: last)
                    extendsPath = false
                }
            } else if current.kind == .leftBracket {
                let (spec, close) = try parseBracketedIndex()
                expression = try checked(ExpressionNode(.index(expression, spec), range: expression.range.union(close)))
                extendsPath = false
            } else {
                return expression
            }
        }
    }

    /// `base.key[index]`: Apple's grammar binds the index to the key after the last dot, not to
    /// the whole path, so `a.d[0]` is `a.(d[0])`: the key path `a`, then `valueForKeyPath:` with
    /// the value of `d[0]` (evaluated, like any `FUNCTION` argument, on `SELF`), which must be a
    /// string. A test run on Apple's Foundation (daydreamboy's Test_NSExpression) evaluates
    /// `a.c + (a.d)[0] + 1` and expects `a.c + a.d[0] + 1` to raise. With nothing before the dot
    /// but `SELF` (`SELF.d[0]`) the index applies to `d`, as Apple drops a leading `SELF`.
    private mutating func parseIndexAfterKey(
        _ path: ExpressionNode, lastKey: [KeyComponent]
    ) throws(Diagnostic) -> ExpressionNode {
        guard case .keyPath(let base, let components) = path.kind, lastKey.count <= components.count else {
            return path
        }
        let start = path.range.lowerBound
        var indexed: ExpressionNode
        if lastKey.count == 1, case .variable(let name) = lastKey[0] {
            indexed = ExpressionNode(.variable(name), range: path.range)
        } else {
            indexed = ExpressionNode(
                .keyPath(base: ExpressionNode(.evaluatedObject, range: path.range), components: lastKey),
                range: path.range)
        }
        while current.kind == .leftBracket {
            let (spec, close) = try parseBracketedIndex()
            indexed = try checked(ExpressionNode(.index(indexed, spec), range: SourceRange(start, close.upperBound)))
        }
        let remaining = Array(components.dropLast(lastKey.count))
        let receiver: ExpressionNode
        if remaining.isEmpty {
            if case .evaluatedObject = base.kind { return indexed }
            receiver = base
        } else {
            receiver = ExpressionNode(.keyPath(base: base, components: remaining), range: path.range)
        }
        return try checked(
            ExpressionNode(
                .invoke(receiver: receiver, selector: "valueForKeyPath:", arguments: [indexed]),
                range: SourceRange(start, indexed.range.upperBound)))
    }

    /// Apple's parser takes no reserved word after `@` (Realm's maintainers, whose queries Apple
    /// parses, report `@any` and `@all` rejected), so neither does this one.
    private func rejectReservedWordAfterAt(_ key: String, at range: SourceRange) throws(Diagnostic) {
        if Keyword.isReserved(key.dropFirst()) { throw error(.reservedWordAfterAt(key), at: range) }
    }

    /// The component(s) after a `.`: one key, or the keys of a spliced `%K` argument.
    private mutating func parseKeyComponents() throws(Diagnostic) -> [KeyComponent] {
        let token = current
        switch token.kind {
        case .identifier(let name, _):
            _ = advance()
            return [.key(name)]
        case .atKey(let name):
            try rejectReservedWordAfterAt(name, at: token.range)
            _ = advance()
            return [.key(name)]
        case .string(let key):
            _ = advance()
            return [.key(key)]
        case .variable(let name):
            _ = advance()
            return [.variable(name)]
        case .keyword(.self):
            _ = advance()
            return [.key("self")]
        case .keyword(.first), .keyword(.last), .keyword(.size):
            // Apple takes the index symbols as keys after a dot: a suite run on Apple's
            // Foundation (Couchbase Lite's QueryTest) parses `name.first == $FIRSTNAME` into the
            // key path `name.first`. No evidence shows other reserved words there.
            _ = advance()
            return [.key(text(of: token))]
        case .keyword:
            throw error(.reservedWordAsKey(text(of: token)), at: token.range)
        case .format(let specifier) where specifier.conversion == "K":
            _ = advance()
            return try splicedKeys(at: token.range)
        default:
            throw unexpected("a key after '.'")
        }
    }

    /// `[index]`, the current token being the `[`: the index and the range of the `]`.
    private mutating func parseBracketedIndex() throws(Diagnostic) -> (IndexSpec, SourceRange) {
        let open = advance()
        try enter()
        defer { leave() }
        let spec = try parseIndexSpec()
        guard let close = consume(.rightBracket) else {
            throw unexpected("']' to close the '[' at \(source.location(of: open.range.lowerBound))")
        }
        return (spec, close.range)
    }

    private mutating func parseIndexSpec() throws(Diagnostic) -> IndexSpec {
        // FIRST, LAST and SIZE are reserved, so they cannot start an index expression: take them
        // as symbols, and let a missing `]` be reported as such.
        switch current.kind {
        case .keyword(.first):
            _ = advance()
            return .first
        case .keyword(.last):
            _ = advance()
            return .last
        case .keyword(.size):
            _ = advance()
            return .size
        default:
            break
        }
        return .expression(try parseExpression())
    }

    /// A `%K` argument split into keys: it must be a string of non-empty dotted components.
    private mutating func splicedKeys(at range: SourceRange) throws(Diagnostic) -> [KeyComponent] {
        let argument = try nextArgument(at: range)
        guard case .string(let path) = argument else {
            throw error(.expected("a string argument for '%K'", found: argument.kindName), at: range)
        }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false)
        guard keys.allSatisfy({ !$0.isEmpty }) else { throw error(.invalidKeyArgument(path), at: range) }
        return keys.map { .key(String($0)) }
    }

    /// Implements grammar rules `PrimaryExpr`, `Literal`, `KeyPathStart`, `FormatArg`.
    private mutating func parsePrimaryExpression() throws(Diagnostic) -> ExpressionNode {
        let token = current
        let range = token.range
        switch token.kind {
        case .number(let value):
            _ = advance()
            return ExpressionNode(.constant(value), range: range)
        case .string(let value):
            _ = advance()
            return ExpressionNode(.constant(.string(value)), range: range)
        case .keyword(.true), .keyword(.yes):
            _ = advance()
            return ExpressionNode(.constant(.bool(true)), range: range)
        case .keyword(.false), .keyword(.no):
            _ = advance()
            return ExpressionNode(.constant(.bool(false)), range: range)
        case .keyword(.null), .keyword(.nil):
            _ = advance()
            return ExpressionNode(.constant(.nil), range: range)
        case .keyword(.self):
            _ = advance()
            return ExpressionNode(.evaluatedObject, range: range)
        case .variable(let name):
            _ = advance()
            return ExpressionNode(.variable(name), range: range)
        case .atKey(let name):
            try rejectReservedWordAfterAt(name, at: range)
            _ = advance()
            return rootedKeyPath([.key(name)], range: range)
        case .identifier(let name, let escaped):
            if peek().kind == .leftParen {
                if !escaped, name.uppercased() == "TERNARY" { return try parseTernary() }
                return try parseFunctionCall(name: name, selectorStyle: false)
            }
            _ = advance()
            return rootedKeyPath([.key(name)], range: range)
        case .selector(let name):
            guard peek().kind == .leftParen else { throw error(.selectorWithoutCall(name), at: range) }
            return try parseFunctionCall(name: name, selectorStyle: true)
        case .format(let specifier):
            _ = advance()
            return try substitution(specifier, at: range)
        case .leftBrace:
            return try parseAggregate()
        case .leftParen:
            let open = advance()
            try enter()
            openers.append(Opener(token: open, construct: ""))
            defer {
                leave()
                openers.removeLast()
            }
            let inner = try parseExpression()
            let close = try closeParenthesis(
                expected: "')' to close the '(' at \(source.location(of: open.range.lowerBound))")
            return inner.withRange(open.range.union(close.range))
        case .keyword(.subquery):
            return try parseSubquery()
        case .keyword(.function):
            return try parseFunctionExpression()
        case .keyword(.cast):
            return try parseCast()
        case .keyword(.anyKey):
            _ = advance()
            return ExpressionNode(.anyKey, range: range)
        case .keyword(.first), .keyword(.last), .keyword(.size), .keyword(.apply), .keyword(.union),
            .keyword(.intersection), .keyword(.minus), .keyword(.tokenMatches), .keyword(.like),
            .keyword(.matches), .keyword(.contains), .keyword(.between), .keyword(.beginsWith),
            .keyword(.endsWith), .keyword(.in), .keyword(.utiEquals), .keyword(.utiConformsTo):
            if case .keyword(let keyword) = token.kind, [.first, .last, .size, .apply].contains(keyword) {
                throw error(.reservedWordAsKey(text(of: token)), at: range)
            }
            throw unexpected("an expression")
        default:
            throw unexpected("an expression")
        }
    }

    private func rootedKeyPath(_ components: [KeyComponent], range: SourceRange) -> ExpressionNode {
        ExpressionNode(
            .keyPath(base: ExpressionNode(.evaluatedObject, range: range), components: components), range: range)
    }

    /// A format specifier replaced by its argument (SPEC §2.8).
    private mutating func substitution(
        _ specifier: FormatSpecifier, at range: SourceRange
    ) throws(Diagnostic) -> ExpressionNode {
        switch specifier.conversion {
        case "%":
            return ExpressionNode(.constant(.string("%")), range: range)
        case "K":
            return rootedKeyPath(try splicedKeys(at: range), range: range)
        default:
            let argument = try nextArgument(at: range)
            return ExpressionNode(.constant(argument == .null ? .nil : argument), range: range)
        }
    }

    /// Implements grammar rule `Aggregate`.
    private mutating func parseAggregate() throws(Diagnostic) -> ExpressionNode {
        let open = try expect(.leftBrace, "'{'")
        try enter()
        defer { leave() }
        var elements: [ExpressionNode] = []
        if current.kind != .rightBrace {
            repeat {
                elements.append(try parseExpression())
            } while consume(.comma) != nil
        }
        guard let close = consume(.rightBrace) else {
            throw unexpected("',' or '}' to close the '{' at \(source.location(of: open.range.lowerBound))")
        }
        return try checked(ExpressionNode(.aggregate(elements), range: open.range.union(close.range)))
    }

    /// The parenthesised, comma-separated arguments of a call; `name` is for messages.
    private mutating func parseArguments(
        of name: String
    ) throws(Diagnostic) -> (arguments: [ExpressionNode], close: Token) {
        let open = try expect(.leftParen, "'(' after '\(name)'")
        try enter()
        defer { leave() }
        var arguments: [ExpressionNode] = []
        if current.kind != .rightParen {
            repeat {
                arguments.append(try parseExpression())
            } while consume(.comma) != nil
        }
        guard let close = consume(.rightParen) else {
            throw unexpected("',' or ')' to close the '(' at \(source.location(of: open.range.lowerBound))")
        }
        return (arguments, close)
    }

    /// Implements grammar rules `FunctionCall`, `NullaryFunction`, `UnaryFunction`, `AggregateFunction`,
    /// `UnarySelector`, `AggregateSelector`, `BinarySelector` (the names themselves are looked up in
    /// ``BuiltinFunction``).
    private mutating func parseFunctionCall(name: String, selectorStyle: Bool) throws(Diagnostic) -> ExpressionNode {
        let nameToken = advance()
        let (arguments, close) = try parseArguments(of: name)
        let range = nameToken.range.union(close.range)
        let selector = selectorStyle ? name : arguments.isEmpty ? name : name + ":"
        switch selector {
        case "castObject:toType:" where arguments.count == 2:
            return try checked(ExpressionNode(.cast(arguments[0], arguments[1]), range: range))
        case "objectFrom:withIndex:" where arguments.count == 2:
            return try checked(ExpressionNode(.index(arguments[0], .expression(arguments[1])), range: range))
        default:
            break
        }
        guard let function = BuiltinFunction.named(selector) else {
            // `now(1)` and `sum()` name a real function with the wrong number of arguments.
            let otherSelector = selector.hasSuffix(":") ? String(selector.dropLast()) : selector + ":"
            if !selectorStyle, let function = BuiltinFunction.named(otherSelector) {
                throw error(
                    .wrongArgumentCount(function: function.selector, expected: function.arity, found: arguments.count),
                    at: range)
            }
            let suggestion = BuiltinFunction.suggestion(for: name)
            throw error(.unknownFunction(name, suggestion: suggestion), at: nameToken.range)
        }
        var packed = arguments
        if function.packsArguments, arguments.count > 1 {
            let elementsRange = arguments[0].range.union(arguments[arguments.count - 1].range)
            packed = [ExpressionNode(.aggregate(arguments), range: elementsRange)]
        }
        guard packed.count == function.arity else {
            throw error(
                .wrongArgumentCount(function: function.selector, expected: function.arity, found: arguments.count),
                at: range)
        }
        return try checked(ExpressionNode(.function(function.selector, packed), range: range))
    }

    /// Implements grammar rule `Subquery`.
    private mutating func parseSubquery() throws(Diagnostic) -> ExpressionNode {
        let keyword = advance()
        let open = try expect(.leftParen, "'(' after 'SUBQUERY'")
        try enter()
        openers.append(Opener(token: open, construct: "SUBQUERY"))
        defer {
            leave()
            openers.removeLast()
        }
        let collection = try parseExpression()
        try expect(.comma, "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw error(.subqueryNeedsVariable, at: current.range)
        }
        _ = advance()
        try expect(.comma, "',' after the SUBQUERY variable")
        let predicate = try parsePredicate()
        let close = try closeParenthesis(
            expected: "')' to close the SUBQUERY '(' at \(source.location(of: open.range.lowerBound))")
        let kind = ExpressionKind.subquery(collection: collection, variable: variable, predicate: predicate)
        return try checked(ExpressionNode(kind, range: keyword.range.union(close.range)))
    }

    /// Implements grammar rule `Ternary`.
    private mutating func parseTernary() throws(Diagnostic) -> ExpressionNode {
        let keyword = advance()
        let open = try expect(.leftParen, "'(' after 'TERNARY'")
        try enter()
        defer { leave() }
        let condition = try parsePredicate()
        try expect(.comma, "',' after the TERNARY condition")
        let whenTrue = try parseExpression()
        try expect(.comma, "',' after the TERNARY true value")
        let whenFalse = try parseExpression()
        guard let close = consume(.rightParen) else {
            throw unexpected("')' to close the TERNARY '(' at \(source.location(of: open.range.lowerBound))")
        }
        return try checked(
            ExpressionNode(.ternary(condition, whenTrue, whenFalse), range: keyword.range.union(close.range)))
    }

    /// Implements grammar rule `Function`: `FUNCTION(receiver, 'selector', args…)`.
    private mutating func parseFunctionExpression() throws(Diagnostic) -> ExpressionNode {
        let keyword = advance()
        let open = try expect(.leftParen, "'(' after 'FUNCTION'")
        try enter()
        defer { leave() }
        let receiver = try parseExpression()
        try expect(.comma, "',' after the FUNCTION receiver")
        let selectorToken = current
        let selector: String
        switch selectorToken.kind {
        case .string(let name):
            _ = advance()
            selector = name
        case .format(let specifier) where specifier.conversion == "@":
            _ = advance()
            guard case .string(let name) = try nextArgument(at: selectorToken.range) else {
                throw error(.selectorNotString, at: selectorToken.range)
            }
            selector = name
        default:
            throw error(.selectorNotString, at: selectorToken.range)
        }
        var arguments: [ExpressionNode] = []
        while consume(.comma) != nil {
            arguments.append(try parseExpression())
        }
        guard let close = consume(.rightParen) else {
            throw unexpected("',' or ')' to close the FUNCTION '(' at \(source.location(of: open.range.lowerBound))")
        }
        let kind = ExpressionKind.invoke(receiver: receiver, selector: selector, arguments: arguments)
        return try checked(ExpressionNode(kind, range: keyword.range.union(close.range)))
    }

    /// Implements grammar rule `Cast`.
    private mutating func parseCast() throws(Diagnostic) -> ExpressionNode {
        let keyword = advance()
        let (arguments, close) = try parseArguments(of: "CAST")
        guard arguments.count == 2 else {
            throw error(
                .wrongArgumentCount(function: "CAST", expected: 2, found: arguments.count),
                at: keyword.range.union(close.range))
        }
        return try checked(ExpressionNode(.cast(arguments[0], arguments[1]), range: keyword.range.union(close.range)))
    }
}
