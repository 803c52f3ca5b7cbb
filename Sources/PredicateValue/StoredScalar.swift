/// Where a scalar field is stored inside an object, and how: so that an engine holding objects by
/// pointer loads the field with one typed load, without calling into the object's type.
///
/// Made only from a key path of stored properties (``bool(_:)``, ``int64(_:)`` and the rest), so
/// the offset is the compiler's and the load's type is the property's: a field that is computed,
/// or reached through a class or an optional, has no stored scalar (the constructors answer
/// `nil`), and engines read it through ``KeyValueCoding/scalar(atSlot:of:)``.
public struct StoredScalar: Hashable, Sendable {
    /// How the field's bits are stored.
    public enum Storage: UInt8, Hashable, Sendable {
        /// `Bool`.
        case bool
        /// `Int64`.
        case int64
        /// `Int64?`.
        case optionalInt64
        /// `UInt64`.
        case uint64
        /// `UInt64?`.
        case optionalUInt64
        /// `Double`.
        case double
        /// `Double?`.
        case optionalDouble
    }

    /// What the loaded bits mean (never ``Scalar/Kind/other`` or ``Scalar/Kind/nil``; an absent
    /// optional loads as ``Scalar/nil``).
    public let kind: Scalar.Kind
    /// How the bits are stored.
    public let storage: Storage
    /// The byte offset of the field in the object.
    public let offset: Int
    /// The type the offset is for: engines use a stored scalar only for objects of that type.
    public let root: ObjectIdentifier

    private init?<Root, Field>(_ path: KeyPath<Root, Field>, _ kind: Scalar.Kind, _ storage: Storage) {
        guard let offset = MemoryLayout<Root>.offset(of: path) else { return nil }
        self.kind = kind
        self.storage = storage
        self.offset = offset
        root = ObjectIdentifier(Root.self)
    }

    /// A stored `Bool`, meaning ``Value/bool(_:)``.
    public static func bool<Root>(_ path: KeyPath<Root, Bool>) -> StoredScalar? { .init(path, .bool, .bool) }
    /// A stored `Int64`, meaning ``Value/int(_:)``.
    public static func int64<Root>(_ path: KeyPath<Root, Int64>) -> StoredScalar? { .init(path, .int, .int64) }
    /// A stored `Int64?`, meaning ``Value/int(_:)`` or nil.
    public static func int64<Root>(_ path: KeyPath<Root, Int64?>) -> StoredScalar? {
        .init(path, .int, .optionalInt64)
    }
    /// A stored `Int`, meaning ``Value/int(_:)`` (on 64-bit platforms, where `Int` is stored as
    /// `Int64` is; `nil` elsewhere).
    public static func int<Root>(_ path: KeyPath<Root, Int>) -> StoredScalar? {
        MemoryLayout<Int>.size == MemoryLayout<Int64>.size ? .init(path, .int, .int64) : nil
    }
    /// A stored `Int?`, meaning ``Value/int(_:)`` or nil (on 64-bit platforms).
    public static func int<Root>(_ path: KeyPath<Root, Int?>) -> StoredScalar? {
        MemoryLayout<Int?>.size == MemoryLayout<Int64?>.size ? .init(path, .int, .optionalInt64) : nil
    }
    /// A stored `UInt64`, meaning ``Value/uint(_:)``.
    public static func uint64<Root>(_ path: KeyPath<Root, UInt64>) -> StoredScalar? { .init(path, .uint, .uint64) }
    /// A stored `UInt64?`, meaning ``Value/uint(_:)`` or nil.
    public static func uint64<Root>(_ path: KeyPath<Root, UInt64?>) -> StoredScalar? {
        .init(path, .uint, .optionalUInt64)
    }
    /// A stored `Double`, meaning ``Value/double(_:)``.
    public static func double<Root>(_ path: KeyPath<Root, Double>) -> StoredScalar? { .init(path, .double, .double) }
    /// A stored `Double?`, meaning ``Value/double(_:)`` or nil.
    public static func double<Root>(_ path: KeyPath<Root, Double?>) -> StoredScalar? {
        .init(path, .double, .optionalDouble)
    }
    /// A date stored as a `Double` of seconds since 2001-01-01T00:00:00Z.
    public static func date<Root>(secondsSinceReferenceDate path: KeyPath<Root, Double>) -> StoredScalar? {
        .init(path, .date, .double)
    }
    /// A date stored as a `Double?` of seconds since 2001-01-01T00:00:00Z, or nil.
    public static func date<Root>(secondsSinceReferenceDate path: KeyPath<Root, Double?>) -> StoredScalar? {
        .init(path, .date, .optionalDouble)
    }

    /// The field of the object at `object`, which must be of type ``root``.
    @inlinable @inline(__always)
    public func load(from object: UnsafeRawPointer) -> Scalar {
        switch storage {
        case .bool:
            return Scalar(kind: kind, bits: object.load(fromByteOffset: offset, as: Bool.self) ? 1 : 0)
        case .int64:
            return Scalar(kind: kind, bits: UInt64(bitPattern: object.load(fromByteOffset: offset, as: Int64.self)))
        case .optionalInt64:
            guard let number = object.load(fromByteOffset: offset, as: Int64?.self) else { return .nil }
            return Scalar(kind: kind, bits: UInt64(bitPattern: number))
        case .uint64:
            return Scalar(kind: kind, bits: object.load(fromByteOffset: offset, as: UInt64.self))
        case .optionalUInt64:
            guard let number = object.load(fromByteOffset: offset, as: UInt64?.self) else { return .nil }
            return Scalar(kind: kind, bits: number)
        case .double:
            return Scalar(kind: kind, bits: object.load(fromByteOffset: offset, as: Double.self).bitPattern)
        case .optionalDouble:
            guard let number = object.load(fromByteOffset: offset, as: Double?.self) else { return .nil }
            return Scalar(kind: kind, bits: number.bitPattern)
        }
    }
}
