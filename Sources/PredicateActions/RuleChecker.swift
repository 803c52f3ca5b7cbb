import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A suggested edit: replace the source text in ``range`` with ``replacement``.
public struct FixIt: Hashable, Sendable {
    /// The UTF-8 byte range of the rule to replace (empty to insert).
    public let range: SourceRange
    /// The text to put there.
    public let replacement: String

    /// Creates a fix-it.
    public init(range: SourceRange, replacement: String) {
        self.range = range
        self.replacement = replacement
    }

    /// The rule with the edit applied.
    public func applied(to source: String) -> String {
        let bytes = Array(source.utf8)
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[..<lower], as: UTF8.self) + replacement
            + String(decoding: bytes[upper...], as: UTF8.self)
    }
}

/// One problem a ``RuleChecker`` found: a positioned diagnostic and, where possible, a fix-it.
public struct RuleFinding: Hashable, Sendable {
    /// Where, how serious and what (``Diagnostic/rendered(colored:)`` draws it with a caret).
    public let diagnostic: Diagnostic
    /// An edit that fixes the problem, when one is known.
    public let fixIt: FixIt?

    /// Creates a finding.
    public init(_ diagnostic: Diagnostic, fixIt: FixIt? = nil) {
        self.diagnostic = diagnostic
        self.fixIt = fixIt
    }

    /// ``Diagnostic/severity``.
    public var severity: Diagnostic.Severity { diagnostic.severity }
    /// ``Diagnostic/message``.
    public var message: String { diagnostic.message }
}

/// Checks a rule against the type of what it will run on, before it runs: unknown keys (with a
/// did-you-mean), misspelt context keys, type mismatches, UTI operators on type objects, malformed
/// `BETWEEN` ranges, regular expressions that do not compile, unbound variables, SUBQUERY
/// predicates that ignore their variable, `ANY … == nil`, constant comparisons, `.count` for
/// `@count`, contradictory `AND`s, masks that select no bit, type identifiers one letter from a
/// known one, and the parser's own warnings (AND/OR mixed without parentheses, …).
///
/// ```swift
/// let findings = RuleChecker().check("SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0")
/// // error: FileProviderItem has no key 'uploadded'; did you mean 'uploaded' (or 'isUploaded')?
/// ```
public struct RuleChecker: Sendable {
    /// The type of `SELF` (the File Provider activation context by default).
    public var selfType: ValueType
    /// The variables the rule is evaluated with, and their types (none for File Provider rules).
    public var variables: [String: ValueType]

    /// `SELF` of a context-menu action's rule: `{fileproviderItems: [FileProviderItem]}`.
    public static let fileProviderActivation = FileProviderActionList.activationContextType

    /// `SELF` of an `NSFileProviderUserInteractions` rule (SPEC §5.4): `action`, `sourceItem`,
    /// `destinationItem`, `sourceItemsCount` and `domainUserInfo`.
    public static let fileProviderUserInteraction = ValueType.record([
        "action": .string,
        "sourceItem": .optional(.object(SchemaReference(FileProviderItem.schema))),
        "destinationItem": .optional(.object(SchemaReference(FileProviderItem.schema))),
        "sourceItemsCount": .integer,
        "domainUserInfo": .dictionary(.any),
    ])

    /// The strings a key of `SELF` can hold, when they are a fixed set: a literal compared with the
    /// key that is not one of them draws a warning with a did-you-mean. By default, `action` of the
    /// user-interaction context (`Move`, `MoveOut`, …, SPEC §5.4).
    public var knownStrings: [String: [String]]

    /// Creates a checker for rules evaluated on `selfType` with `variables`.
    public init(
        selfType: ValueType = RuleChecker.fileProviderActivation, variables: [String: ValueType] = [:],
        knownStrings: [String: [String]]? = nil
    ) {
        self.selfType = selfType
        self.variables = variables
        self.knownStrings =
            knownStrings
            ?? (selfType == RuleChecker.fileProviderUserInteraction
                ? ["action": UserInteractionAction.allCases.map(\.rawValue)] : [:])
    }

