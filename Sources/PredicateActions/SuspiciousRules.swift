import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Rules that parse and type-check yet can never do what they say: `AND`s whose comparisons
/// contradict each other, bit masks that select no bit, and type identifiers one letter from a
/// known one. Each finding is a warning, since the rule still runs.
enum SuspiciousRules {
    struct Finding {
        let message: String
        let range: SourceRange
        let fixIt: FixIt?
    }

    /// At most this many type identifiers are looked up for a did-you-mean: each costs an edit
    /// distance against the whole table, and a hostile rule may hold thousands.
    static let maximumTypeLookups = 32

    static func findings(in predicate: PredicateNode, source: String) -> [Finding] {
        var findings: [Finding] = []
        var lookups = maximumTypeLookups
        visit(predicate, source: source, into: &findings, lookups: &lookups)
        return findings
    }

    private static func visit(
        _ predicate: PredicateNode, source: String, into findings: inout [Finding], lookups: inout Int
    ) {
        switch predicate.kind {
        case .constant:
            return
        case .not(let operand):
            visit(operand, source: source, into: &findings, lookups: &lookups)
        case .or(let operands):
            for operand in operands { visit(operand, source: source, into: &findings, lookups: &lookups) }
        case .and(let operands):
            if let contradiction = contradiction(operands, source: source) { findings.append(contradiction) }
            for operand in operands { visit(operand, source: source, into: &findings, lookups: &lookups) }
        case .comparison(let comparison):
            if let mask = emptyMask(comparison, range: predicate.range, source: source) { findings.append(mask) }
            findings += typeIdentifiers(comparison, lookups: &lookups)
            for operand in [comparison.lhs, comparison.rhs] {
                visit(operand, source: source, into: &findings, lookups: &lookups)
            }
        }
    }

    /// The predicates inside an expression (a SUBQUERY's, a TERNARY's condition).
    private static func visit(
        _ expression: ExpressionNode, source: String, into findings: inout [Finding], lookups: inout Int
    ) {
        for child in expression.kind.children {
            switch child {
            case .expression(let inner): visit(inner, source: source, into: &findings, lookups: &lookups)
            case .predicate(let inner): visit(inner, source: source, into: &findings, lookups: &lookups)
            }
        }
    }

    // MARK: - Contradictions

    /// What a conjunct says about one key path: it equals a constant, or lies in a numeric range.
    private struct Constraint {
        var equal: Value?
        var lower: (bound: Double, strict: Bool)?
        var upper: (bound: Double, strict: Bool)?
        var first: SourceRange
    }

    /// Two comparisons of the same key path with constants that no value satisfies together.
    private static func contradiction(_ operands: [PredicateNode], source: String) -> Finding? {
        var constraints: [String: Constraint] = [:]
        for operand in operands {
            guard case .comparison(let comparison) = operand.kind, comparison.quantifier == .direct,
                comparison.options.isEmpty, case .keyPath = comparison.lhs.kind,
                case .constant(let value) = comparison.rhs.kind, value != .nil, value != .null
            else { continue }
            let key = comparison.lhs.format(.roundTripSafe)
            var constraint = constraints[key] ?? Constraint(first: operand.range)
            let number = numericValue(value)
            switch comparison.op {
            case .equal:
                if let earlier = constraint.equal, !sameConstant(earlier, value) {
                    return contradictionFinding(constraint.first, operand.range, source)
                }
                constraint.equal = value
                if let number {
                    constraint.lower = tighter(constraint.lower, (number, false), lower: true)
                    constraint.upper = tighter(constraint.upper, (number, false), lower: false)
                }
            case .greater, .greaterOrEqual:
                guard let number else { continue }
                constraint.lower = tighter(constraint.lower, (number, comparison.op == .greater), lower: true)
            case .less, .lessOrEqual:
                guard let number else { continue }
                constraint.upper = tighter(constraint.upper, (number, comparison.op == .less), lower: false)
            default:
                continue
            }
            if let lower = constraint.lower, let upper = constraint.upper,
                lower.bound > upper.bound || (lower.bound == upper.bound && (lower.strict || upper.strict))
            {
                return contradictionFinding(constraint.first, operand.range, source)
            }
            constraints[key] = constraint
        }
        return nil
    }

    private static func contradictionFinding(_ first: SourceRange, _ second: SourceRange, _ source: String) -> Finding {
        Finding(
            message: "'\(text(first, source))' and '\(text(second, source))' can never both be true, so this AND is "
                + "always false", range: second, fixIt: nil)
    }

