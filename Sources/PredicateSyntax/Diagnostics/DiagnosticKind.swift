/// Every diagnostic the front end can produce, with its message. Kept in alphabetical order, so
/// that the whole catalogue reads in one place.
public enum DiagnosticKind: Hashable, Sendable {
    /// `AND` and `OR` mixed without parentheses: legal, but readers disagree on the grouping.
    case andOrMixed(parsedAs: String, otherReading: String)
    /// An expression stood where a predicate was expected (`age`, `1`, `TRUE`).
    case bareExpression
    /// A comparison was followed by another comparison operator (`a < b < c`).
    case chainedComparison(String)
    /// Evaluating the rule failed (reported by an engine, with the failing sub-expression).
    case evaluationFailed(String)
    /// Something other than what the grammar allows here.
    case expected(String, found: String)
    /// A `%`-specifier was not given a value: more specifiers than arguments.
    case insufficientArguments(needed: Int, given: Int)
    /// The rule is longer than the configured limit.
    case inputTooLong(bytes: Int, limit: Int)
    /// A `%K` argument that is not a usable key path.
    case invalidKeyArgument(String)
    /// A malformed escape sequence inside a string literal.
    case invalidEscape(String)
    /// A number literal with no digits after its prefix (`0x`), or digits its base cannot hold.
    case invalidNumber(String)
    /// Parentheses, braces, brackets or operators nested deeper than the configured limit.
    case nestingTooDeep(limit: Int)
    /// Comparison options on an operator that ignores them (`BETWEEN[c]`).
    case optionsIgnored(operator: String)
    /// `FUNCTION`'s selector is not a string.
    case selectorNotString
    /// A reserved word where a key was expected (`size == 1`); it must be escaped (`#size`).
    case reservedWordAsKey(String)
    /// `@` followed by a reserved word (`@any`), which Apple's parser rejects.
    case reservedWordAfterAt(String)
    /// A selector-style name (`modulus:by:`) not followed by `(`.
    case selectorWithoutCall(String)
    /// A `SUBQUERY(…)` where a predicate belongs: it is a collection, so its count is compared.
    case subqueryAlone
    /// `SUBQUERY`'s second argument is not a `$variable`.
    case subqueryNeedsVariable
    /// Input continued after a complete predicate or expression.
    case trailingInput(String)
    /// A `(` that no later `)` closes; the diagnostic points at it, not at where the parser gave up.
    /// The payload says what it opens (`SUBQUERY`), or is empty.
    case unclosedParenthesis(String)
    /// A character that starts no token (`?`, a backslash, a control character).
    case unexpectedCharacter(String)
    /// A called function that is not built in; `suggestion` names a close one.
    case unknownFunction(String, suggestion: String?)
    /// An option letter other than `c`, `d`, `n`, `l`, `w`; Apple ignores it, and so do we.
    case unknownOptionLetter(Character)
    /// A `%` conversion that the format-string language does not know (`%b`, `%k`).
    case unrecognizedConversion(String)
    /// `-x ** y` without parentheses: it means `-(x ** y)`.
    case unaryMinusBeforePower
    /// A rule checker's finding about a rule that parses but will not do what it says (an unknown
    /// key, a type mismatch, a constant comparison, …); the message says what and why.
    case ruleCheck(String)
    /// A string literal with no closing quote.
    case unterminatedString
    /// The `~` operator, whose meaning on Apple's platforms is not established.
    case unsupportedTilde
    /// A built-in function called with the wrong number of arguments.
    case wrongArgumentCount(function: String, expected: Int, found: Int)

    /// The message a rule author reads.
    public var message: String {
        switch self {
        case .andOrMixed(let parsed, let other):
            return "AND and OR mixed without parentheses: parsed as \(parsed), not \(other); add parentheses"
        case .bareExpression:
            return "expected a comparison operator: an expression alone is not a predicate (write 'x == YES')"
        case .chainedComparison(let op):
            return "comparisons cannot be chained: '\(op)' after a complete comparison; join them with AND"
        case .evaluationFailed(let message):
            return message
        case .expected(let what, let found):
            return "expected \(what), found \(found)"
        case .insufficientArguments(let needed, let given):
            return "insufficient arguments: the format needs at least \(needed), \(given) given"
        case .inputTooLong(let bytes, let limit):
            return "rule is \(bytes) bytes long; the limit is \(limit)"
        case .invalidKeyArgument(let key):
            return "'%K' needs a key path of non-empty components, got \"\(key)\""
        case .invalidEscape(let text):
            return "invalid escape sequence '\(text)' in string literal"
        case .invalidNumber(let text):
            return "invalid number literal '\(text)'"
        case .nestingTooDeep(let limit):
            return "rule is nested too deeply (the limit is \(limit) levels)"
        case .optionsIgnored(let op):
            return "comparison options have no effect on \(op)"
        case .reservedWordAsKey(let word):
            return "'\(word)' is a reserved word; write #\(word) to use it as a key"
        case .reservedWordAfterAt(let key):
            return "'\(key)': a reserved word cannot follow '@' (as on Apple); quote the key, as in SELF.\"\(key)\""
        case .selectorNotString:
            return "FUNCTION needs the selector name as a string, as in FUNCTION(x, 'lastPathComponent')"
        case .selectorWithoutCall(let name):
            return "'\(name)' must be followed by '(' and its arguments"
        case .subqueryAlone:
            return "a SUBQUERY is a collection, not a predicate: compare its count, as in SUBQUERY(…).@count > 0"
        case .subqueryNeedsVariable:
            return "SUBQUERY needs a variable such as $item as its second argument"
        case .trailingInput(let text):
            return "unexpected \(text) after the end of the rule"
        case .unclosedParenthesis(let construct) where construct == "SUBQUERY":
            return "this SUBQUERY '(' is never closed: add ')' after its predicate, as in "
                + "SUBQUERY(items, $i, $i.x == 1).@count > 0"
        case .unclosedParenthesis(let construct):
            return "this \(construct.isEmpty ? "" : construct + " ")'(' is never closed: add the missing ')'"
        case .unexpectedCharacter(let text):
            return "unexpected character \(text)"
        case .unknownFunction(let name, let suggestion):
            let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
            return "unknown function '\(name)'\(hint)"
        case .unknownOptionLetter(let letter):
            return "unknown comparison option '\(letter)' is ignored (known: c, d, n, l, w)"
        case .unrecognizedConversion(let text):
            return "unrecognized conversion specifier '\(text)'"
        case .ruleCheck(let message):
            return message
        case .unaryMinusBeforePower:
            return "'-x ** y' means '-(x ** y)'; add parentheses to say which you mean"
        case .unterminatedString:
            return "unterminated string literal"
        case .unsupportedTilde:
            return "unsupported operator '~'; use onesComplement(x)"
        case .wrongArgumentCount(let function, let expected, let found):
            let noun = expected == 1 ? "argument" : "arguments"
            return "'\(function)' takes \(expected) \(noun), \(found) given"
        }
    }
}
