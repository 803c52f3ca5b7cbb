/// A field's value when it is a Boolean, a number, a date or nil: the kind and 64 bits, with no
/// references, so an engine can read and compare it without building (and destroying) a
/// ``Value`` or touching a reference count.
///
/// A scalar means exactly the ``Value`` of the same kind (``value``); a host that cannot answer
/// for a field this way answers ``other``, and the engine reads the field as a ``Value``.
@frozen
public struct Scalar: Hashable, Sendable {
    /// What the bits hold.
    public enum Kind: UInt8, Hashable, Sendable {
        /// No value (``Value/nil``); the bits are zero.
        case `nil`
        /// A Boolean: 0 or 1.
        case bool
        /// A signed integer's bit pattern.
        case int
        /// An unsigned integer.
        case uint
        /// A double's bit pattern.
        case double
        /// A date: the bit pattern of its seconds since the reference date.
        case date
        /// Not a scalar: read the field as a ``Value``.
        case other
    }

    /// What the bits hold.
    public let kind: Kind
    /// The payload, as ``kind`` says.
    public let bits: UInt64

    /// A scalar of `kind` with the payload `bits`.
    @inlinable
    public init(kind: Kind, bits: UInt64) {
        self.kind = kind
        self.bits = bits
    }

    /// ``Value/nil``.
    @inlinable public static var `nil`: Scalar { Scalar(kind: .nil, bits: 0) }
    /// Not a scalar.
    @inlinable public static var other: Scalar { Scalar(kind: .other, bits: 0) }

    /// A Boolean.
    @inlinable
    public static func bool(_ flag: Bool) -> Scalar { Scalar(kind: .bool, bits: flag ? 1 : 0) }
    /// A signed integer.
    @inlinable
    public static func int(_ number: Int64) -> Scalar { Scalar(kind: .int, bits: UInt64(bitPattern: number)) }
    /// An unsigned integer.
    @inlinable
    public static func uint(_ number: UInt64) -> Scalar { Scalar(kind: .uint, bits: number) }
    /// A double.
    @inlinable
    public static func double(_ number: Double) -> Scalar { Scalar(kind: .double, bits: number.bitPattern) }
    /// A date, as seconds since 2001-01-01T00:00:00Z.
    @inlinable
    public static func date(secondsSinceReferenceDate seconds: Double) -> Scalar {
        Scalar(kind: .date, bits: seconds.bitPattern)
    }

    /// The integer, for ``Kind/int``.
    @inlinable public var int: Int64 { Int64(bitPattern: bits) }
    /// The double or the date's seconds, for ``Kind/double`` and ``Kind/date``.
    @inlinable public var double: Double { Double(bitPattern: bits) }

    /// The scalar `value` is: a nil, a Boolean, a number or a date; ``other`` for anything else
    /// (a null among them, which only collections hold).
    @inlinable
    public init(_ value: consuming Value) {
        // Consumed, so that matching moves the payload out instead of copying the value first
        // (a copy and two destructions through the enum's witnesses, most of the conversion).
        switch consume value {
        case .nil: self = .nil
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .uint(let number): self = .uint(number)
        case .double(let number): self = .double(number)
        case .date(let seconds): self = .date(secondsSinceReferenceDate: seconds)
        default: self = .other
        }
    }

    /// The value this scalar stands for; `nil` for ``other``.
    public var value: Value? {
        switch kind {
        case .nil: return .nil
        case .bool: return .bool(bits != 0)
        case .int: return .int(int)
        case .uint: return .uint(bits)
        case .double: return .double(double)
        case .date: return .date(secondsSinceReferenceDate: double)
        case .other: return nil
        }
    }
}
