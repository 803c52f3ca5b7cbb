import PredicateValue

/// A format specifier such as `%@`, `%K` or `%lld` (SPEC §2.8).
struct FormatSpecifier: Hashable, Sendable {
    /// The specifier as written, `%` included.
    var text: String
    /// The conversion character: `@`, `K`, `d`, `f`, … (`%` for `%%`).
    var conversion: Character
}

/// One token of a rule's source text.
struct Token: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case end
        /// A lexical error, reported when the parser reaches it (so errors come in source order).
        case invalid(DiagnosticKind)
        /// A plain identifier; `escaped` when written `#name`.
        case identifier(String, escaped: Bool)
        case keyword(Keyword)
        /// A selector-style name with colons, such as `modulus:by:`.
        case selector(String)
        /// A string literal, escapes decoded.
        case string(String)
        case number(Value)
        /// `$name`, without the `$`.
        case variable(String)
        /// `@name`, with the `@`.
        case atKey(String)
        case format(FormatSpecifier)
        case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
        case comma, dot, assign
        case equal, notEqual, less, lessEqual, greater, greaterEqual
        case logicalAnd, logicalOr, logicalNot
        case plus, minus, star, slash, power
        case bitAnd, bitOr, bitXor, shiftLeft, shiftRight, tilde
        case utiConformsTo, utiEquals
    }

    var kind: Kind
    var range: SourceRange
}

extension Token.Kind {
    /// How the token reads in a message: `'=='`, `identifier 'name'`, `end of input`.
    var display: String {
        switch self {
        case .end: return "end of input"
        case .invalid(let kind): return kind.message
        case .identifier(let name, _): return "identifier '\(name)'"
        case .keyword(let keyword): return "'\(keyword.rawValue)'"
        case .selector(let name): return "'\(name)'"
        case .string: return "a string"
        case .number: return "a number"
        case .variable(let name): return "'$\(name)'"
        case .atKey(let name): return "'\(name)'"
        case .format(let specifier): return "'\(specifier.text)'"
        default: return "'\(punctuatorSpelling)'"
        }
    }

    /// The spelling of a punctuator or operator token.
    var punctuatorSpelling: String {
        switch self {
        case .leftParen: return "("
        case .rightParen: return ")"
        case .leftBracket: return "["
        case .rightBracket: return "]"
        case .leftBrace: return "{"
        case .rightBrace: return "}"
        case .comma: return ","
        case .dot: return "."
        case .assign: return ":="
        case .equal: return "=="
        case .notEqual: return "!="
        case .less: return "<"
        case .lessEqual: return "<="
        case .greater: return ">"
        case .greaterEqual: return ">="
        case .logicalAnd: return "&&"
        case .logicalOr: return "||"
        case .logicalNot: return "!"
        case .plus: return "+"
        case .minus: return "-"
        case .star: return "*"
        case .slash: return "/"
        case .power: return "**"
        case .bitAnd: return "&"
        case .bitOr: return "|"
        case .bitXor: return "^"
        case .shiftLeft: return "<<"
        case .shiftRight: return ">>"
        case .tilde: return "~"
        case .utiConformsTo: return "UTI-CONFORMS-TO"
        case .utiEquals: return "UTI-EQUALS"
        default: return ""
        }
    }
}
