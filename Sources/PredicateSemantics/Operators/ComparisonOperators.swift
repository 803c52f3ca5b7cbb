import PredicateSyntax
import PredicateValue

/// The comparison operators with their quantifiers (SPEC §4.3): what `lhs op[options] rhs`
/// means once both operands are evaluated. Both engines call this, so they cannot disagree.
public enum ComparisonOperators {
    /// Applies `op` to evaluated operands under `quantifier`.
    ///
    /// Both operands are first normalised (`null` becomes `nil`); a quantifier then loops over
    /// the left collection, whose elements are passed as they are (SPEC §4.3.1–§4.3.2).
    public static func evaluate(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, quantifier: Quantifier, options: ComparisonOptions,
        environment: EvaluationEnvironment
    ) throws(EvaluationError) -> Bool {
        var steps = environment.limits.maximumSteps
        return try evaluate(
            op, lhs, rhs, quantifier: quantifier, options: options, environment: environment, steps: &steps)
    }

    /// Applies `op` to evaluated operands under `quantifier`, spending the steps `LIKE` and
    /// `MATCHES` take from `steps`, an evaluation's remaining budget (see ``EvaluationLimits``).
    ///
    /// - Throws: As the operator does; when `steps` runs out, the budget error (and `steps` is
    ///   then negative, so the engine can report it as its own).
    public static func evaluate(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, quantifier: Quantifier, options: ComparisonOptions,
        environment: EvaluationEnvironment, steps: inout Int
    ) throws(EvaluationError) -> Bool {
        if quantifier == .direct, let result = scalar(op, lhs, rhs) { return result }
        let left = lhs.isNull ? Value.nil : lhs
        let right = rhs.isNull ? Value.nil : rhs
        switch quantifier {
        case .direct:
            return try primitive(op, left, right, options: options, environment: environment, steps: &steps)
        case .any:
            if left.isNil { return false }
            for element in try quantified(left) {
                if try primitive(op, element, right, options: options, environment: environment, steps: &steps) {
                    return true
                }
            }
            return false
        case .all:
            if left.isNil { return true }
            for element in try quantified(left) {
                if !(try primitive(op, element, right, options: options, environment: environment, steps: &steps)) {
                    return false
                }
            }
            return true
        }
    }

    /// `lhs op rhs` without a quantifier, for the commonest operands, or `nil` when the general
    /// path must decide: the six relational operators on two numbers (Booleans, integers, doubles;
    /// options only apply to strings, so they are irrelevant here) or with a nil or null operand.
    ///
    /// This is ``primitive(_:_:_:options:environment:)`` with the copies and dispatch it needs for
    /// arbitrary values left out: `==` and `!=` reach ``ValueComparison/isEqual(_:_:)``, the
    /// orderings ``ValueComparison/compare(_:_:)``, and both compare two numbers with
    /// ``Number/compare(_:_:)``; nil and null are the same nil rules.
    @inline(__always)
    public static func scalar(_ op: ComparisonOperator, _ lhs: Value, _ rhs: Value) -> Bool? {
        guard op.isRelational else { return nil }
        return scalar(op, ScalarOperand(lhs), ScalarOperand(rhs))
    }

    /// The scalar comparison with operands already classified (a constant operand
    /// can be classified once, when a program is loaded).
    @inline(__always)
    public static func scalar(_ op: ComparisonOperator, _ lhs: ScalarOperand, _ rhs: ScalarOperand) -> Bool? {
        guard let a = lhs.number, let b = rhs.number else {
            guard lhs.isNil || rhs.isNil, op.isRelational else { return nil }
            switch op {
            case .equal, .lessOrEqual, .greaterOrEqual: return lhs.isNil && rhs.isNil
            case .notEqual: return !(lhs.isNil && rhs.isNil)
            default: return false
            }
        }
        let order = Number.compare(a, b)
        switch op {
        case .equal: return order == .same
        case .notEqual: return order != .same
        case .less: return order == .ascending
        case .greater: return order == .descending
        case .lessOrEqual: return order != .descending
        case .greaterOrEqual: return order != .ascending
        default: return nil
        }
    }

    /// Runs a pattern match within the smaller of the per-match limit and what is left of the
    /// evaluation's steps, and spends what it used: each match is bounded, and so is a rule
    /// that runs many (a `SUBQUERY` of catastrophic `MATCHES`).
    private static func bounded(
        _ limits: EvaluationLimits, _ steps: inout Int, _ op: String, _ pattern: String,
        _ match: (inout Int) -> Bool?
    ) throws(EvaluationError) -> Bool {
        let left = max(0, steps)
        let allowed = min(limits.maximumPatternSteps, left)
        var budget = allowed
        if let result = match(&budget) {
            steps = left - (allowed - max(0, budget))
            return result
        }
        if limits.maximumPatternSteps <= left { throw limits.patternStepsExceeded(op, pattern) }
        steps = -1
        throw limits.stepsExceeded()
    }

