import Foundation
import PredicateValue

/// How a syntax tree is printed (SPEC §3.9b).
///
/// The two styles differ only in constants that the language cannot write as Apple prints them:
/// floating-point numbers, dates and `NSNull`.
public enum PredicateFormatStyle: Hashable, Sendable, CaseIterable {
    /// What Apple's `predicateFormat` prints, byte for byte: a double as `NSNumber` describes it
    /// (C's `%0.16g`, so `10.0` prints `10` and `10.5` prints `10.5`), a date as
    /// `CAST(-978307200.000000, "NSDate")` (C's `%f`), `NSNull` as `<null>`, also inside
    /// collections. Programs compare and store `predicateFormat` strings, so this is the default.
    ///
    /// Parsing Apple's text can change what it means: `10` comes back as an integer (and
    /// `10 / 4` is `2`, not `2.5`), sixteen digits do not name every double, and `<null>` does
    /// not parse at all (nor does it on Apple).
    case apple
    /// Text that parses back to an equal tree (with the exceptions SPEC §3.9b lists): a double
    /// always keeps a fraction or an exponent (`10.0`) with the shortest digits that name it,
    /// `NSNull` prints `nil`. Use it for text that is parsed again: messages that quote a rule,
    /// files of rules, fuzzers.
    case roundTripSafe
}

extension PredicateNode {
    /// The canonical format string, as Apple's `predicateFormat` prints it (SPEC §3.9b): the same
    /// as ``format(_:)`` with ``PredicateFormatStyle/apple``.
    ///
    /// Constants that the language cannot write (dates, data, arrays and dictionaries passed as
    /// arguments) print in a readable form, `CAST(…, "NSDate")`, `{…}`; host objects print as
    /// `<TypeName>`. For text that must parse back to an equal tree, use
    /// ``PredicateFormatStyle/roundTripSafe``.
    public var format: String { format(.apple) }

    /// The canonical format string in `style`.
    ///
    /// With ``PredicateFormatStyle/roundTripSafe`` parsing the result gives an equal tree, with the
    /// exceptions SPEC §3.9b lists: booleans come back as the numbers `1` and `0`, and `AND`/`OR`
    /// nodes with fewer than two operands come back as their operand or as a constant predicate.
    public func format(_ style: PredicateFormatStyle) -> String {
        var printer = CanonicalPrinter(style: style)
        printer.print(self)
        return printer.output
    }
}

extension PredicateNode {
    /// The start of the round-trip-safe format: printing stops soon after the output passes
    /// `limit` UTF-8 bytes, so that a message quoting a huge tree costs no more than a short one.
    /// Messages quote rules in the round-trip-safe style because readers paste them back.
    func format(limit: Int) -> String {
        var printer = CanonicalPrinter(style: .roundTripSafe, limit: limit)
        printer.print(self)
        return printer.output
    }
}

extension ExpressionNode {
    /// The canonical format string of the expression, as Apple's `NSExpression.description`
    /// prints it (SPEC §3.9b): the same as ``format(_:)`` with ``PredicateFormatStyle/apple``.
    public var format: String { format(.apple) }

    /// The canonical format string of the expression in `style`.
    public func format(_ style: PredicateFormatStyle) -> String {
        var printer = CanonicalPrinter(style: style)
        printer.print(self)
        return printer.output
    }
}

/// Writes syntax trees in Apple's canonical format.
struct CanonicalPrinter {
    /// Which constants print as Apple prints them.
    let style: PredicateFormatStyle
    var output = ""
    /// Printing stops once the output is longer than this many UTF-8 bytes.
    var limit = Int.max

    init(style: PredicateFormatStyle, limit: Int = .max) {
        self.style = style
        self.limit = limit
    }

    private var isFull: Bool { output.utf8.count > limit }

    // MARK: - Predicates

