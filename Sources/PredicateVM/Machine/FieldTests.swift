import PredicateValue

/// A comparison site decided from a field stored in the item itself (``StoredScalar``), with
/// the field's storage and the prepared constant's test chosen once, when the machine first
/// sees items of the type: evaluating it is one typed load and one test, with no ``Scalar``
/// kinds to dispatch on.
///
/// Plain bits rather than an enum with payloads, so that the loop dispatches once, on the
/// word's operation (which names the kind, ``MachineOperation/init(testing:)``), and each kind
/// reads only the operands it needs: a Boolean field looks up its answer, a number is tested
/// against an interval (``IntegerTest``'s, or ``DoubleTest``'s relational operator as one).
///
/// Derived from the site's ``ScalarDecision`` (a Boolean field's two answers are the decision's
/// own answers for `true` and `false`), so it decides exactly what the decision does; a test
/// compares the two on every kind.
struct FieldTest {
    /// How the field is stored, and so which test applies.
    enum Kind: UInt8 {
        case bool, int64, optionalInt64, uint64, optionalUInt64, double, optionalDouble
    }

    let kind: Kind
    /// ``answerWhenTrue``, ``answerWhenFalse``, ``negated`` and ``answerWhenNil``, one bit each.
    private let answers: UInt8
    /// The field's byte offset in the item.
    let offset: Int
    /// The interval's lower end: an `Int64`'s or a `Double`'s bits.
    private let lower: UInt64
    /// An integer interval's width (`upper - lower`, unsigned), or a double interval's upper end.
    private let upper: UInt64

    /// A test no word runs: what the words that are not tests of stored fields hold.
    static let never = FieldTest(.bool, offset: 0, answers: 0)

    private static let whenTrueBit: UInt8 = 1
    private static let whenFalseBit: UInt8 = 2
    private static let negatedBit: UInt8 = 4
    private static let whenNilBit: UInt8 = 8

    private init(_ kind: Kind, offset: Int, answers: UInt8, lower: UInt64 = 0, upper: UInt64 = 0) {
        self.kind = kind
        self.offset = offset
        self.answers = answers
        self.lower = lower
        self.upper = upper
    }

    private static func bit(_ flag: Bool, _ bit: UInt8) -> UInt8 { flag ? bit : 0 }

    /// An integer kind testing `test` (its empty interval as the full one, negated).
    private init(_ kind: Kind, offset: Int, _ test: IntegerTest, whenNil: Bool = false) {
        let empty = test.isEmpty
        let lower = empty ? Int64.min : test.lower
        let upper = empty ? Int64.max : test.upper
        self.init(
            kind, offset: offset,
            answers: Self.bit(test.negated != empty, Self.negatedBit) | Self.bit(whenNil, Self.whenNilBit),
            lower: UInt64(bitPattern: lower), upper: UInt64(bitPattern: upper &- lower))
    }

    /// A double kind testing `test`'s relational operator as the interval of the doubles other
    /// than NaN that pass it (empty as `[+∞, -∞]`), negated for `!=`.
    private init(_ kind: Kind, offset: Int, _ test: DoubleTest, whenNil: Bool = false) {
        let bound = test.bound
        let (low, high): (Double, Double)
        var negated = false
        switch test.op {
        case .equal: (low, high) = (bound, bound)
        case .notEqual: ((low, high), negated) = ((bound, bound), true)
        case .less: (low, high) = bound == -.infinity ? (.infinity, -.infinity) : (-.infinity, bound.nextDown)
        case .lessOrEqual: (low, high) = (-.infinity, bound)
        case .greater: (low, high) = bound == .infinity ? (.infinity, -.infinity) : (bound.nextUp, .infinity)
        default: (low, high) = (bound, .infinity)
        }
        self.init(
            kind, offset: offset, answers: Self.bit(negated, Self.negatedBit) | Self.bit(whenNil, Self.whenNilBit),
            lower: low.bitPattern, upper: high.bitPattern)
    }