    private static func quantified(_ value: Value) throws(EvaluationError) -> [Value] {
        switch value {
        case .array(let elements), .set(let elements): return elements
        default:
            throw EvaluationError(
                .notACollection,
                "the left operand of ANY, ALL or NONE must be an array or a set, got \(ValueComparison.describe(value))"
            )
        }
    }

    /// One comparison without a quantifier (SPEC §4.3.3).
    public static func primitive(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, options: ComparisonOptions,
        environment: EvaluationEnvironment
    ) throws(EvaluationError) -> Bool {
        var steps = environment.limits.maximumSteps
        return try primitive(op, lhs, rhs, options: options, environment: environment, steps: &steps)
    }

    /// One comparison without a quantifier, spending `LIKE` and `MATCHES` steps from `steps`.
    public static func primitive(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, options: ComparisonOptions,
        environment: EvaluationEnvironment, steps: inout Int
    ) throws(EvaluationError) -> Bool {
        switch op {
        case .equal:
            return equal(lhs, rhs, options: options)
        case .notEqual:
            return !equal(lhs, rhs, options: options)
        case .less, .greater:
            if lhs.isNil || rhs.isNil { return false }
            let order = try ordering(lhs, rhs, options: options)
            return op == .less ? order == .ascending : order == .descending
        case .lessOrEqual, .greaterOrEqual:
            if lhs.isNil || rhs.isNil { return lhs.isNil && rhs.isNil }
            let order = try ordering(lhs, rhs, options: options)
            return op == .lessOrEqual ? order != .descending : order != .ascending
        case .beginsWith, .endsWith:
            guard let (text, needle) = try strings(lhs, rhs, op) else { return false }
            if needle.isEmpty { return false }
            return op == .beginsWith
                ? StringOperators.hasPrefix(text, needle, options: options)
                : StringOperators.hasSuffix(text, needle, options: options)
        case .contains:
            return try membership(container: lhs, element: rhs, options: options)
        case .in:
            return try membership(container: rhs, element: lhs, options: options)
        case .between:
            return try between(lhs, rhs)
        case .like:
            guard let (text, pattern) = try strings(lhs, rhs, op) else { return false }
            if pattern.isEmpty { return false }
            try environment.limits.checkPattern(pattern, "LIKE")
            let matcher = try environment.patterns.like(pattern, options: options)
            return try bounded(environment.limits, &steps, "LIKE", pattern) { budget in
                matcher.matches(text, budget: &budget)
            }
        case .matches:
            guard let (text, pattern) = try strings(lhs, rhs, op) else { return false }
            if pattern.isEmpty { return false }
            try environment.limits.checkPattern(pattern, "MATCHES")
            let matcher = try environment.patterns.regularExpression(pattern, options: options)
            return try bounded(environment.limits, &steps, "MATCHES", pattern) { budget in
                matcher.matches(text, budget: &budget)
            }
        case .utiConformsTo:
            return try utiConformsTo(
                lhs, rhs, registry: environment.uniformTypes, lenient: environment.lenientTypeObjects)
        case .utiEquals:
            return try utiEquals(lhs, rhs, lenient: environment.lenientTypeObjects)
        case .tokenMatches:
            throw EvaluationError(
                .unsupported, "TOKENMATCHES is only supported by Core Data and cannot be evaluated here")
        }
    }

    /// `==` with its nil rules; options apply only when both operands are strings (SPEC §4.5.1).
    static func equal(_ lhs: Value, _ rhs: Value, options: ComparisonOptions) -> Bool {
        if lhs.isNil || rhs.isNil { return lhs.isNil && rhs.isNil }
        if !options.isEmpty, case .string(let a) = lhs, case .string(let b) = rhs {
            return StringOperators.equals(a, b, options: options)
        }
        return ValueComparison.isEqual(lhs, rhs)
    }

    private static func ordering(
        _ lhs: Value, _ rhs: Value, options: ComparisonOptions
    ) throws(EvaluationError) -> Ordering {
        if !options.isEmpty, case .string(let a) = lhs, case .string(let b) = rhs {
            return Ordering(rawValue: StringOperators.compare(a, b, options: options).rawValue) ?? .same
        }
        return try ValueComparison.compare(lhs, rhs)
    }