    /// The findings for `source`, in source order: a rule that does not parse has exactly one
    /// finding, its syntax error.
    public func check(_ source: String) -> [RuleFinding] {
        let parsed: ParsedPredicate
        do throws(Diagnostic) {
            parsed = try PredicateParser.parsePredicate(source)
        } catch {
            return [RuleFinding(error)]
        }
        var walk = CheckWalk(source: source, selfType: selfType)
        walk.knownStrings = knownStrings
        walk.findings = parsed.warnings.map { RuleFinding($0) }
        if case .constant(false) = parsed.predicate.kind {
            walk.report("the rule is FALSEPREDICATE: it is never true", .warning, parsed.predicate.range)
        }
        walk.check(parsed.predicate, variables)
        for finding in SuspiciousRules.findings(in: parsed.predicate, source: source) {
            walk.report(finding.message, .warning, finding.range, fixIt: finding.fixIt)
        }
        var seen = Set<RuleFinding>()
        return walk.findings.filter { seen.insert($0).inserted }.sorted {
            $0.diagnostic.range.lowerBound < $1.diagnostic.range.lowerBound
        }
    }
}

/// The broad kinds of value comparisons care about.
private enum Category: Equatable {
    case string, number, date, data, collection, dictionary, typeObject, object
}

private struct CheckWalk {
    let source: String
    let bytes: [UInt8]
    let selfType: ValueType
    var knownStrings: [String: [String]] = [:]
    var findings: [RuleFinding] = []

    init(source: String, selfType: ValueType) {
        self.source = source
        self.bytes = Array(source.utf8)
        self.selfType = selfType
    }

    /// At most this many findings are kept: each carries its source line, so an enormous rule with
    /// a finding every few bytes would otherwise cost quadratic time and memory.
    static let maximumFindings = 64

    mutating func report(
        _ message: String, _ severity: Diagnostic.Severity, _ range: SourceRange, fixIt: FixIt? = nil
    ) {
        guard findings.count < Self.maximumFindings else { return }
        findings.append(
            RuleFinding(Diagnostic(.ruleCheck(message), severity: severity, range: range, source: source), fixIt: fixIt)
        )
    }

