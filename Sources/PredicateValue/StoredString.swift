import CMemoryHints

/// Where a string field is stored inside an object: so that an engine holding objects by pointer
/// runs a string kernel on the field where it lies, borrowed, without copying it into a
/// ``Value`` (which retains the string's storage and releases it again on every evaluation).
///
/// Made only from a key path of a stored `String` or `String?` property (``string(_:)-(KeyPath<Root,String>)``),
/// or of a stored `String` of a ``KeyValueCoding`` struct stored as an optional property
/// (``string(_:_:)``: `contentType?.identifier`), so the offsets are the compiler's and the
/// load's type is the property's: a computed field, or one reached through a class, has no
/// stored string (the constructors answer `nil`), and engines read it through
/// ``KeyValueCoding/value(atSlot:of:)``.
public struct StoredString: Hashable, Sendable {
    /// Whether the field is a `String?` (an absent one reads as nil) rather than a `String`.
    public let isOptional: Bool
    /// The byte offset of the field in the object.
    public let offset: Int
    /// The type the offset is for: engines use a stored string only for objects of that type.
    public let root: ObjectIdentifier
    /// For a string inside an optional struct: where the optional is, and the struct's type,
    /// which reads the optional (``KeyValueCoding/isPresent(optionalAt:)``, specialised for the
    /// type). A metatype, so that the place stays plain data that engines copy without reference
    /// counting.
    private let containerOffset: Int
    private let container: (any KeyValueCoding.Type)?

    private init?<Root, Field>(_ path: KeyPath<Root, Field>, isOptional: Bool) {
        guard let offset = MemoryLayout<Root>.offset(of: path) else { return nil }
        self.isOptional = isOptional
        self.offset = offset
        root = ObjectIdentifier(Root.self)
        containerOffset = 0
        container = nil
    }

    private init?<Root, Object: KeyValueCoding>(_ object: KeyPath<Root, Object?>, _ field: KeyPath<Object, String>) {
        // An optional keeps its payload at offset 0 (its tag, if any, after it), so the string
        // of a present struct is at the struct's offset plus the field's.
        guard let outer = MemoryLayout<Root>.offset(of: object), let inner = MemoryLayout<Object>.offset(of: field)
        else { return nil }
        isOptional = true
        offset = outer + inner
        root = ObjectIdentifier(Root.self)
        containerOffset = outer
        container = Object.self
    }

    /// The same place in the same type: the presence check is determined by it.
    public static func == (lhs: StoredString, rhs: StoredString) -> Bool {
        lhs.isOptional == rhs.isOptional && lhs.offset == rhs.offset && lhs.root == rhs.root
            && lhs.containerOffset == rhs.containerOffset && (lhs.container == nil) == (rhs.container == nil)
    }

    /// Hashes the place, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(offset)
        hasher.combine(root)
        hasher.combine(containerOffset)
    }

    /// A stored `String`, meaning ``Value/string(_:)``.
    public static func string<Root>(_ path: KeyPath<Root, String>) -> StoredString? {
        .init(path, isOptional: false)
    }

    /// A stored `String?`, meaning ``Value/string(_:)`` or nil.
    public static func string<Root>(_ path: KeyPath<Root, String?>) -> StoredString? {
        .init(path, isOptional: true)
    }

    /// A `String` property of a struct stored as a `Object?` property, meaning
    /// ``Value/string(_:)``, or nil when the struct is absent.
    public static func string<Root, Object: KeyValueCoding>(
        _ object: KeyPath<Root, Object?>, _ field: KeyPath<Object, String>
    ) -> StoredString? {
        .init(object, field)
    }

    /// `body` applied to the field of the object at `object` (which must be of type ``root``),
    /// the string borrowed where it is stored; `whenNil` for an absent optional.
    @inlinable @inline(__always)
    public func withString<Result, Failure: Error>(
        in object: UnsafeRawPointer, whenNil: () throws(Failure) -> Result,
        _ body: (String) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let field = object + offset
        guard isOptional else { return try Self.borrow(field, body) }
        if isInContainer {
            guard isContainerPresent(in: object) else { return try whenNil() }
            return try Self.borrow(field, body)
        }
        // A present `String?` holds its string's own bytes, where the string would be.
        guard field.assumingMemoryBound(to: String?.self).pointee != nil else { return try whenNil() }
        return try Self.borrow(field, body)
    }

    /// `body` applied to the `String` at `field`, borrowed where it lies: its two words are taken
    /// as a value that owns nothing of its own (the object keeps its reference), then put back
    /// and dropped without being destroyed, so no reference count changes, as
    /// ``KeyValueCoding/withObject(at:_:)`` does for a whole object. Reading `pointee` instead
    /// retained and released the string's storage for every string compared.
    @inlinable @inline(__always)
    static func borrow<Result, Failure: Error>(
        _ field: UnsafeRawPointer, _ body: (String) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // No stack protector, as in `KeyValueCoding.withObject(at:_:)`: only the field's own bytes
        // are written to the scratch.
        try _withUnprotectedUnsafeTemporaryAllocation(of: String.self, capacity: 1) {
            (scratch) throws(Failure) -> Result in
            guard let alias = scratch.baseAddress else {
                return try body(field.assumingMemoryBound(to: String.self).pointee)
            }
            UnsafeMutableRawPointer(alias).copyMemory(from: field, byteCount: MemoryLayout<String>.size)
            let borrowed = alias.move()
            let result: Result
            do throws(Failure) {
                result = try body(borrowed)
            } catch {
                alias.initialize(to: consume borrowed)
                throw error
            }
            alias.initialize(to: consume borrowed)
            return result
        }
    }

    /// Asks the processor to start bringing the field's string, in the object at `object`, into
    /// the cache, for a read a few objects later (see ``StoredDictionary/prefetch(in:)``): see
    /// ``prefetch(_:)``.
    ///
    /// A string inside an optional struct (`contentType.identifier`) is not asked for: reading
    /// one retains and releases it, its lines are written as they are read, and asking for them
    /// ahead made the VM's `UTI-CONFORMS-TO` loop 2.5 times slower (53 against 140 ns an item).
    @inlinable @inline(__always)
    public func prefetch(in object: UnsafeRawPointer) {
        guard !isInContainer else { return }
        withString(in: object, whenNil: {}, { Self.prefetch($0) })
    }

    /// Asks the processor to start bringing `text`'s own memory into the cache: the line of its
    /// first byte and the line of its last, where `BEGINSWITH` and `ENDSWITH` look. The addresses
    /// are computed, not read: nothing waits for the string.
    ///
    /// A string of up to 15 bytes is stored in place (in the object, or the column) and needs
    /// nothing: reaching its bytes would only copy them to the stack.
    @inlinable @inline(__always)
    public static func prefetch(_ text: String) {
        guard text.utf8.count > 15 else { return }
        _ = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.baseAddress else { return }
            predicate_prefetch(first)
            predicate_prefetch(first + (bytes.count &- 1))
        }
    }

    /// Whether the string is inside an optional struct (``string(_:_:)``).
    @usableFromInline
    var isInContainer: Bool { container != nil }

    /// Whether the optional struct holding the string is present in the object at `object`.
    @usableFromInline
    func isContainerPresent(in object: UnsafeRawPointer) -> Bool {
        guard let container else { return true }
        return container.isPresent(optionalAt: object + containerOffset)
    }

    /// The field of the object at `object` (which must be of type ``root``) as the value
    /// ``KeyValueCoding/value(atSlot:of:)`` answers for it.
    public func value(in object: UnsafeRawPointer) -> Value {
        withString(in: object, whenNil: { .nil }, { .string($0) })
    }
}