    /// Both operands of a string operator: `nil` when either is nil (the result is then false).
    private static func strings(
        _ lhs: Value, _ rhs: Value, _ op: ComparisonOperator
    ) throws(EvaluationError) -> (String, String)? {
        if lhs.isNil || rhs.isNil { return nil }
        guard case .string(let a) = lhs, case .string(let b) = rhs else {
            let culprit = lhs.stringValue == nil ? lhs : rhs
            throw EvaluationError(
                .typeMismatch, "\(op.rawValue) needs strings, got \(ValueComparison.describe(culprit))")
        }
        return (a, b)
    }

    /// `CONTAINS` and `IN` (SPEC §4.3.3): substring for strings, membership for collections
    /// (options ignored), value membership for dictionaries. A `null` container, which only a
    /// quantifier's element can be, contains nothing.
    private static func membership(
        container: Value, element: Value, options: ComparisonOptions
    ) throws(EvaluationError) -> Bool {
        if container.isNil || element.isNil { return false }
        switch container {
        case .null:
            return false
        case .string(let text):
            guard case .string(let needle) = element else {
                throw EvaluationError(
                    .typeMismatch,
                    "cannot look for \(ValueComparison.describe(element)) in a string: it is not a string")
            }
            return !needle.isEmpty && StringOperators.contains(text, needle, options: options)
        case .array(let elements), .set(let elements):
            return elements.contains { ValueComparison.isEqual($0, element) }
        case .dictionary(let entries):
            return entries.values.contains { ValueComparison.isEqual($0, element) }
        default:
            throw EvaluationError(
                .notACollection,
                "IN and CONTAINS need a collection or a string, got \(ValueComparison.describe(container))")
        }
    }

    /// `x BETWEEN {lo, hi}`: inclusive, bounds in either order (SPEC §4.6.1).
    private static func between(_ value: Value, _ range: Value) throws(EvaluationError) -> Bool {
        if value.isNil || range.isNil { return false }
        guard case .array(let bounds) = range, bounds.count == 2 else {
            throw EvaluationError(
                .invalidArgument,
                "BETWEEN needs an array of exactly two bounds, as in {1, 10}, got \(ValueComparison.describe(range))")
        }
        var low = bounds[0]
        var high = bounds[1]
        if try ValueComparison.compare(low, high) == .descending { swap(&low, &high) }
        guard try ValueComparison.compare(low, value) != .descending else { return false }
        return try ValueComparison.compare(value, high) != .descending
    }
}

extension ComparisonOperator {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    var isRelational: Bool {
        switch self {
        case .equal, .notEqual, .less, .greater, .lessOrEqual, .greaterOrEqual: return true
        default: return false
        }
    }
}

/// An operand as the scalar comparison needs it:
/// its number (Booleans, integers and doubles; not decimals) and whether it is nil or null.
public struct ScalarOperand: Sendable {
    let number: Number?
    let isNil: Bool

    /// Classifies `value`.
    @inline(__always)
    public init(_ value: Value) {
        switch value {
        case .nil, .null:
            number = nil
            isNil = true
        case .bool(let flag):
            number = .signed(flag ? 1 : 0)
            isNil = false
        case .int(let integer):
            number = .signed(integer)
            isNil = false
        case .uint(let integer):
            number = .unsigned(integer)
            isNil = false
        case .double(let double):
            number = .floating(double)
            isNil = false
        default:
            number = nil
            isNil = false
        }
    }
}

extension ComparisonOperators {
    /// `text LIKE pattern` with the pattern compiled beforehand (a program's constant): the
    /// same limits, step accounting and errors as ``primitive(_:_:_:options:environment:steps:)``
    /// after it has compiled the pattern.
    public static func like(
        _ text: String, _ pattern: LikePattern, source: String, environment: EvaluationEnvironment, steps: inout Int
    ) throws(EvaluationError) -> Bool {
        try environment.limits.checkPattern(source, "LIKE")
        return try bounded(environment.limits, &steps, "LIKE", source) { budget in
            pattern.matches(text, budget: &budget)
        }
    }

    /// `text MATCHES pattern` with the expression compiled beforehand; see
    /// ``like(_:_:source:environment:steps:)``.
    public static func matches(
        _ text: String, _ pattern: RegularExpressionMatcher, source: String, environment: EvaluationEnvironment,
        steps: inout Int
    ) throws(EvaluationError) -> Bool {
        try environment.limits.checkPattern(source, "MATCHES")
        return try bounded(environment.limits, &steps, "MATCHES", source) { budget in
            pattern.matches(text, budget: &budget)
        }
    }
}
