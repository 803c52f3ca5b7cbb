import PredicateSyntax
import PredicateValue

/// Index expressions, set expressions and aggregate literals (SPEC §4.6.2, §4.9.5, §4.9.8).
public enum CollectionOperations {
    /// `receiver[index]` (`objectFrom:withIndex:`).
    public static func index(_ receiver: Value, _ spec: IndexValue) throws(EvaluationError) -> Value {
        switch receiver {
        case .array(let elements):
            switch spec {
            case .first: return elements.first ?? .nil
            case .last: return elements.last ?? .nil
            case .size: return .int(Int64(elements.count))
            case .value(let index):
                guard index.isArithmeticNumber || index == .bool(true) || index == .bool(false),
                    let number = Number(index)
                else {
                    throw EvaluationError(
                        .invalidArgument, "an array index must be a number, got \(ValueComparison.describe(index))")
                }
                let position = number.doubleValue.rounded(.towardZero)
                guard position >= 0, position < Double(elements.count) else {
                    throw EvaluationError(
                        .indexOutOfRange,
                        "index \(Cast.text(of: index)) is outside an array of \(elements.count) elements")
                }
                return elements[Int(position)]
            }
        case .set(let elements):
            switch spec {
            case .first: return elements.first ?? .nil
            case .last: return elements.last ?? .nil
            case .size: return .int(Int64(elements.count))
            case .value(let index): return elements.first { ValueComparison.isEqual($0, index) } ?? .nil
            }
        case .dictionary(let entries):
            let keys = entries.keys.sorted()
            switch spec {
            case .first: return keys.first.flatMap { entries[$0] } ?? .nil
            case .last: return keys.last.flatMap { entries[$0] } ?? .nil
            case .size: return .int(Int64(entries.count))
            case .value(let index):
                guard case .string(let key) = index else { return .nil }
                return entries[key] ?? .nil
            }
        default:
            throw EvaluationError(
                .notACollection, "cannot index \(ValueComparison.describe(receiver)): it is not a collection")
        }
    }

    /// An evaluated index: a symbol or a value.
    public enum IndexValue: Sendable {
        /// `[FIRST]`.
        case first
        /// `[LAST]`.
        case last
        /// `[SIZE]`.
        case size
        /// `[expression]`, evaluated.
        case value(Value)
    }

    /// `a UNION b`, `a INTERSECTION b`, `a MINUS b`: collections in, a set out (by `isEqual`).
    public static func setOperation(_ op: SetOperator, _ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Value {
        let left = try members(lhs, op)
        let right = try members(rhs, op)
        switch op {
        case .union:
            return .set(KeyValueAccess.distinct(left + right))
        case .intersection:
            return .set(
                KeyValueAccess.distinct(
                    left.filter { element in right.contains { ValueComparison.isEqual($0, element) } }))
        case .minus:
            return .set(
                KeyValueAccess.distinct(
                    left.filter { element in !right.contains { ValueComparison.isEqual($0, element) } }))
        }
    }

    private static func members(_ value: Value, _ op: SetOperator) throws(EvaluationError) -> [Value] {
        switch value {
        case .array(let elements), .set(let elements): return elements
        default:
            throw EvaluationError(
                .notACollection, "\(op.rawValue) needs collections, got \(ValueComparison.describe(value))")
        }
    }
}
