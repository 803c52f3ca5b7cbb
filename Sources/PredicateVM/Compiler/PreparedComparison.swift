import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A ``ComparisonSite``'s operator and constant, prepared once when the program is made: the
/// constant classified for the scalar comparison, integer intervals and double bounds derived
/// from the language's own comparison, string needles folded under the options, `LIKE` and
/// `MATCHES` patterns compiled, and `IN` sets hashed.
///
/// A class, so that an engine can borrow one (`Unmanaged`) without copying its matchers.
///
/// ``decide(_:)`` answers for the commonest operands and defers (`nil`) on anything else, so the
/// engine then runs ``ComparisonOperators/evaluate(_:_:_:quantifier:options:environment:steps:)``
/// on the same operands: a prepared answer can only be the general one, sooner.
public final class PreparedComparison: Sendable {
    /// The operator.
    public let op: ComparisonOperator
    /// Its options.
    public let options: ComparisonOptions
    /// Direct, `ANY` or `ALL`.
    public let quantifier: Quantifier
    /// The constant right operand.
    public let constant: Value
    /// `constant`, classified for ``ComparisonOperators/scalar(_:_:_:)``.
    package let scalarConstant: ScalarOperand
    /// What ``EvaluationCost/comparison(_:_:)`` charges for a non-collection left operand.
    package let scalarCost: Int

    /// The answers for numbers, dates and nil: a plain value an engine can copy freely.
    @usableFromInline package let scalar: ScalarDecision
    @usableFromInline let strings: StringTest?
    @usableFromInline let membership: MembershipTest?
    /// `==` or `!=` against a constant that is not a string (a number, a Boolean, a date, nil):
    /// the answer for any string operand, which the general equality never finds equal to it.
    @usableFromInline let stringAgainstOther: Bool?
    /// `<`, `<=`, `>` or `>=` against a number, a Boolean or a date: a string operand cannot be
    /// ordered against it, and the comparison throws ``EvaluationError/cannotOrder(_:_:)``
    /// whatever the string.
    package let stringsCannotBeOrdered: Bool
    /// ``constant`` as the errors of the comparison name it, boxed once.
    package let constantOperand: EvaluationError.ErrorOperand
    /// For `LIKE` and `MATCHES`: the compiled pattern, run within the evaluation's step budget.
    package let pattern: CompiledPattern?
    /// The UTF-8 length of ``pattern``'s text (what the pattern-length limit measures), 0
    /// without a pattern.
    package let patternLength: Int
    /// Whether there is a ``pattern``: asked per string without copying the pattern out.
    package let hasPattern: Bool
    /// ``pattern``'s matcher, held apart so that ``runPattern(_:maximumLength:budget:)`` calls
    /// it where it lies: binding it out of the enum copied it, retaining its arrays.
    private let likeMatcher: LikePattern?
    private let regexMatcher: RegularExpressionMatcher?
    /// For `UTI-CONFORMS-TO` a type identifier: the identifier, which a string operand is tested
    /// against in the environment's type table, without the general comparison's operand checks.
    package let conformanceType: String?

    /// A compiled `LIKE` or `MATCHES` pattern and its text (for limit messages).
    package enum CompiledPattern: Sendable {
        /// `LIKE`.
        case like(LikePattern, text: String)
        /// `MATCHES`.
        case matches(RegularExpressionMatcher, text: String)
    }

