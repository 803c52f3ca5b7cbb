import PredicateValue

/// A comparison site decided from a field stored in the item itself (``StoredScalar``), with
/// the field's storage and the prepared constant's test chosen once, when the machine first
/// sees items of the type: evaluating it is one typed load and one test, with no ``Scalar``
/// kinds to dispatch on.
///
/// Derived from the site's ``ScalarDecision`` (a Boolean field's two answers are the decision's
/// own answers for `true` and `false`), so it decides exactly what the decision does.
enum FieldTest {
    case bool(offset: Int, whenTrue: Bool, whenFalse: Bool)
    case int64(offset: Int, IntegerTest)
    case optionalInt64(offset: Int, IntegerTest, whenNil: Bool)
    case uint64(offset: Int, IntegerTest)
    case optionalUInt64(offset: Int, IntegerTest, whenNil: Bool)
    case double(offset: Int, DoubleTest)
    case optionalDouble(offset: Int, DoubleTest, whenNil: Bool)

    /// The test of `decision` on the field stored as `field`, or `nil` when the decision needs
    /// the general path for some value the field can hold (then every value takes it).
    init?(_ field: StoredScalar, _ decision: ScalarDecision) {
        let offset = field.offset
        switch (field.kind, field.storage) {
        case (.bool, .bool):
            guard let whenTrue = decision.decide(Scalar.bool(true)), let whenFalse = decision.decide(Scalar.bool(false))
            else { return nil }
            self = .bool(offset: offset, whenTrue: whenTrue, whenFalse: whenFalse)
        case (.int, .int64):
            guard let test = decision.integers else { return nil }
            self = .int64(offset: offset, test)
        case (.int, .optionalInt64):
            guard let test = decision.integers, let whenNil = decision.nilResult else { return nil }
            self = .optionalInt64(offset: offset, test, whenNil: whenNil)
        case (.uint, .uint64):
            guard let test = decision.integers else { return nil }
            self = .uint64(offset: offset, test)
        case (.uint, .optionalUInt64):
            guard let test = decision.integers, let whenNil = decision.nilResult else { return nil }
            self = .optionalUInt64(offset: offset, test, whenNil: whenNil)
        case (.double, .double):
            guard let test = decision.doubles else { return nil }
            self = .double(offset: offset, test)
        case (.double, .optionalDouble):
            guard let test = decision.doubles, let whenNil = decision.nilResult else { return nil }
            self = .optionalDouble(offset: offset, test, whenNil: whenNil)
        case (.date, .double):
            guard let test = decision.dates else { return nil }
            self = .double(offset: offset, test)
        case (.date, .optionalDouble):
            guard let test = decision.dates, let whenNil = decision.nilResult else { return nil }
            self = .optionalDouble(offset: offset, test, whenNil: whenNil)
        default:
            return nil
        }
    }

    /// The site's answer for the item at `item`; `nil` when this value needs the general path
    /// (a NaN, an unsigned integer beyond `Int64.max`), as ``ScalarDecision/decide(_:)-(Scalar)``
    /// says.
    @inline(__always)
    func decide(_ item: UnsafeRawPointer) -> Bool? {
        switch self {
        case .bool(let offset, let whenTrue, let whenFalse):
            return item.load(fromByteOffset: offset, as: Bool.self) ? whenTrue : whenFalse
        case .int64(let offset, let test):
            return test.holds(item.load(fromByteOffset: offset, as: Int64.self))
        case .optionalInt64(let offset, let test, let whenNil):
            guard let number = item.load(fromByteOffset: offset, as: Int64?.self) else { return whenNil }
            return test.holds(number)
        case .uint64(let offset, let test):
            let number = item.load(fromByteOffset: offset, as: UInt64.self)
            return number <= UInt64(Int64.max) ? test.holds(Int64(bitPattern: number)) : nil
        case .optionalUInt64(let offset, let test, let whenNil):
            guard let number = item.load(fromByteOffset: offset, as: UInt64?.self) else { return whenNil }
            return number <= UInt64(Int64.max) ? test.holds(Int64(bitPattern: number)) : nil
        case .double(let offset, let test):
            let number = item.load(fromByteOffset: offset, as: Double.self)
            return number.isNaN ? nil : test.holds(number)
        case .optionalDouble(let offset, let test, let whenNil):
            guard let number = item.load(fromByteOffset: offset, as: Double?.self) else { return whenNil }
            return number.isNaN ? nil : test.holds(number)
        }
    }
}