    mutating func print(_ predicate: PredicateNode) {
        if isFull { return }
        switch predicate.kind {
        case .constant(let value):
            output += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand):
            output += "NOT "
            printCompoundOperand(operand)
        case .and(let operands):
            printCompound(operands, connective: " AND ", empty: "TRUEPREDICATE")
        case .or(let operands):
            printCompound(operands, connective: " OR ", empty: "FALSEPREDICATE")
        case .comparison(let comparison):
            print(comparison)
        }
    }

    private mutating func printCompound(_ operands: [PredicateNode], connective: String, empty: String) {
        switch operands.count {
        case 0:
            output += empty
        case 1:
            print(operands[0])
        default:
            for (index, operand) in operands.enumerated() {
                if isFull { return }
                if index > 0 { output += connective }
                printCompoundOperand(operand)
            }
        }
    }

    /// Compound operands (AND, OR, NOT) are parenthesised; comparisons and constants never are.
    private mutating func printCompoundOperand(_ operand: PredicateNode) {
        switch operand.kind {
        case .and, .or, .not:
            output += "("
            print(operand)
            output += ")"
        case .comparison, .constant:
            print(operand)
        }
    }

    private mutating func print(_ comparison: Comparison) {
        if comparison.quantifier != .direct { output += comparison.quantifier.rawValue + " " }
        print(comparison.lhs)
        output += " " + comparison.op.rawValue
        let letters = ComparisonOptions.letters.filter { letter, option in
            comparison.options.contains(option) && (option != .widthInsensitive || comparison.op.keepsWidthOption)
        }
        if !letters.isEmpty { output += "[" + String(letters.map(\.0)) + "]" }
        output += " "
        print(comparison.rhs)
    }

    // MARK: - Expressions

    mutating func print(_ expression: ExpressionNode) {
        if isFull { return }
        switch expression.kind {
        case .constant(let value):
            printConstant(value)
        case .evaluatedObject:
            output += "SELF"
        case .variable(let name):
            printVariable(name)
        case .keyPath(let base, let components):
            printKeyPath(base: base, components: components)
        case .function(let selector, let arguments):
            if arguments.count == 2, let symbol = BuiltinFunction.named(selector)?.infixSymbol {
                printInfixOperand(arguments[0], isPowerBase: symbol == "**")
                output += " \(symbol) "
                printInfixOperand(arguments[1], isPowerBase: false)
            } else {
                output += selector + "("
                printList(arguments)
                output += ")"
            }
        case .invoke(let receiver, let selector, let arguments)
        where CanonicalPrinter.printsAsKeyThenIndex(receiver: receiver, selector: selector, arguments: arguments):
            // `a.d[0]`, what the parser makes of that text (Apple's binding of `[` after `.`).
            if case .keyPath = receiver.kind {
                print(receiver)
            } else {
                printPostfixBase(receiver, beforeKey: true)
            }
            output += "."
            print(arguments[0])
        case .invoke(let receiver, let selector, let arguments):
            output += "FUNCTION("
            print(receiver)
            output += ", " + CanonicalPrinter.quoted(selector)
            if !arguments.isEmpty {
                output += " "
                for argument in arguments {
                    output += ", "
                    print(argument)
                }
            }
            output += ")"
        case .aggregate(let elements):
            output += "{"
            printList(elements)
            output += "}"
        case .index(let base, let spec):
            printPostfixBase(base)
            output += "["
            switch spec {
            case .first: output += "FIRST"
            case .last: output += "LAST"
            case .size: output += "SIZE"
            case .expression(let index): print(index)
            }
            output += "]"
        case .subquery(let collection, let variable, let predicate):
            output += "SUBQUERY("
            print(collection)
            output += ", "
            printVariable(variable)
            output += ", "
            print(predicate)
            output += ")"
        case .ternary(let condition, let whenTrue, let whenFalse):
            output += "TERNARY("
            print(condition)
            output += ", "
            printList([whenTrue, whenFalse])
            output += ")"
        case .cast(let value, let type):
            output += "CAST("
            printList([value, type])
            output += ")"
        case .assignment(let variable, let value):
            printVariable(variable)
            output += " := "
            print(value)
        case .setOperation(let op, let lhs, let rhs):
            printInfixOperand(lhs, isPowerBase: false)
            output += " \(op.rawValue) "
            printInfixOperand(rhs, isPowerBase: false)
        case .anyKey:
            output += "ANYKEY"
        }
    }

    private mutating func printList(_ expressions: [ExpressionNode]) {
        for (index, expression) in expressions.enumerated() {
            if isFull { return }
            if index > 0 { output += ", " }
            print(expression)
        }
    }

    private mutating func printVariable(_ name: String) {
        output += Keyword.isReserved(name) ? "$#" + name : "$" + name
    }

    /// Infix operands that are themselves infix operations are parenthesised, whatever the
    /// precedence, as Apple does: `(a + 1) * 2`, `a + (b * c)`.
    private mutating func printInfixOperand(_ operand: ExpressionNode, isPowerBase: Bool) {
        if CanonicalPrinter.isInfix(operand) || (isPowerBase && CanonicalPrinter.isNegativeNumber(operand)) {
            output += "("
            print(operand)
            output += ")"
        } else {
            print(operand)
        }
    }

    /// The base of `.key` or `[index]`: parenthesised when the postfix would otherwise attach to
    /// something else (an operand, the digits of a negative number, a key path it would extend,
    /// or, for `[index]`, the last key of a dotted path: `(a.d)[0]`, since `a.d[0]` is `a.(d[0])`).
    private mutating func printPostfixBase(_ base: ExpressionNode, beforeKey: Bool = false) {
        var wrap = CanonicalPrinter.isInfix(base) || CanonicalPrinter.isNegativeNumber(base)
        if beforeKey, case .keyPath = base.kind { wrap = true }
        if !beforeKey {
            switch base.kind {
            case .keyPath(let root, let components):
                let isBareKey =
                    components.count == 1 && root.kind == .evaluatedObject
                    && CanonicalPrinter.canStartPath(components[0])
                if !isBareKey { wrap = true }
            case .invoke(let receiver, let selector, let arguments):
                if CanonicalPrinter.printsAsKeyThenIndex(receiver: receiver, selector: selector, arguments: arguments) {
                    wrap = true
                }
            default:
                break
            }
        }
        if wrap { output += "(" }
        print(base)
        if wrap { output += ")" }
    }

    /// Whether `FUNCTION(receiver, 'valueForKeyPath:', key[…])` prints as `receiver.key[…]`: the
    /// argument is an index chain over one key (or a variable) that reads back as one component,
    /// and the receiver is not `SELF` (which the parser drops before a key).
    static func printsAsKeyThenIndex(receiver: ExpressionNode, selector: String, arguments: [ExpressionNode]) -> Bool {
        guard selector == "valueForKeyPath:", arguments.count == 1, receiver.kind != .evaluatedObject,
            case .index = arguments[0].kind
        else { return false }
        var indexed = arguments[0]
        while case .index(let base, _) = indexed.kind { indexed = base }
        switch indexed.kind {
        case .variable:
            return true
        case .keyPath(let root, let components):
            guard root.kind == .evaluatedObject, components.count == 1, case .key = components[0] else { return false }
            return canStartPath(components[0])
        default:
            return false
        }
    }

    private static func isInfix(_ expression: ExpressionNode) -> Bool {
        switch expression.kind {
        case .function(let selector, let arguments):
            return arguments.count == 2 && BuiltinFunction.named(selector)?.infixSymbol != nil
        case .setOperation, .assignment:
            return true
        default:
            return false
        }
    }

    private static func isNegativeNumber(_ expression: ExpressionNode) -> Bool {
        guard case .constant(let value) = expression.kind else { return false }
        switch value {
        case .int(let number): return number < 0
        case .double(let number): return number < 0 || (number == 0 && number.sign == .minus)
        default: return false
        }
    }

    private mutating func printKeyPath(base: ExpressionNode, components: [KeyComponent]) {
        if case .evaluatedObject = base.kind, let first = components.first, CanonicalPrinter.canStartPath(first) {
            // A path rooted at SELF prints without it: `a.b`, `@count`.
        } else {
            printPostfixBase(base, beforeKey: true)
            output += "."
        }
        for (index, component) in components.enumerated() {
            if index > 0 { output += "." }
            switch component {
            case .key(let key): output += CanonicalPrinter.keyText(key)
            case .field(let field): output += CanonicalPrinter.keyText(field.key)
            case .variable(let name): printVariable(name)
            }
        }
    }

    private static func canStartPath(_ component: KeyComponent) -> Bool {
        guard let key = component.key else { return false }
        return isIdentifier(key) || isAtKey(key)
    }

    /// A key as written after `.`: bare, `#`-escaped when reserved, or quoted.
    static func keyText(_ key: String) -> String {
        if isIdentifier(key) { return Keyword.isReserved(key) ? "#" + key : key }
        if isAtKey(key) { return key }
        return quoted(key)
    }

    /// Whether `key` prints as an `@` key; `@` before a reserved word does not parse, so such a
    /// key prints quoted.
    private static func isAtKey(_ key: String) -> Bool {
        key.hasPrefix("@") && isIdentifier(key.dropFirst()) && !Keyword.isReserved(key.dropFirst())
    }

    /// Whether `text` lexes as one identifier (SPEC §2.4.1, with Unicode letters and digits).
    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else {
            return false
        }
        if first.isASCII, !(first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first)) {
            return false
        }
        return text.unicodeScalars.dropFirst().allSatisfy { scalar in
            if scalar.isASCII {
                return scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar)
            }
            return scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
        }
    }

    static func isIdentifier(_ text: String) -> Bool { isIdentifier(text[...]) }

    // MARK: - Constants

    private mutating func printConstant(_ value: Value) {
        switch value {
        case .nil:
            output += "nil"
        case .null:
            // `NSNull`'s description; Apple's guide shows `date == <null>` for a variable bound
            // to it. The parser has no such token (nor has Apple's), so the safe style says `nil`.
            output += style == .apple ? "<null>" : "nil"
        case .bool(let flag):
            output += flag ? "1" : "0"
        case .int(let number):
            output += String(number)
        case .uint(let number):
            output += String(number)
        case .double(let number):
            output += style == .apple ? CanonicalPrinter.appleNumberText(number) : CanonicalPrinter.doubleText(number)
        case .string(let text):
            output += CanonicalPrinter.quoted(text)
        case .date(let seconds):
            let text = style == .apple ? CanonicalPrinter.appleDateText(seconds) : CanonicalPrinter.doubleText(seconds)
            output += "CAST(\(text), \"NSDate\")"
        case .data(let bytes):
            output += "<" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + ">"
        case .decimal(let number):
            output += number.description
        case .object(let object):
            output += "<\(object.schema.typeName)>"
        case .array(let elements), .set(let elements):
            output += "{"
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                printConstant(element)
            }
            output += "}"
        case .dictionary(let entries):
            output += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { output += "; " }
                output += CanonicalPrinter.quoted(key) + " = "
                printConstant(entries[key] ?? .nil)
            }
            output += "}"
        }
    }

    /// A double that lexes back to the same double: always with a fraction or an exponent.
    static func doubleText(_ number: Double) -> String {
        if number.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
        if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
        return number.description
    }

    /// A double as `NSNumber` describes it, C's `%0.16g`: `10`, `10.5`, `0.1`, `1e+16`,
    /// `13.39657778010461`. Not-a-number and the infinities print as Apple's C library does.
    static func appleNumberText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        return String(format: "%0.16g", number)
    }

    /// The seconds of a date constant as Apple prints them inside `CAST(…, "NSDate")`: C's `%f`,
    /// six decimals (`-978307200.000000`).
    static func appleDateText(_ seconds: Double) -> String {
        if seconds.isNaN { return "nan" }
        if seconds.isInfinite { return seconds < 0 ? "-inf" : "inf" }
        return String(format: "%f", seconds)
    }

    /// A string literal in double quotes, with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
