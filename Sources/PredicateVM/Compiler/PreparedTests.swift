import PredicateSemantics
import PredicateSyntax
import PredicateValue

// Comparisons with a constant, prepared once when a program is loaded: shared by the scalar VM's
// `TEST` instructions and the batch engine's kernels, so both decide them the same way.

/// A comparison decided by whether the row's value is nil: `x == nil`, `x != nil` and the like.
@usableFromInline
package struct NilTest: Sendable {
    @usableFromInline package let whenNil: Bool
    @usableFromInline package let otherwise: Bool

    package init?(_ op: ComparisonOperator, _ constant: Value, constantOnLeft: Bool) {
        guard constant.isNil || constant.isNull, op.isRelationalOperator else { return nil }
        // Any non-nil value stands for all of them: with a nil operand only nil-ness matters.
        func result(_ row: Value) -> Bool? {
            constantOnLeft
                ? ComparisonOperators.scalar(op, constant, row) : ComparisonOperators.scalar(op, row, constant)
        }
        guard let whenNil = result(.nil), let otherwise = result(.int(0)) else { return nil }
        self.whenNil = whenNil
        self.otherwise = otherwise
    }
}

/// The integers `x` for which `x op constant` holds: `lower...upper`, or its complement when
/// `negated`; nothing (or everything, negated) when `isEmpty`.
@usableFromInline
package struct IntegerTest: Sendable {
    @usableFromInline package let lower: Int64
    @usableFromInline package let upper: Int64
    @usableFromInline package let isEmpty: Bool
    @usableFromInline package let negated: Bool

    /// Derived from the semantics themselves: each relational operator is monotone in `x`, so
    /// the boundary is found by bisection on ``ComparisonOperators/scalar(_:_:_:)``.
    package init?(_ op: ComparisonOperator, _ constant: Value) {
        if op == .between {
            guard let test = IntegerTest(between: constant) else { return nil }
            self = test
            return
        }
        func holds(_ op: ComparisonOperator, _ x: Int64) -> Bool? {
            ComparisonOperators.scalar(op, .int(x), constant)
        }
        guard holds(op, 0) != nil else { return nil }
        /// The smallest `x` for which `op` holds, for an operator that holds from some point on
        /// (`>=`, `>`); `nil` when it holds for none.
        func first(_ op: ComparisonOperator) -> Int64? {
            guard holds(op, .max) == true else { return nil }
            var low = Int64.min
            var high = Int64.max
            while low < high {
                let middle = low + Int64(UInt64(bitPattern: high &- low) / 2)
                if holds(op, middle) == true { high = middle } else { low = middle + 1 }
            }
            return low
        }
        /// The largest `x` for which `op` holds, for an operator that holds up to some point
        /// (`<=`, `<`); `nil` when it holds for none.
        func last(_ op: ComparisonOperator) -> Int64? {
            guard holds(op, .min) == true else { return nil }
            var low = Int64.min
            var high = Int64.max
            while low < high {
                let middle = high - Int64(UInt64(bitPattern: high &- low) / 2)
                if holds(op, middle) == true { low = middle } else { high = middle - 1 }
            }
            return low
        }
        var lower = Int64.min
        var upper = Int64.max
        var isEmpty = false
        var negated = false
        switch op {
        case .equal, .notEqual:
            if let low = first(.greaterOrEqual), let high = last(.lessOrEqual), low <= high {
                lower = low
                upper = high
            } else {
                isEmpty = true
            }
            negated = op == .notEqual
        case .greaterOrEqual:
            if let low = first(.greaterOrEqual) { lower = low } else { isEmpty = true }
        case .greater:
            if let low = first(.greater) { lower = low } else { isEmpty = true }
        case .lessOrEqual:
            if let high = last(.lessOrEqual) { upper = high } else { isEmpty = true }
        case .less:
            if let high = last(.less) { upper = high } else { isEmpty = true }
        default:
            return nil
        }
        self.lower = lower
        self.upper = upper
        self.isEmpty = isEmpty
        self.negated = negated
    }

    private init(lower: Int64, upper: Int64, isEmpty: Bool, negated: Bool) {
        self.lower = lower
        self.upper = upper
        self.isEmpty = isEmpty
        self.negated = negated
    }

    /// The values passing both tests (`a AND b` on one column), when both are intervals.
    /// `x BETWEEN {a, b}` with two numbers: `x >= low AND x <= high` once the bounds are in
    /// order, as the operator orders them. Confirmed against the operator itself at the edges of
    /// the interval and at the ends of the integers, or not prepared.
    private init?(between constant: Value) {
        guard case .array(let bounds) = constant, bounds.count == 2,
            bounds.allSatisfy({ bound in
                switch bound {
                case .int, .uint: return true
                case .double(let number): return !number.isNaN
                default: return false
                }
            })
        else { return nil }
        let descending = ComparisonOperators.scalar(.greater, bounds[0], bounds[1]) == true
        let (low, high) = descending ? (bounds[1], bounds[0]) : (bounds[0], bounds[1])
        guard let from = IntegerTest(.greaterOrEqual, low), let upTo = IntegerTest(.lessOrEqual, high),
            let test = from.intersection(upTo)
        else { return nil }
        let probes: [Int64] = [
            .min, .min + 1, -1, 0, 1, .max - 1, .max, test.lower, test.upper, test.lower &- 1, test.lower &+ 1,
            test.upper &- 1, test.upper &+ 1,
        ]
        let environment = EvaluationEnvironment()
        for probe in probes {
            let general = try? ComparisonOperators.evaluate(
                .between, .int(probe), constant, quantifier: .direct, options: [], environment: environment)
            guard general == test.holds(probe) else { return nil }
        }
        self = test
    }

    /// The test every integer passes (`answer`), or none: a comparison with nil, where only
    /// nil-ness matters (``NilTest``), on a value that is not nil.
    package static func always(_ answer: Bool) -> IntegerTest {
        IntegerTest(lower: .min, upper: .max, isEmpty: !answer, negated: false)
    }

    package func intersection(_ other: IntegerTest) -> IntegerTest? {
        guard !negated, !other.negated else { return nil }
        let lower = max(self.lower, other.lower)
        let upper = min(self.upper, other.upper)
        return IntegerTest(
            lower: lower, upper: upper, isEmpty: isEmpty || other.isEmpty || lower > upper, negated: false)
    }

    /// Whether `x` passes, without branches: one unsigned comparison.
    @inlinable @inline(__always)
    package func holds(_ x: Int64) -> Bool {
        let inside = !isEmpty && UInt64(bitPattern: x &- lower) <= UInt64(bitPattern: upper &- lower)
        return inside != negated
    }
}