    func text(_ range: SourceRange) -> String {
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    /// The range of `key`'s text inside `range`, searching from `start`.
    func range(of key: String, in range: SourceRange, from start: Int) -> SourceRange {
        let needle = Array(key.utf8)
        let upper = min(range.upperBound, bytes.count)
        var index = max(start, range.lowerBound)
        while !needle.isEmpty, index + needle.count <= upper {
            if Array(bytes[index..<index + needle.count]) == needle { return SourceRange(index, index + needle.count) }
            index += 1
        }
        return range
    }

    // MARK: Predicates

    mutating func check(_ predicate: PredicateNode, _ variables: [String: ValueType]) {
        switch predicate.kind {
        case .constant:
            return
        case .not(let operand):
            check(operand, variables)
        case .and(let operands), .or(let operands):
            for operand in operands { check(operand, variables) }
        case .comparison(let comparison):
            check(comparison, range: predicate.range, variables)
        }
    }

    private mutating func check(_ comparison: Comparison, range: SourceRange, _ variables: [String: ValueType]) {
        let lhsType = type(of: comparison.lhs, variables)
        let rhsType = type(of: comparison.rhs, variables)
        var left = lhsType
        let op = comparison.op
        let opText = op.rawValue
        if comparison.quantifier != .direct {
            if case .array(let element) = lhsType.unwrapped {
                left = element
                let ordering: Set<ComparisonOperator> = [.less, .lessOrEqual, .greater, .greaterOrEqual, .between]
                if case .optional = element, ordering.contains(op) {
                    report(
                        "'\(text(comparison.lhs.range))' may hold NSNull for an element without the value, and "
                            + "ordering NSNull fails, hiding the action; use SUBQUERY(collection, $i, $i.key \(opText) "
                            + "…).@count > 0", .warning, range)
                }
            } else {
                left = .any
                if let kind = category(lhsType), kind != .collection {
                    report(
                        "\(comparison.quantifier.rawValue) needs a collection on its left, and "
                            + "'\(text(comparison.lhs.range))' is \(describe(lhsType)): the rule fails", .error,
                        comparison.lhs.range)
                }
            }
        }

        if isConstant(comparison.lhs), isConstant(comparison.rhs) {
            let predicate = PredicateNode(.comparison(comparison), range: range)
            do {
                let value = try Interpreter().evaluate(predicate, on: .nil)
                report(
                    "this comparison of two constants is always \(value)", .warning, range,
                    fixIt: FixIt(range: range, replacement: value ? "TRUEPREDICATE" : "FALSEPREDICATE"))
            } catch {
                report("this comparison of two constants always fails: \(error.message)", .error, range)
            }
            return
        }

        checkKnownStrings(comparison)
        let nilOperand = isNil(comparison.rhs) || isNil(comparison.lhs)
        if comparison.quantifier == .direct, isNil(comparison.rhs), op == .equal || op == .notEqual,
            category(lhsType) != nil, !Self.isOptional(lhsType)
        {
            report(
                "'\(text(comparison.lhs.range))' is never nil, so this comparison is always \(op == .notEqual)",
                .warning, range)
        }
        if comparison.quantifier == .direct, isCount(comparison.lhs), case .constant(let value) = comparison.rhs.kind,
            let bound = Self.integer(value), let answer = Self.countComparison(op, bound)
        {
            report(
                "a count is never negative, so this comparison is always \(answer)", .warning, range,
                fixIt: FixIt(range: range, replacement: answer ? "TRUEPREDICATE" : "FALSEPREDICATE"))
        }
        if comparison.quantifier != .direct, nilOperand, op == .equal || op == .notEqual {
            let word = comparison.quantifier.rawValue
            report(
                "'\(word) … \(opText) nil' does not see missing values: inside a quantifier they are NSNull, not nil, "
                    + "so it is \(op == .equal ? "false" : "true") even when an item lacks the value; use "
                    + "SUBQUERY(collection, $i, $i.key \(opText) nil).@count > 0", .warning, range)
        }

        switch op {
        case .utiConformsTo, .utiEquals:
            for (operand, operandType) in [(comparison.lhs, left), (comparison.rhs, rhsType)]
            where category(operandType) == .typeObject {
                report(
                    "\(opText) needs type identifier strings, and '\(text(operand.range))' is a type object: "
                        + "the comparison raises and the rule is false; use '\(text(operand.range)).identifier'",
                    .error, operand.range,
                    fixIt: FixIt(
                        range: SourceRange(operand.range.upperBound, operand.range.upperBound),
                        replacement: ".identifier"))
            }
            for (operand, operandType) in [(comparison.lhs, left), (comparison.rhs, rhsType)] {
                if let kind = category(operandType), kind != .string, kind != .typeObject, kind != .collection {
                    report(
                        "\(opText) needs a type identifier string, not \(describe(operandType))", .error,
                        operand.range)
                }
            }
        case .between:
            checkBetween(comparison.rhs, rhsType)
            checkMismatch(left, rangeElement(comparison.rhs), comparison, range, ordering: true)
        case .matches, .like, .beginsWith, .endsWith:
            for (operand, operandType) in [(comparison.lhs, left), (comparison.rhs, rhsType)] {
                if let kind = category(operandType), kind != .string {
                    report(
                        "\(opText) compares strings; '\(text(operand.range))' is \(describe(operandType))", .error,
                        operand.range)
                }
            }
            if op == .like, case .constant(.string(let pattern)) = comparison.rhs.kind {
                do {
                    _ = try LikePattern(pattern, options: comparison.options)
                } catch {
                    report(error.message, .error, comparison.rhs.range)
                }
            }
            if op == .matches, case .constant(.string(let pattern)) = comparison.rhs.kind {
                do {
                    _ = try RegularExpressionMatcher(pattern, options: comparison.options)
                } catch {
                    report("the regular expression does not compile: \(error.message)", .error, comparison.rhs.range)
                }
            }
        case .equal, .notEqual:
            checkMismatch(left, rhsType, comparison, range, ordering: false)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            checkMismatch(left, rhsType, comparison, range, ordering: true)
        case .in, .contains, .tokenMatches:
            break
        }
    }

    /// A literal compared with a key of `SELF` whose values are a known set.
    private mutating func checkKnownStrings(_ comparison: Comparison) {
        guard comparison.quantifier == .direct, [.equal, .notEqual, .in].contains(comparison.op),
            case .keyPath(let base, let components) = comparison.lhs.kind, base.kind == .evaluatedObject,
            components.count == 1, let key = components[0].key, let allowed = knownStrings[key]
        else { return }
        var literals: [ExpressionNode] = [comparison.rhs]
        if case .aggregate(let elements) = comparison.rhs.kind { literals = elements }
        let folds = comparison.options.contains(.caseInsensitive)
        for literal in literals {
            guard case .constant(.string(let value)) = literal.kind else { continue }
            let known = allowed.contains { folds ? $0.lowercased() == value.lowercased() : $0 == value }
            guard !known else { continue }
            let suggestion = DidYouMean.suggestion(for: value, among: allowed)
            var message = "'\(value)' is not a value of \(key) (\(allowed.joined(separator: ", ")))"
            if let suggestion { message += "; did you mean '\(suggestion)'?" }
            let inner = SourceRange(
                literal.range.lowerBound + 1, max(literal.range.lowerBound + 1, literal.range.upperBound - 1))
            report(message, .warning, literal.range, fixIt: suggestion.map { FixIt(range: inner, replacement: $0) })
        }
    }

    private mutating func checkMismatch(
        _ lhs: ValueType, _ rhs: ValueType, _ comparison: Comparison, _ range: SourceRange, ordering: Bool
    ) {
        guard let left = category(lhs), let right = category(rhs), left != right else { return }
        if left == .typeObject || right == .typeObject {
            let operand = left == .typeObject ? comparison.lhs : comparison.rhs
            report(
                "'\(text(operand.range))' is a type object, not a string; compare '\(text(operand.range)).identifier'",
                .error, operand.range,
                fixIt: FixIt(
                    range: SourceRange(operand.range.upperBound, operand.range.upperBound),
                    replacement: ".identifier"))
            return
        }
        if ordering {
            report(
                "cannot order \(describe(lhs)) against \(describe(rhs)): the comparison raises and the rule is false",
                .error, range)
        } else {
            let answer = comparison.op == .equal ? "false" : "true"
            report(
                "\(describe(lhs)) compared with \(describe(rhs)): the comparison is always \(answer)", .warning,
                range)
        }
    }

    private mutating func checkBetween(_ operand: ExpressionNode, _ operandType: ValueType) {
        switch operand.kind {
        case .aggregate(let elements) where elements.count != 2:
            report(
                "BETWEEN needs a range of exactly two bounds, {low, high}; this one has \(elements.count)", .error,
                operand.range)
        case .constant(.array(let elements)) where elements.count != 2:
            report(
                "BETWEEN needs a range of exactly two bounds, {low, high}; this one has \(elements.count)", .error,
                operand.range)
        case .constant(let value):
            if case .array = value { return }
            report("BETWEEN needs a range of two bounds, {low, high}, not a single value", .error, operand.range)
        default:
            if let kind = category(operandType), kind != .collection {
                report(
                    "BETWEEN needs a range of two bounds, {low, high}, not \(describe(operandType))", .error,
                    operand.range)
            }
        }
    }

    private func rangeElement(_ operand: ExpressionNode) -> ValueType {
        switch operand.kind {
        case .aggregate(let elements):
            guard let first = elements.first, case .constant(let value) = first.kind else { return .any }
            return constantType(value)
        default:
            return .any
        }
    }

    // MARK: Expressions

    mutating func type(of expression: ExpressionNode, _ variables: [String: ValueType]) -> ValueType {
        switch expression.kind {
        case .constant(let value):
            return constantType(value)
        case .evaluatedObject:
            return selfType
        case .variable(let name):
            return variableType(name, expression.range, variables)
        case .anyKey:
            return .any
        case .keyPath(let base, let components):
            let baseType = type(of: base, variables)
            return pathType(baseType, components, expression: expression, base: base, variables)
        case .function(let selector, let arguments):
            let types = arguments.map { type(of: $0, variables) }
            return functionType(selector, arguments, types)
        case .invoke(let receiver, _, let arguments):
            _ = type(of: receiver, variables)
            for argument in arguments { _ = type(of: argument, variables) }
            return .any
        case .aggregate(let elements):
            for element in elements { _ = type(of: element, variables) }
            return .array(.any)
        case .index(let base, let spec):
            let baseType = type(of: base, variables)
            if case .expression(let index) = spec { _ = type(of: index, variables) }
            if spec == .size { return .integer }
            if case .array(let element) = baseType.unwrapped { return element }
            return .any
        case .subquery(let collection, let variable, let predicate):
            let collectionType = type(of: collection, variables)
            var element = ValueType.any
            if case .array(let inner) = collectionType.unwrapped { element = inner }
            var inner = variables
            inner[variable] = element
            if !mentions(predicate, variable) {
                report(
                    "the SUBQUERY predicate never uses $\(variable): its bare keys are read from SELF, not from each "
                        + "element; write $\(variable).key", .warning, predicate.range)
            }
            check(predicate, inner)
            return .array(element)
        case .ternary(let condition, let whenTrue, let whenFalse):
            check(condition, variables)
            let first = type(of: whenTrue, variables)
            let second = type(of: whenFalse, variables)
            return first == second ? first : .any
        case .cast(let value, let target):
            _ = type(of: value, variables)
            _ = type(of: target, variables)
            return .any
        case .assignment(_, let value):
            return type(of: value, variables)
        case .setOperation(_, let lhs, let rhs):
            _ = type(of: lhs, variables)
            _ = type(of: rhs, variables)
            return .array(.any)
        }
    }

    private mutating func variableType(
        _ name: String, _ range: SourceRange, _ variables: [String: ValueType]
    ) -> ValueType {
        if let known = variables[name] { return known }
        var message = "the variable $\(name) is never bound: File Provider rules get no variables, so it fails"
        var fixIt: FixIt?
        if case .record(let fields) = selfType.unwrapped,
            let key = fields.keys.first(where: { $0.lowercased() == name.lowercased() })
        {
            message += "; did you mean the key '\(key)'?"
            fixIt = FixIt(range: range, replacement: key)
        }
        report(message, .error, range, fixIt: fixIt)
        return .any
    }

    private mutating func pathType(
        _ baseType: ValueType, _ components: [KeyComponent], expression: ExpressionNode, base: ExpressionNode,
        _ variables: [String: ValueType]
    ) -> ValueType {
        var type = baseType
        // A bare key path's implicit SELF carries the whole path's range.
        var searchFrom = base.kind == .evaluatedObject ? expression.range.lowerBound : base.range.upperBound
        var mapped = false
        for (index, component) in components.enumerated() {
            guard let key = component.key else { return .any }
            let keyRange = range(of: key, in: expression.range, from: searchFrom)
            searchFrom = keyRange.upperBound
            if key.hasPrefix("@") {
                return operatorType(key, type, components.count - index - 1, keyRange)
            }
            switch type.unwrapped {
            case .record(let fields):
                guard let field = fields[key] else {
                    let suggestion = DidYouMean.suggestion(for: key, among: Array(fields.keys))
                    var message = "'\(key)' is not a key of the context, so it reads as nil"
                    if let suggestion { message += "; did you mean '\(suggestion)'?" }
                    report(
                        message, .warning, keyRange,
                        fixIt: suggestion.map { FixIt(range: keyRange, replacement: $0) })
                    return .any
                }
                type = field
            case .dictionary(let values):
                type = .optional(values)
                if values == .any { return .any }
            case .object(let reference):
                guard let field = field(key, reference.schema, keyRange) else { return .any }
                // Through an optional object, any key may read nil.
                if case .optional = type, !Self.isOptional(field) { type = .optional(field) } else { type = field }
            case .array(let element):
                if case .object(let reference) = element.unwrapped, reference.schema.slot(forKey: key) == nil,
                    let operatorKey = Self.collectionOperators[key]
                {
                    report(
                        "'.\(key)' reads the key '\(key)' of every element; the collection's \(operatorKey.what) is "
                            + "'\(operatorKey.name)'", .error, keyRange,
                        fixIt: FixIt(range: keyRange, replacement: operatorKey.name))
                    return key == "count" ? .integer : .any
                }
                if mapped, case .optional = element {
                    report(
                        "this key path maps over a collection and then reads '\(key)' through an optional value: "
                            + "one element without it makes the rule fail; use SUBQUERY", .warning, keyRange)
                }
                switch element.unwrapped {
                case .object(let reference):
                    guard let field = field(key, reference.schema, keyRange) else { return .any }
                    type = .array(field)
                case .dictionary(let values):
                    type = .array(.optional(values))
                default:
                    return .array(.any)
                }
                mapped = true
            default:
                return .any
            }
        }
        return type
    }

    /// The type of an object's field, or `nil` after reporting an unknown key.
    private mutating func field(_ key: String, _ schema: Schema, _ keyRange: SourceRange) -> ValueType? {
        if let slot = schema.slot(forKey: key) { return schema.fields[slot].type }
        var message = "\(schema.typeName) has no key '\(key)': reading it fails, so the rule is false"
        var fixIt: FixIt?
        if let suggestion = DidYouMean.suggestion(for: key, among: schema.keys) {
            message += "; did you mean '\(suggestion)'"
            if let slot = schema.slot(forKey: suggestion), schema.fields[slot].name != suggestion {
                message += " (or '\(schema.fields[slot].name)')"
            } else if let slot = schema.slot(forKey: suggestion),
                let alias = schema.keys.first(where: { $0 != suggestion && schema.slot(forKey: $0) == slot })
            {
                message += " (or '\(alias)')"
            }
            message += "?"
            fixIt = FixIt(range: keyRange, replacement: suggestion)
        }
        report(message, .error, keyRange, fixIt: fixIt)
        return nil
    }

    private mutating func operatorType(
        _ key: String, _ type: ValueType, _ remaining: Int, _ keyRange: SourceRange
    ) -> ValueType {
        guard case .array(let element) = type.unwrapped else { return key == "@count" ? .integer : .any }
        switch key {
        case "@count":
            return .integer
        case "@sum", "@avg":
            if remaining == 0, let kind = category(element), kind != .number {
                report("\(key) adds numbers, and the elements are \(describe(element))", .error, keyRange)
            }
            return .number
        default:
            return .any
        }
    }

    private mutating func functionType(
        _ selector: String, _ arguments: [ExpressionNode], _ types: [ValueType]
    )
        -> ValueType
    {
        switch selector {
        case "count:": return .integer
        case "sum:", "average:", "median:", "stddev:":
            if let first = types.first, case .array(let element) = first.unwrapped, let kind = category(element),
                kind != .number
            {
                report(
                    "\(selector) needs numbers, and the elements are \(describe(element))", .error,
                    arguments[0].range)
            }
            return .number
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            for (argument, argumentType) in zip(arguments, types) {
                if let kind = category(argumentType), kind != .number, kind != .date {
                    report(
                        "arithmetic needs numbers; '\(text(argument.range))' is \(describe(argumentType))",
                        .error, argument.range)
                }
            }
            return .number
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
            "onesComplement:":
            for (argument, argumentType) in zip(arguments, types) {
                if let kind = category(argumentType), kind != .number {
                    report(
                        "bitwise operators need integers; '\(text(argument.range))' is \(describe(argumentType))",
                        .error, argument.range)
                }
            }
            return .integer
        case "uppercase:", "lowercase:": return .string
        case "length:": return .integer
        case "now": return .date
        default: return .any
        }
    }

    // MARK: Helpers

    /// Keys that read like a collection's size or aggregate but are not its `@` operators: on a
    /// collection of items they read a key of each element, which items do not have.
    static let collectionOperators: [String: (name: String, what: String)] = [
        "count": ("@count", "number of elements"), "sum": ("@sum", "sum"), "avg": ("@avg", "average"),
        "min": ("@min", "minimum"), "max": ("@max", "maximum"),
    ]

    static func isOptional(_ type: ValueType) -> Bool {
        if case .optional = type { return true }
        return false
    }

    private func isCount(_ expression: ExpressionNode) -> Bool {
        switch expression.kind {
        case .keyPath(_, let components): return components.last?.key == "@count"
        case .function(let selector, _): return selector == "count:"
        case .index(_, let spec): return spec == .size
        default: return false
        }
    }

    private static func integer(_ value: Value) -> Int64? {
        switch value {
        case .int(let number): return number
        case .uint(let number): return number <= UInt64(Int64.max) ? Int64(number) : nil
        default: return nil
        }
    }

    /// The answer of `count op bound` for every count (0 or more), when it does not depend on the count.
    private static func countComparison(_ op: ComparisonOperator, _ bound: Int64) -> Bool? {
        switch op {
        case .less where bound <= 0, .lessOrEqual where bound < 0, .equal where bound < 0: return false
        case .greaterOrEqual where bound <= 0, .greater where bound < 0, .notEqual where bound < 0: return true
        default: return nil
        }
    }

    private func constantType(_ value: Value) -> ValueType {
        switch value {
        case .bool, .int, .uint, .double, .decimal: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .array, .set: return .array(.any)
        case .dictionary: return .dictionary(.any)
        case .object(let object): return .object(SchemaReference(object.schema))
        case .nil, .null: return .any
        }
    }

    /// The category of a known type (`nil` for `any` and unknowns). Booleans count as numbers, as
    /// `NSNumber` compares them.
    private func category(_ type: ValueType) -> Category? {
        switch type.unwrapped {
        case .bool, .integer, .number: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .array: return .collection
        case .dictionary, .record: return .dictionary
        case .object(let reference):
            return reference.schema === UniformType.schema ? .typeObject : .object
        case .any, .optional: return nil
        }
    }

    private func describe(_ type: ValueType) -> String {
        switch type.unwrapped {
        case .bool: return "a Boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "a collection"
        case .dictionary, .record: return "a dictionary"
        case .object(let reference): return "a \(reference.schema.typeName) object"
        case .any, .optional: return "a value"
        }
    }

    private func isNil(_ expression: ExpressionNode) -> Bool {
        if case .constant(let value) = expression.kind { return value == .nil || value == .null }
        return false
    }

    /// Whether the expression depends on nothing but literals (no key paths, variables or clocks).
    private func isConstant(_ expression: ExpressionNode) -> Bool {
        switch expression.kind {
        case .constant: return true
        case .aggregate(let elements): return elements.allSatisfy(isConstant)
        case .function(let selector, let arguments):
            return !["now", "random", "randomn:"].contains(selector) && arguments.allSatisfy(isConstant)
        default: return false
        }
    }

    private func mentions(_ predicate: PredicateNode, _ variable: String) -> Bool {
        switch predicate.kind {
        case .constant: return false
        case .not(let operand): return mentions(operand, variable)
        case .and(let operands), .or(let operands): return operands.contains { mentions($0, variable) }
        case .comparison(let comparison):
            return mentions(comparison.lhs, variable) || mentions(comparison.rhs, variable)
        }
    }

    private func mentions(_ expression: ExpressionNode, _ variable: String) -> Bool {
        switch expression.kind {
        case .constant, .evaluatedObject, .anyKey: return false
        case .variable(let name): return name == variable
        case .keyPath(let base, let components):
            return mentions(base, variable) || components.contains { $0 == .variable(variable) }
        case .function(_, let arguments), .aggregate(let arguments):
            return arguments.contains { mentions($0, variable) }
        case .invoke(let receiver, _, let arguments):
            return mentions(receiver, variable) || arguments.contains { mentions($0, variable) }
        case .index(let base, let spec):
            if case .expression(let index) = spec, mentions(index, variable) { return true }
            return mentions(base, variable)
        case .subquery(let collection, _, let predicate):
            return mentions(collection, variable) || mentions(predicate, variable)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return mentions(condition, variable) || mentions(whenTrue, variable) || mentions(whenFalse, variable)
        case .cast(let value, let target): return mentions(value, variable) || mentions(target, variable)
        case .assignment(let name, let value): return name == variable || mentions(value, variable)
        case .setOperation(_, let lhs, let rhs): return mentions(lhs, variable) || mentions(rhs, variable)
        }
    }
}