    private static func tighter(
        _ current: (bound: Double, strict: Bool)?, _ new: (bound: Double, strict: Bool), lower: Bool
    ) -> (bound: Double, strict: Bool) {
        guard let current else { return new }
        if current.bound == new.bound { return (current.bound, current.strict || new.strict) }
        return (lower ? current.bound > new.bound : current.bound < new.bound) ? current : new
    }

    /// Booleans count as 0 and 1, as `NSNumber` compares them.
    private static func numericValue(_ value: Value) -> Double? {
        switch value {
        case .bool(let flag): return flag ? 1 : 0
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        case .double(let number): return number.isNaN ? nil : number
        default: return nil
        }
    }

    private static func sameConstant(_ lhs: Value, _ rhs: Value) -> Bool {
        if let left = numericValue(lhs), let right = numericValue(rhs) { return left == right }
        if case .string(let left) = lhs, case .string(let right) = rhs { return left == right }
        // Other kinds are not compared here: no contradiction is claimed.
        return true
    }

    // MARK: - Masks

    /// `(capabilities & 0) != 0`: a mask with no bit, or none of the bits `capabilities` has.
    private static func emptyMask(_ comparison: Comparison, range: SourceRange, source: String) -> Finding? {
        guard case .function("bitwiseAnd:with:", let arguments) = comparison.lhs.kind, arguments.count == 2,
            case .constant(let bound) = comparison.rhs.kind, let boundNumber = numericValue(bound)
        else { return nil }
        var mask: Int64?
        var subject: ExpressionNode?
        for (index, argument) in arguments.enumerated() {
            if case .constant(let value) = argument.kind, let number = numericValue(value), number == number.rounded(),
                abs(number) < 9e18
            {
                mask = Int64(number)
                subject = arguments[1 - index]
            }
        }
        guard let mask, let subject else { return nil }
        let known =
            FileProviderCapabilities.allowsAll.rawValue | FileProviderCapabilities.allowsEvicting.rawValue
            | FileProviderCapabilities.allowsExcludingFromSync.rawValue
        let readsCapabilities: Bool
        if case .keyPath(_, let components) = subject.kind, components.last?.key == "capabilities" {
            readsCapabilities = true
        } else {
            readsCapabilities = false
        }
        guard mask == 0 || (readsCapabilities && mask & known == 0) else { return nil }
        let answer: Bool
        switch comparison.op {
        case .equal: answer = boundNumber == 0
        case .notEqual: answer = boundNumber != 0
        case .greater: answer = 0 > boundNumber
        case .greaterOrEqual: answer = 0 >= boundNumber
        case .less: answer = 0 < boundNumber
        case .lessOrEqual: answer = 0 <= boundNumber
        default: return nil
        }
        let why =
            mask == 0
            ? "a mask of 0 selects no bit"
            : "\(mask) has none of the capability bits (1 to 128)"
        return Finding(
            message: "'\(text(comparison.lhs.range, source))' is always 0 (\(why)), so this comparison is always "
                + "\(answer)", range: range,
            fixIt: FixIt(range: range, replacement: answer ? "TRUEPREDICATE" : "FALSEPREDICATE"))
    }

    // MARK: - Type identifiers

    /// A literal type identifier that the type table does not declare but is one or two edits from
    /// one it does: `public.foldr`. Farther ones are left alone: apps declare types of their own.
    private static func typeIdentifiers(_ comparison: Comparison, lookups: inout Int) -> [Finding] {
        guard comparison.op == .utiConformsTo || comparison.op == .utiEquals else { return [] }
        var literals = [comparison.rhs, comparison.lhs]
        if case .aggregate(let elements) = comparison.rhs.kind { literals += elements }
        let registry = UniformTypeRegistry.system
        var findings: [Finding] = []
        for literal in literals {
            guard case .constant(.string(let identifier)) = literal.kind, !identifier.hasPrefix("dyn."),
                !registry.isDeclared(identifier), lookups > 0
            else { continue }
            lookups -= 1
            guard
                let suggestion = DidYouMean.suggestion(
                    for: identifier, among: registry.declaredIdentifiers, maximumDistance: 2),
                suggestion.lowercased() != identifier.lowercased()
            else { continue }
            let inner = SourceRange(
                literal.range.lowerBound + 1, max(literal.range.lowerBound + 1, literal.range.upperBound - 1))
            findings.append(
                Finding(
                    message: "'\(identifier)' is not a known type identifier, so nothing conforms to it; "
                        + "did you mean '\(suggestion)'?", range: literal.range,
                    fixIt: FixIt(range: inner, replacement: suggestion)))
        }
        return findings
    }

    private static func text(_ range: SourceRange, _ source: String) -> String {
        let bytes = Array(source.utf8)
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }
}