    /// The test of `decision` on the field stored as `field`, or `nil` when the decision needs
    /// the general path for some value the field can hold (then every value takes it).
    init?(_ field: StoredScalar, _ decision: ScalarDecision) {
        let offset = field.offset
        switch (field.kind, field.storage) {
        case (.bool, .bool):
            guard let whenTrue = decision.decide(Scalar.bool(true)), let whenFalse = decision.decide(Scalar.bool(false))
            else { return nil }
            self.init(
                .bool, offset: offset,
                answers: Self.bit(whenTrue, Self.whenTrueBit) | Self.bit(whenFalse, Self.whenFalseBit))
        case (.int, .int64):
            guard let test = decision.integers else { return nil }
            self.init(.int64, offset: offset, test)
        case (.int, .optionalInt64):
            guard let test = decision.integers, let whenNil = decision.nilResult else { return nil }
            self.init(.optionalInt64, offset: offset, test, whenNil: whenNil)
        case (.uint, .uint64):
            guard let test = decision.integers else { return nil }
            self.init(.uint64, offset: offset, test)
        case (.uint, .optionalUInt64):
            guard let test = decision.integers, let whenNil = decision.nilResult else { return nil }
            self.init(.optionalUInt64, offset: offset, test, whenNil: whenNil)
        case (.double, .double):
            guard let test = decision.doubles else { return nil }
            self.init(.double, offset: offset, test)
        case (.double, .optionalDouble):
            guard let test = decision.doubles, let whenNil = decision.nilResult else { return nil }
            self.init(.optionalDouble, offset: offset, test, whenNil: whenNil)
        case (.date, .double):
            guard let test = decision.dates else { return nil }
            self.init(.double, offset: offset, test)
        case (.date, .optionalDouble):
            guard let test = decision.dates, let whenNil = decision.nilResult else { return nil }
            self.init(.optionalDouble, offset: offset, test, whenNil: whenNil)
        default:
            return nil
        }
    }

    /// The site's answer for the item at `item`; `nil` when this value needs the general path
    /// (a NaN, an unsigned integer beyond `Int64.max`), as ``ScalarDecision/decide(_:)-(Scalar)``
    /// says.
    @inline(__always)
    func decide(_ item: UnsafeRawPointer) -> Bool? { Self.answer(answerBits(item)) }

    /// ``decide(_:)`` as bits, without branching on the item's data: bit 0 the answer, bit 1 set
    /// when the value needs the general path (the answer is then meaningless).
    @inline(__always)
    func answerBits(_ item: UnsafeRawPointer) -> Int {
        switch kind {
        case .bool: return boolBits(item)
        case .int64: return int64Bits(item)
        case .optionalInt64: return optionalInt64Bits(item)
        case .uint64: return uint64Bits(item)
        case .optionalUInt64: return optionalUInt64Bits(item)
        case .double: return doubleBits(item)
        case .optionalDouble: return optionalDoubleBits(item)
        }
    }

    /// The answer that ``answerBits(_:)`` gives, or `nil` for the general path.
    @inline(__always)
    static func answer(_ bits: Int) -> Bool? { bits & Self.undecided == 0 ? bits & 1 == 1 : nil }

    /// ``answerBits(_:)``'s bit for a value that needs the general path.
    static let undecided = 2

    // One function a kind, which the loop calls from its own case for the kind.

    @inline(__always)
    func boolBits(_ item: UnsafeRawPointer) -> Int {
        // Bit 0 answers `true`, bit 1 `false`.
        Int(answers &>> (item.load(fromByteOffset: offset, as: Bool.self) ? 0 : 1) & 1)
    }

    @inline(__always)
    private func holds(_ x: Int64) -> Int {
        let inside = UInt64(bitPattern: x) &- lower <= upper
        return inside != (answers & Self.negatedBit != 0) ? 1 : 0
    }

    @inline(__always)
    private func holds(_ x: Double) -> Int {
        let inside = Double(bitPattern: lower) <= x && x <= Double(bitPattern: upper)
        return (inside != (answers & Self.negatedBit != 0) ? 1 : 0) | (x.isNaN ? Self.undecided : 0)
    }

    @inline(__always)
    private var whenNil: Int { answers & Self.whenNilBit != 0 ? 1 : 0 }

    /// `Int64`'s answer as an unsigned integer's, or the general path's beyond `Int64.max`.
    @inline(__always)
    private func holds(_ x: UInt64) -> Int {
        holds(Int64(bitPattern: x)) | Int(x &>> 63) &<< 1
    }

    @inline(__always)
    func int64Bits(_ item: UnsafeRawPointer) -> Int {
        holds(item.load(fromByteOffset: offset, as: Int64.self))
    }

    @inline(__always)
    func optionalInt64Bits(_ item: UnsafeRawPointer) -> Int {
        let number = item.load(fromByteOffset: offset, as: Int64?.self)
        let bits = holds(number ?? 0)
        return number == nil ? whenNil : bits
    }

    @inline(__always)
    func uint64Bits(_ item: UnsafeRawPointer) -> Int {
        holds(item.load(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    func optionalUInt64Bits(_ item: UnsafeRawPointer) -> Int {
        let number = item.load(fromByteOffset: offset, as: UInt64?.self)
        let bits = holds(number ?? 0)
        return number == nil ? whenNil : bits
    }

    @inline(__always)
    func doubleBits(_ item: UnsafeRawPointer) -> Int {
        holds(item.load(fromByteOffset: offset, as: Double.self))
    }

    @inline(__always)
    func optionalDoubleBits(_ item: UnsafeRawPointer) -> Int {
        let number = item.load(fromByteOffset: offset, as: Double?.self)
        let bits = holds(number ?? 0)
        return number == nil ? whenNil : bits
    }
}
