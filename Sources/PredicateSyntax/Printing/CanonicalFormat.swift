import PredicateValue

extension Predicate {
    /// The canonical format string, as Apple's `predicateFormat` prints it (SPEC §3.9b).
    ///
    /// Parsing the result gives an equal tree, with the exceptions SPEC §3.9b lists: booleans
    /// come back as the numbers `1` and `0`, and `AND`/`OR` nodes with fewer than two operands
    /// come back as their operand or as a constant predicate. Constants that the language cannot
    /// write (dates, data, arrays and dictionaries passed as arguments) print in a readable form
    /// that parses to an equivalent expression where one exists (`CAST(…, "NSDate")`, `{…}`);
    /// host objects print as `<TypeName>`.
    public var format: String {
        var printer = CanonicalPrinter()
        printer.print(self)
        return printer.output
    }
}

extension Predicate {
    /// The start of the canonical format: printing stops soon after the output passes `limit`
    /// UTF-8 bytes, so that a message quoting a huge tree costs no more than a short one.
    func format(limit: Int) -> String {
        var printer = CanonicalPrinter(limit: limit)
        printer.print(self)
        return printer.output
    }
}

extension Expression {
    /// The canonical format string of the expression, as Apple's `NSExpression.description`
    /// prints it (SPEC §3.9b).
    public var format: String {
        var printer = CanonicalPrinter()
        printer.print(self)
        return printer.output
    }
}

/// Writes syntax trees in Apple's canonical format.
struct CanonicalPrinter {
    var output = ""
    /// Printing stops once the output is longer than this many UTF-8 bytes.
    var limit = Int.max

    private var isFull: Bool { output.utf8.count > limit }

    // MARK: - Predicates

    mutating func print(_ predicate: Predicate) {
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

    private mutating func printCompound(_ operands: [Predicate], connective: String, empty: String) {
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
    private mutating func printCompoundOperand(_ operand: Predicate) {
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

    mutating func print(_ expression: Expression) {
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

    private mutating func printList(_ expressions: [Expression]) {
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
    private mutating func printInfixOperand(_ operand: Expression, isPowerBase: Bool) {
        if CanonicalPrinter.isInfix(operand) || (isPowerBase && CanonicalPrinter.isNegativeNumber(operand)) {
            output += "("
            print(operand)
            output += ")"
        } else {
            print(operand)
        }
    }

    /// The base of `.key` or `[index]`: parenthesised when the postfix would otherwise attach to
    /// something else (an operand, the digits of a negative number, or a key path it would extend).
    private mutating func printPostfixBase(_ base: Expression, beforeKey: Bool = false) {
        var wrap = CanonicalPrinter.isInfix(base) || CanonicalPrinter.isNegativeNumber(base)
        if beforeKey, case .keyPath = base.kind { wrap = true }
        if wrap { output += "(" }
        print(base)
        if wrap { output += ")" }
    }

    private static func isInfix(_ expression: Expression) -> Bool {
        switch expression.kind {
        case .function(let selector, let arguments):
            return arguments.count == 2 && BuiltinFunction.named(selector)?.infixSymbol != nil
        case .setOperation, .assignment:
            return true
        default:
            return false
        }
    }

    private static func isNegativeNumber(_ expression: Expression) -> Bool {
        guard case .constant(let value) = expression.kind else { return false }
        switch value {
        case .int(let number): return number < 0
        case .double(let number): return number < 0 || (number == 0 && number.sign == .minus)
        default: return false
        }
    }

    private mutating func printKeyPath(base: Expression, components: [KeyComponent]) {
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

    private static func isAtKey(_ key: String) -> Bool {
        key.hasPrefix("@") && isIdentifier(key.dropFirst())
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
        case .nil, .null:
            output += "nil"
        case .bool(let flag):
            output += flag ? "1" : "0"
        case .int(let number):
            output += String(number)
        case .uint(let number):
            output += String(number)
        case .double(let number):
            output += CanonicalPrinter.doubleText(number)
        case .string(let text):
            output += CanonicalPrinter.quoted(text)
        case .date(let seconds):
            output += "CAST(\(CanonicalPrinter.doubleText(seconds)), \"NSDate\")"
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