    /// Prepares `lhs op[options] constant` for any left operand.
    public init(op: ComparisonOperator, options: ComparisonOptions, quantifier: Quantifier, constant: Value) {
        self.op = op
        self.options = options
        self.quantifier = quantifier
        self.constant = constant
        constantOperand = EvaluationError.ErrorOperand(constant)
        scalarConstant = ScalarOperand(constant)
        scalarCost = EvaluationCost.comparison(.nil, constant)
        let nilResult: Bool?
        switch op {
        case .utiConformsTo, .utiEquals, .tokenMatches:
            // Answers that depend on the environment's type table or always throw.
            nilResult = nil
        default:
            nilResult = try? ComparisonOperators.evaluate(
                op, .nil, constant, quantifier: .direct, options: options, environment: PreparedComparison.environment)
        }
        // `x != nil`, `x == nil`: any value that is not nil gets one answer, whatever its kind.
        let otherwise = NilTest(op, constant, constantOnLeft: false)?.otherwise
        scalar = ScalarDecision(
            integers: IntegerTest(op, constant) ?? otherwise.map(IntegerTest.always),
            doubles: DoubleTest(op, constant, dates: false) ?? otherwise.map(DoubleTest.always),
            dates: DoubleTest(op, constant, dates: true) ?? otherwise.map(DoubleTest.always), nilResult: nilResult)
        switch op {
        case .equal, .notEqual, .beginsWith, .endsWith, .contains:
            strings = StringTest(op, constant, options: options, environment: PreparedComparison.environment)
        default:
            strings = nil
        }
        membership = op == .in ? MembershipTest(constant) : nil
        // A string against a constant that is not one: the general comparison's answer (or its
        // error) is the same whatever the string, so it is taken once, from the comparison itself.
        let againstOther: Bool
        switch constant {
        case .nil, .bool, .int, .uint, .double, .decimal, .date: againstOther = true
        default: againstOther = false
        }
        let withAString: Result<Bool, EvaluationError>? =
            againstOther && op.isRelationalOperator
            ? Result { () throws(EvaluationError) in
                try ComparisonOperators.evaluate(
                    op, .string(""), constant, quantifier: .direct, options: options,
                    environment: PreparedComparison.environment)
            } : nil
        switch (op, withAString) {
        case (.equal, .success(let answer)?), (.notEqual, .success(let answer)?):
            stringAgainstOther = answer
            stringsCannotBeOrdered = false
        case (_, .failure(let error)?):
            stringAgainstOther = nil
            stringsCannotBeOrdered = error == EvaluationError.cannotOrder(.string(""), constant)
        default:
            stringAgainstOther = nil
            stringsCannotBeOrdered = false
        }
        switch (op, constant) {
        case (.like, .string(let text)) where !text.isEmpty:
            pattern = (try? LikePattern(text, options: options)).map { .like($0, text: text) }
        case (.matches, .string(let text)) where !text.isEmpty:
            pattern = (try? RegularExpressionMatcher(text, options: options)).map { .matches($0, text: text) }
        default:
            pattern = nil
        }
        patternLength = pattern?.source.utf8.count ?? 0
        hasPattern = pattern != nil
        switch pattern {
        case .like(let compiled, _)?: (likeMatcher, regexMatcher) = (compiled, nil)
        case .matches(let compiled, _)?: (likeMatcher, regexMatcher) = (nil, compiled)
        case nil: (likeMatcher, regexMatcher) = (nil, nil)
        }
        if op == .utiConformsTo, case .string(let identifier) = constant {
            conformanceType = identifier
        } else {
            conformanceType = nil
        }
    }

    /// ``pattern`` run on `text` within `budget` matching steps (what is left is written back):
    /// its answer, `.some(nil)` when the steps ran out, `nil` without a pattern or for one
    /// longer than `maximumLength`. Runs the pattern where this comparison holds it: copying it
    /// out retained and released its arrays for every string.
    package func runPattern(_ text: String, maximumLength: Int, budget: inout Int) -> Bool?? {
        guard hasPattern, patternLength <= maximumLength else { return nil }
        if op == .like { return .some(likeMatcher?.matches(text, budget: &budget)) }
        return .some(regexMatcher?.matches(text, budget: &budget))
    }

    /// Whether ``decide(_:)`` or ``pattern`` can answer for some operand beyond nil: an engine
    /// that must fall back to the general comparison for every other operand gains nothing
    /// from trying first (`UTI-CONFORMS-TO`, `BETWEEN`).
    package var decidesValues: Bool {
        scalar.integers != nil || scalar.doubles != nil || scalar.dates != nil || strings != nil || membership != nil
            || pattern != nil
    }

    /// Preparation uses no type table and no limits: what it answers depends on neither.
    private static let environment = EvaluationEnvironment()

    /// `value op constant` without a quantifier, or `nil` when the general path must decide
    /// (it may throw, or need the environment, or the operand is of a kind not prepared for).
    @inlinable
    package func decide(_ value: Value) -> Bool? {
        switch value {
        case .int(let number):
            if let result = scalar.decide(value) { return result }
            return membership?.contains(number)
        case .uint(let number):
            if let result = scalar.decide(value) { return result }
            guard let exact = Int64(exactly: number) else { return nil }
            return membership?.contains(exact)
        case .string(let text):
            return decide(string: text)
        default:
            return scalar.decide(value)
        }
    }

    /// ``decide(_:)`` for a string operand, with no ``Value`` built around it: what an engine
    /// reading a stored string in place (``StoredString``) asks.
    @inlinable @inline(__always)
    package func decide(string text: String) -> Bool? {
        // Optional chaining rather than `if let`: the tests are used where they are stored,
        // not copied out (a copy retains every buffer the matcher holds).
        if let answer = strings?.holds(text) { return answer }
        return membership?.contains(text) ?? stringAgainstOther
    }
}

