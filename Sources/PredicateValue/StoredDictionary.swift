import CMemoryHints

/// Where a dictionary field (`[String: Value]`, such as a File Provider item's `userInfo`) is
/// stored inside an object: so that an engine holding objects by pointer looks one key up in
/// the dictionary where it lies, without copying the whole dictionary into a ``Value`` and
/// walking a key path over it.
///
/// Made only from a key path of a stored `[String: Value]` or `[String: Value]?` property
/// (``dictionary(_:)-(KeyPath<Root,[String:Value]>)``), so the offset is the compiler's and the
/// load's type is the property's; other fields have no stored dictionary (the constructors answer
/// `nil`), and engines read them through ``KeyValueCoding/value(atSlot:of:)``.
public struct StoredDictionary: Hashable, Sendable {
    /// Whether the field is optional (an absent one reads as nil).
    public let isOptional: Bool
    /// The byte offset of the field in the object.
    public let offset: Int
    /// The type the offset is for: engines use a stored dictionary only for objects of that type.
    public let root: ObjectIdentifier

    private init?<Root, Field>(_ path: KeyPath<Root, Field>, isOptional: Bool) {
        guard let offset = MemoryLayout<Root>.offset(of: path) else { return nil }
        self.isOptional = isOptional
        self.offset = offset
        root = ObjectIdentifier(Root.self)
    }

    /// A stored `[String: Value]`, meaning ``Value/dictionary(_:)``.
    public static func dictionary<Root>(_ path: KeyPath<Root, [String: Value]>) -> StoredDictionary? {
        .init(path, isOptional: false)
    }

    /// A stored `[String: Value]?`, meaning ``Value/dictionary(_:)`` or nil.
    public static func dictionary<Root>(_ path: KeyPath<Root, [String: Value]?>) -> StoredDictionary? {
        .init(path, isOptional: true)
    }

    /// `body` applied to the field of the object at `object` (which must be of type ``root``),
    /// read where it is stored; `whenNil` for an absent optional.
    @inlinable @inline(__always)
    public func withDictionary<Result>(
        in object: UnsafeRawPointer, whenNil: () -> Result, _ body: ([String: Value]) -> Result
    ) -> Result {
        let field = object + offset
        // A present `[String: Value]?` holds the dictionary's own reference, where the
        // dictionary would be.
        if isOptional, field.assumingMemoryBound(to: [String: Value]?.self).pointee == nil { return whenNil() }
        return Self.borrow(field, body)
    }

    /// How many bytes of a dictionary's storage ``prefetch(in:)`` asks for: the header, the
    /// occupancy bitmap, then keys and values of a `userInfo` of up to about eight entries.
    @usableFromInline static let prefetchedBytes = 384

    /// Asks the processor to start bringing the dictionary of the object at `object` (of type
    /// ``root``) into the cache, for a look-up a few objects later. Over many objects, each
    /// dictionary is a cache miss in a place of its own; asked for ahead, the misses overlap
    /// with the work on the objects before it instead of each stopping the loop.
    @inlinable @inline(__always)
    public func prefetch(in object: UnsafeRawPointer) {
        // The field is one reference (zero for an absent optional): the storage's address.
        let storage = (object + offset).load(as: UInt.self)
        guard storage != 0, let base = UnsafeRawPointer(bitPattern: storage) else { return }
        var line = 0
        while line < Self.prefetchedBytes {
            predicate_prefetch(base + line)
            line &+= 64
        }
    }

    /// `body` applied to the `[String: Value]` at `field`, borrowed where it lies, as
    /// ``StoredString`` borrows a string: its reference is taken as a value that owns nothing
    /// (the object keeps it), then put back and dropped without being released. Reading
    /// `pointee` instead retained and released the dictionary's storage for every look-up, two
    /// atomic operations that cost as much as a short look-up itself.
    @inlinable @inline(__always)
    static func borrow<Result>(_ field: UnsafeRawPointer, _ body: ([String: Value]) -> Result) -> Result {
        // No stack protector, as in `KeyValueCoding.withObject(at:_:)`: only the field's own bytes
        // are written to the scratch.
        _withUnprotectedUnsafeTemporaryAllocation(of: [String: Value].self, capacity: 1) { scratch in
            guard let alias = scratch.baseAddress else {
                return body(field.assumingMemoryBound(to: [String: Value].self).pointee)
            }
            UnsafeMutableRawPointer(alias).copyMemory(from: field, byteCount: MemoryLayout<[String: Value]>.size)
            let borrowed = alias.move()
            let result = body(borrowed)
            alias.initialize(to: consume borrowed)
            return result
        }
    }

    /// The field of the object at `object` (which must be of type ``root``) as the value
    /// ``KeyValueCoding/value(atSlot:of:)`` answers for it.
    public func value(in object: UnsafeRawPointer) -> Value {
        withDictionary(in: object, whenNil: { .nil }, { .dictionary($0) })
    }
}
