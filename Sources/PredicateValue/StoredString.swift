/// Where a string field is stored inside an object: so that an engine holding objects by pointer
/// runs a string kernel on the field where it lies, borrowed, without copying it into a
/// ``Value`` (which retains the string's storage and releases it again on every evaluation).
///
/// Made only from a key path of a stored `String` or `String?` property (``string(_:)-(KeyPath<Root,String>)``),
/// so the offset is the compiler's and the load's type is the property's: a computed field, or
/// one reached through a class or an optional, has no stored string (the constructors answer
/// `nil`), and engines read it through ``KeyValueCoding/value(atSlot:of:)``.
public struct StoredString: Hashable, Sendable {
    /// Whether the field is a `String?` (an absent one reads as nil) rather than a `String`.
    public let isOptional: Bool
    /// The byte offset of the field in the object.
    public let offset: Int
    /// The type the offset is for: engines use a stored string only for objects of that type.
    public let root: ObjectIdentifier

    private init?<Root, Field>(_ path: KeyPath<Root, Field>, isOptional: Bool) {
        guard let offset = MemoryLayout<Root>.offset(of: path) else { return nil }
        self.isOptional = isOptional
        self.offset = offset
        root = ObjectIdentifier(Root.self)
    }

    /// A stored `String`, meaning ``Value/string(_:)``.
    public static func string<Root>(_ path: KeyPath<Root, String>) -> StoredString? {
        .init(path, isOptional: false)
    }

    /// A stored `String?`, meaning ``Value/string(_:)`` or nil.
    public static func string<Root>(_ path: KeyPath<Root, String?>) -> StoredString? {
        .init(path, isOptional: true)
    }

    /// `body` applied to the field of the object at `object` (which must be of type ``root``),
    /// the string borrowed where it is stored; `whenNil` for an absent optional.
    @inlinable @inline(__always)
    public func withString<Result, Failure: Error>(
        in object: UnsafeRawPointer, whenNil: () throws(Failure) -> Result,
        _ body: (String) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let field = object + offset
        guard isOptional else { return try body(field.assumingMemoryBound(to: String.self).pointee) }
        switch field.assumingMemoryBound(to: String?.self).pointee {
        case .some(let text): return try body(text)
        case .none: return try whenNil()
        }
    }

    /// The field of the object at `object` (which must be of type ``root``) as the value
    /// ``KeyValueCoding/value(atSlot:of:)`` answers for it.
    public func value(in object: UnsafeRawPointer) -> Value {
        let field = object + offset
        if isOptional { return field.assumingMemoryBound(to: String?.self).pointee.map(Value.string) ?? .nil }
        return .string(field.assumingMemoryBound(to: String.self).pointee)
    }
}