/// The part of a prepared comparison that decides numbers, dates and nil, as a plain value (no
/// references), so that an engine can keep one per comparison and copy it without any
/// reference counting.
@usableFromInline
package struct ScalarDecision: Sendable {
    @usableFromInline package let integers: IntegerTest?
    @usableFromInline package let doubles: DoubleTest?
    @usableFromInline package let dates: DoubleTest?
    /// The answer for a nil (or null) operand, when it does not throw.
    @usableFromInline package let nilResult: Bool?

    /// The decision that decides nothing: every operand goes to the general comparison.
    package static let none = ScalarDecision(integers: nil, doubles: nil, dates: nil, nilResult: nil)

    /// ``decide(_:)-(Value)`` for a field read as a plain ``Scalar``: the same answers, with no
    /// ``Value`` built; `nil` when the general comparison must decide (or for ``Scalar/other``).
    @inlinable @inline(__always)
    package func decide(_ scalar: Scalar) -> Bool? {
        switch scalar.kind {
        case .nil:
            return nilResult
        case .bool:
            return integers?.holds(scalar.bits == 0 ? 0 : 1)
        case .int:
            return integers?.holds(scalar.int)
        case .uint:
            guard scalar.bits <= UInt64(Int64.max) else { return nil }
            return integers?.holds(Int64(bitPattern: scalar.bits))
        case .double:
            let number = scalar.double
            guard !number.isNaN, let doubles else { return nil }
            return doubles.holds(number)
        case .date:
            let seconds = scalar.double
            guard !seconds.isNaN, let dates else { return nil }
            return dates.holds(seconds)
        case .other:
            return nil
        }
    }

    /// `value op constant` for a nil, Boolean, integer, double or date operand, or `nil` when
    /// that needs the general comparison (or is another kind of value).
    @inlinable @inline(__always)
    package func decide(_ value: Value) -> Bool? {
        switch value {
        case .nil, .null:
            return nilResult
        case .bool(let flag):
            return integers?.holds(flag ? 1 : 0)
        case .int(let number):
            return integers?.holds(number)
        case .uint(let number):
            guard number <= UInt64(Int64.max) else { return nil }
            return integers?.holds(Int64(number))
        case .double(let number):
            guard !number.isNaN, let doubles else { return nil }
            return doubles.holds(number)
        case .date(let seconds):
            guard !seconds.isNaN, let dates else { return nil }
            return dates.holds(seconds)
        default:
            return nil
        }
    }
}

extension PreparedComparison.CompiledPattern {
    /// The pattern as written (what the pattern-length limit measures).
    package var source: String {
        switch self {
        case .like(_, let text), .matches(_, let text): text
        }
    }

    /// Whether `text` matches, spending at most `budget` matching steps (what is left is written
    /// back); `nil` when they ran out. No limit is checked: see
    /// ``matches(_:environment:steps:)`` for the errors.
    package func matches(_ text: String, budget: inout Int) -> Bool? {
        switch self {
        case .like(let compiled, _): compiled.matches(text, budget: &budget)
        case .matches(let compiled, _): compiled.matches(text, budget: &budget)
        }
    }

    /// Whether `text` matches, within the evaluation's `steps` and the environment's pattern
    /// limits: ``ComparisonOperators/like(_:_:source:environment:steps:)`` or
    /// ``ComparisonOperators/matches(_:_:source:environment:steps:)``.
    public func matches(
        _ text: String, environment: EvaluationEnvironment, steps: inout Int
    ) throws(EvaluationError) -> Bool {
        switch self {
        case .like(let compiled, let source):
            return try ComparisonOperators.like(text, compiled, source: source, environment: environment, steps: &steps)
        case .matches(let compiled, let source):
            return try ComparisonOperators.matches(
                text, compiled, source: source, environment: environment, steps: &steps)
        }
    }
}

/// `x IN {…}` against a constant collection, hashed: the integers and the strings it holds.
///
/// Membership is the language's equality (SPEC §4.4.1): numbers by value, strings by UTF-16 code
/// units. A `Set<String>` compares by canonical equivalence instead, so a hit is confirmed by code
/// units, and a collection holding two strings that are canonically equivalent but spelt apart
/// is not prepared (the set could keep only one of them).
@usableFromInline
struct MembershipTest: Sendable {
    @usableFromInline let integers: Set<Int64>
    @usableFromInline let strings: Set<String>
    /// Whether some element is a number that is not an exact integer (a fraction, NaN, a decimal):
    /// an integer operand then needs the general comparison.
    @usableFromInline let hasOtherNumbers: Bool

    init?(_ constant: Value) {
        guard case .array(let elements) = constant else { return nil }
        var integers = Set<Int64>()
        var strings = Set<String>()
        var hasOtherNumbers = false
        for element in elements {
            switch element {
            case .bool(let flag): integers.insert(flag ? 1 : 0)
            case .int(let number): integers.insert(number)
            case .uint(let number):
                if let exact = Int64(exactly: number) { integers.insert(exact) } else { hasOtherNumbers = true }
            case .double(let number):
                if let exact = Int64(exactly: number) { integers.insert(exact) } else { hasOtherNumbers = true }
            case .decimal: hasOtherNumbers = true
            case .string(let text):
                if let twin = strings.firstIndex(of: text), !strings[twin].utf16.elementsEqual(text.utf16) {
                    return nil
                }
                strings.insert(text)
            default:
                break
            }
        }
        self.integers = integers
        self.strings = strings
        self.hasOtherNumbers = hasOtherNumbers
    }

    @inlinable
    func contains(_ number: Int64) -> Bool? {
        if integers.contains(number) { return true }
        return hasOtherNumbers ? nil : false
    }

    @inlinable
    func contains(_ text: String) -> Bool? {
        guard let index = strings.firstIndex(of: text) else { return false }
        return strings[index].utf16.elementsEqual(text.utf16)
    }
}