/// A relational operator against a double bound, where machine comparison is the language's:
/// the column holds no NaN, and the bound is a double that is not NaN or an integer that a double
/// holds exactly.
@usableFromInline
package struct DoubleTest: Sendable {
    @usableFromInline package let op: ComparisonOperator
    @usableFromInline package let bound: Double

    package init?(_ op: ComparisonOperator, _ constant: Value, dates: Bool) {
        guard op.isRelationalOperator else { return nil }
        let bound: Double
        switch constant {
        case .date(let seconds) where dates: bound = seconds
        case .double(let value) where !dates: bound = value
        case .int(let value) where !dates && value.magnitude <= 1 << 53: bound = Double(value)
        case .uint(let value) where !dates && value <= 1 << 53: bound = Double(value)
        case .bool(let flag) where !dates: bound = flag ? 1 : 0
        default: return nil
        }
        guard !bound.isNaN else { return nil }
        self.op = op
        self.bound = bound
    }

    private init(op: ComparisonOperator, bound: Double) {
        self.op = op
        self.bound = bound
    }

    /// The test every double but NaN passes (`answer`), or none: a comparison with nil on a
    /// value that is not nil (NaN, which no machine comparison decides, takes the general path
    /// as always).
    package static func always(_ answer: Bool) -> DoubleTest {
        DoubleTest(op: answer ? .greaterOrEqual : .less, bound: -.infinity)
    }

    @inlinable @inline(__always)
    package func holds(_ x: Double) -> Bool {
        switch op {
        case .equal: return x == bound
        case .notEqual: return x != bound
        case .less: return x < bound
        case .lessOrEqual: return x <= bound
        case .greater: return x > bound
        default: return x >= bound
        }
    }
}

/// A string operator with its constant prepared once (folded needle, compiled pattern).
@usableFromInline
package enum StringTest: Sendable {
    case equal(StringMatcher, negated: Bool)
    case prefix(StringMatcher)
    case suffix(StringMatcher)
    case contains(StringMatcher)
    case like(LikePattern)
    case matches(RegularExpressionMatcher)

    package init?(
        _ op: ComparisonOperator, _ constant: Value, options: ComparisonOptions, environment: EvaluationEnvironment
    ) {
        guard case .string(let text) = constant else { return nil }
        switch op {
        case .equal, .notEqual: self = .equal(StringMatcher(text, options: options), negated: op == .notEqual)
        case .beginsWith: self = .prefix(StringMatcher(text, options: options))
        case .endsWith: self = .suffix(StringMatcher(text, options: options))
        case .contains: self = .contains(StringMatcher(text, options: options))
        case .like:
            guard !text.isEmpty, let pattern = try? environment.patterns.like(text, options: options) else {
                return nil
            }
            self = .like(pattern)
        case .matches:
            guard !text.isEmpty, let pattern = try? environment.patterns.regularExpression(text, options: options)
            else { return nil }
            self = .matches(pattern)
        default:
            return nil
        }
    }

    /// Whether the row's string passes.
    ///
    /// Not inlined: called on the test where it is stored, its matcher is used in place; inlined
    /// into a caller, the matcher was copied out of the enum first (a retain and a release of
    /// each of its buffers, on every row).
    @usableFromInline @inline(never)
    package func holds(_ text: String) -> Bool {
        switch self {
        case .equal(let matcher, let negated): return matcher.equals(text) != negated
        case .prefix(let matcher): return matcher.isPrefix(of: text)
        case .suffix(let matcher): return matcher.isSuffix(of: text)
        case .contains(let matcher): return matcher.isContained(in: text)
        case .like(let pattern): return pattern.matches(text)
        case .matches(let pattern): return pattern.matches(text)
        }
    }

    /// Whether the row's string passes, spending `LIKE`'s and `MATCHES`'s matching steps from
    /// `budget`; `nil` when the budget ran out first (the other operators spend nothing).
    package func holds(_ text: String, budget: inout Int) -> Bool? {
        switch self {
        case .like(let pattern): return pattern.matches(text, budget: &budget)
        case .matches(let pattern): return pattern.matches(text, budget: &budget)
        default: return holds(text)
        }
    }
}

extension ComparisonOperator {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    package var isRelationalOperator: Bool {
        switch self {
        case .equal, .notEqual, .less, .greater, .lessOrEqual, .greaterOrEqual: return true
        default: return false
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`), for relational operators.
    package var mirrored: ComparisonOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .greater: return .less
        case .lessOrEqual: return .greaterOrEqual
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }
}
