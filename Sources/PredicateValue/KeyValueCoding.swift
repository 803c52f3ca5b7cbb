/// A host object that predicates read through key-value coding (SPEC §4.2.1).
///
/// An object describes its keys once, in a ``Schema``; rules prepared against that schema read
/// fields by slot number rather than by name. Unlike a dictionary, an object answers an unknown
/// key with an error, which is how `$item.uploadded` is caught instead of being silently `nil`.
///
/// The simplest fast conformance is ``Queryable``: a table of key paths from which the schema and
/// every requirement below are derived. Write the requirements by hand only for fields that are
/// computed in ways a key path cannot express.
///
/// ## Swift 6 concurrency
///
/// Conforming types must be `Sendable`, because compiled rules and batches are shared between
/// threads. A type that is not (a `[String: Any]`, a mutable class, an `NSObject`) is not made to
/// conform; instead:
/// - for dictionaries and other dynamic data, convert to a ``Value`` (``Value/init(_:)`` for a
///   `[String: Any]`, ``Value/init(encoding:)`` for a `Codable` value, ``Value/init(jsonData:)``)
///   and evaluate that;
/// - for a mutable class, take a snapshot: a struct of the fields rules read, made when the object
///   is current, conforming to ``Queryable``; or a `final class` whose stored properties are all
///   `let` (then it is `Sendable` as it stands);
/// - do not mark a mutable class `@unchecked Sendable` to make it conform: engines read fields on
///   other threads, while you mutate it.
public protocol KeyValueCoding: Sendable {
    /// The keys this object answers, with their types.
    var schema: Schema { get }

    /// The value of the field at `slot`, an index into ``Schema/fields``.
    func value(atSlot slot: Int) -> Value

    /// Whether this object equals `other` (Apple's `isEqual:`). The default compares schemas and
    /// every field.
    func isEqual(to other: any KeyValueCoding) -> Bool

    /// Calls `body` with the field at `slot` of every object in `objects`, in order: how batch
    /// engines fill a column. The default reads each object in place with ``value(atSlot:)``;
    /// being a requirement, it runs as code specialised for the conforming type even when called
    /// from generic code, which would otherwise copy each object (and retain everything it holds)
    /// to read one field.
    static func forEachValue(atSlot slot: Int, of objects: UnsafeBufferPointer<Self>, _ body: (Value) -> Void)

    /// The identity of the schema of the object at `object`. The default reads ``schema``, which
    /// retains and releases it; a type whose instances share one schema answers without that
    /// (`ObjectIdentifier(Self.fixedSchema)`), which matters to an engine that checks the schema
    /// once per object evaluated, from many threads at once.
    static func schemaIdentity(of object: UnsafePointer<Self>) -> ObjectIdentifier

    /// ``value(atSlot:)`` of the object at `object`, read in place: how an engine reads a field of
    /// an object it holds by pointer. Generic code calling the instance method would copy the
    /// object first (retaining everything it holds) to read one field.
    static func value(atSlot slot: Int, of object: UnsafePointer<Self>) -> Value

    /// Field `slot` of the object at `object` as a plain ``Scalar`` (a Boolean, a number, a date
    /// or nil, with no reference counting), or ``Scalar/other`` when the field holds anything
    /// else. Engines decide comparisons of such fields without building a ``Value``; the default
    /// converts what ``value(atSlot:of:)`` answers, so a type that reads a scalar more cheaply
    /// than it builds the value (or that builds costly values for its other fields, which the
    /// default builds twice when a rule compares them directly) answers for itself.
    static func scalar(atSlot slot: Int, of object: UnsafePointer<Self>) -> Scalar

    /// The schema every object of this type has, when they all share one; `nil` (the default)
    /// when each object answers for itself. Engines then check an object's schema once per type
    /// instead of once per object, and may use ``storedScalar(atSlot:)``.
    static var sharedSchema: Schema? { get }

    /// Where field `slot` is stored in the object, when it is a scalar field stored in place
    /// (``StoredScalar/bool(_:)`` of its key path, and the like) whose loaded ``Scalar`` means
    /// what ``value(atSlot:of:)`` answers; `nil` (the default) for every other field. Engines
    /// that hold objects by pointer then load such a field directly, with no call into the type.
    /// Used only when ``sharedSchema`` is not `nil`.
    static func storedScalar(atSlot slot: Int) -> StoredScalar?

    /// Where field `slot` is stored in the object, when it is a `String` or `String?` stored in
    /// place (``StoredString/string(_:)-(KeyPath<Root,String>)`` of its key path) whose string
    /// means what ``value(atSlot:of:)`` answers; `nil` (the default) for every other field.
    /// Engines that hold objects by pointer then run string comparisons on the field where it
    /// lies, without copying it into a ``Value``. Used only when ``sharedSchema`` is not `nil`.
    static func storedString(atSlot slot: Int) -> StoredString?

    /// Where the string `key` of the struct held by field `slot` is stored in the object, when
    /// the struct is stored in place as an optional (``StoredString/string(_:_:)`` of the two key
    /// paths: `contentType.identifier`) and the string means what reading `key` of the field's
    /// value answers; `nil` (the default) otherwise. Engines that hold objects by pointer then
    /// compare the string where it lies instead of boxing the struct to read one of its keys.
    /// Used only when ``sharedSchema`` is not `nil`.
    static func storedString(atSlot slot: Int, key: String) -> StoredString?

    /// Whether the `Self?` at `address` holds an object: what a ``StoredString`` inside an
    /// optional of this type checks before reading its string. The default is the check itself;
    /// as a requirement it is compiled for each conforming type, so an engine asks it without
    /// looking up the optional's type at run time.
    static func isPresent(optionalAt address: UnsafeRawPointer) -> Bool

    /// Where field `slot` is stored in the object, when it is a `[String: Value]` or
    /// `[String: Value]?` stored in place (``StoredDictionary/dictionary(_:)-(KeyPath<Root,[String:Value]>)``
    /// of its key path) whose entries mean what ``value(atSlot:of:)`` answers; `nil` (the default)
    /// for every other field. Engines that hold objects by pointer then look a key up
    /// (`userInfo.rank`) in the dictionary where it lies. Used only when ``sharedSchema`` is not
    /// `nil`.
    static func storedDictionary(atSlot slot: Int) -> StoredDictionary?
}

extension KeyValueCoding {
    /// `ObjectIdentifier(object.pointee.schema)`, asked of the object where it lies
    /// (``withObject(at:_:)``).
    @inlinable
    public static func schemaIdentity(of object: UnsafePointer<Self>) -> ObjectIdentifier {
        withObject(at: object) { ObjectIdentifier($0.schema) }
    }

    /// `object.pointee.value(atSlot: slot)`, asked of the object where it lies
    /// (``withObject(at:_:)``): specialised for the conforming type, and without copying the
    /// object to read one field.
    @inlinable
    public static func value(atSlot slot: Int, of object: UnsafePointer<Self>) -> Value {
        withObject(at: object) { $0.value(atSlot: slot) }
    }

    /// `body` applied to the object at `object` without copying it.
    ///
    /// `object.pointee.value(atSlot:)` copies the whole object before the call (the compiler
    /// cannot know that the call leaves the memory alone), retaining and releasing every
    /// reference the object holds, an atomic operation each, to read one field: for a struct
    /// with a few strings, arrays or dictionaries, most of an evaluation. Here the object's bytes
    /// are copied to the stack and taken from there as a value that owns nothing of its own (its
    /// references stay the caller's, valid while `object` is), which `body` borrows; the bytes are
    /// then put back and dropped without being destroyed, so no reference count changes.
    ///
    /// The stack space is taken without a stack protector: nothing but the object's own bytes,
    /// copied by its own size, is written to it, and a protected allocation put the protector's
    /// check in every function that reads one field (two loads and a branch for a field that is
    /// one load).
    @inlinable @inline(__always)
    public static func withObject<Result>(at object: UnsafePointer<Self>, _ body: (Self) -> Result) -> Result {
        _withUnprotectedUnsafeTemporaryAllocation(of: Self.self, capacity: 1) { scratch in
            guard let alias = scratch.baseAddress else { return body(object.pointee) }
            UnsafeMutableRawPointer(alias).copyMemory(from: object, byteCount: MemoryLayout<Self>.size)
            let borrowed = alias.move()
            let result = body(borrowed)
            alias.initialize(to: consume borrowed)
            return result
        }
    }

    /// The field's value as a scalar (``Scalar/init(_:)``), so that engines decide scalar fields of
    /// any conforming type without the general comparison; ``Scalar/other`` for other fields,
    /// which they then read as a ``Value``.
    @inlinable
    public static func scalar(atSlot slot: Int, of object: UnsafePointer<Self>) -> Scalar {
        Scalar(value(atSlot: slot, of: object))
    }

    /// `nil`: each object answers ``KeyValueCoding/schema`` for itself.
    public static var sharedSchema: Schema? { nil }

    /// `nil`: no field is loaded directly.
    public static func storedScalar(atSlot slot: Int) -> StoredScalar? { nil }

    /// `nil`: no string field is read in place.
    public static func storedString(atSlot slot: Int) -> StoredString? { nil }

    /// `nil`: no string of a nested struct is read in place.
    public static func storedString(atSlot slot: Int, key: String) -> StoredString? { nil }

    /// Whether the optional holds an object.
    @inlinable
    public static func isPresent(optionalAt address: UnsafeRawPointer) -> Bool {
        address.assumingMemoryBound(to: Self?.self).pointee != nil
    }

    /// `nil`: no dictionary field is read in place.
    public static func storedDictionary(atSlot slot: Int) -> StoredDictionary? { nil }

    /// Reads field `slot` of each object in place.
    @inlinable
    public static func forEachValue(atSlot slot: Int, of objects: UnsafeBufferPointer<Self>, _ body: (Value) -> Void) {
        guard let base = objects.baseAddress else { return }
        for index in objects.indices { body(value(atSlot: slot, of: base + index)) }
    }

    /// The value for `key` (a field name or alias), or `nil` when the object has no such key.
    public func value(forKey key: String) -> Value? {
        guard let slot = schema.slot(forKey: key) else { return nil }
        return value(atSlot: slot)
    }

    /// Same schema, and every field equal.
    public func isEqual(to other: any KeyValueCoding) -> Bool {
        guard schema === other.schema else { return false }
        return schema.fields.indices.allSatisfy { value(atSlot: $0) == other.value(atSlot: $0) }
    }
}

/// The keys of a kind of object and the type of each, fixed when the schema is made.
///
/// Schemas are compared by identity: two objects share a schema when they are of one kind.
public final class Schema: Sendable {
    /// One key of the object.
    public struct Field: Hashable, Sendable {
        /// The property name, for example `isUploaded`.
        public let name: String
        /// Other keys for the same field, for example `uploaded` (KVC's `is…` getter rule).
        public let aliases: [String]
        /// What the field holds, for checking rules before they run.
        public let type: ValueType

        /// Creates a field.
        public init(_ name: String, _ type: ValueType, aliases: [String] = []) {
            self.name = name
            self.aliases = aliases
            self.type = type
        }
    }

    /// The name of the kind of object, as messages show it (`FileProviderItem`).
    public let typeName: String
    /// The fields, in slot order.
    public let fields: [Field]
    private let slots: [String: Int]

    /// Creates a schema. Boolean fields named `isX` also answer to `x`, and fields named `x` to
    /// `isX`, as key-value coding's accessor search does; explicit aliases are kept too.
    public init(typeName: String, fields: [Field]) {
        self.typeName = typeName
        self.fields = fields
        var slots: [String: Int] = [:]
        for (slot, field) in fields.enumerated() {
            slots[field.name] = slot
            for alias in field.aliases where slots[alias] == nil { slots[alias] = slot }
        }
        for (slot, field) in fields.enumerated() where field.type.isBoolean {
            for alias in Schema.accessorAliases(of: field.name) where slots[alias] == nil { slots[alias] = slot }
        }
        self.slots = slots
    }

    /// The slot answering `key`, or `nil` when no field does.
    public func slot(forKey key: String) -> Int? { slots[key] }

    /// Every key the schema answers, for did-you-mean suggestions.
    public var keys: [String] { slots.keys.sorted() }

    /// `isUploaded` ⇄ `uploaded`.
    private static func accessorAliases(of name: String) -> [String] {
        if name.hasPrefix("is"), let first = name.dropFirst(2).first, first.isUppercase {
            return [first.lowercased() + name.dropFirst(3)]
        }
        guard let first = name.first else { return [] }
        return ["is" + first.uppercased() + name.dropFirst()]
    }
}

/// The static type of a value, as a schema declares it (for checking rules before they run).
public indirect enum ValueType: Hashable, Sendable {
    /// Anything; no checks.
    case any
    /// A Boolean.
    case bool
    /// An integer (signed or unsigned).
    case integer
    /// Any number.
    case number
    /// A string.
    case string
    /// A date.
    case date
    /// Bytes.
    case data
    /// An array whose elements have the given type.
    case array(ValueType)
    /// A dictionary whose values have the given type.
    case dictionary(ValueType)
    /// A dictionary with known keys, each with its type (an activation context); other keys
    /// read as `nil`, as in any dictionary.
    case record([String: ValueType])
    /// An object described by a schema.
    case object(SchemaReference)
    /// The given type, or nil.
    case optional(ValueType)

    /// Whether values of this type are dictionaries (optional or not).
    public var isDictionary: Bool {
        switch self {
        case .dictionary: return true
        case .optional(let wrapped): return wrapped.isDictionary
        default: return false
        }
    }

    /// Whether values of this type are Booleans (optional or not).
    public var isBoolean: Bool {
        switch self {
        case .bool: return true
        case .optional(let wrapped): return wrapped.isBoolean
        default: return false
        }
    }
}

/// A schema held by a ``ValueType``, compared by identity.
public struct SchemaReference: Hashable, Sendable {
    /// The schema.
    public let schema: Schema

    /// Wraps a schema.
    public init(_ schema: Schema) { self.schema = schema }

    /// Identity comparison.
    public static func == (lhs: SchemaReference, rhs: SchemaReference) -> Bool { lhs.schema === rhs.schema }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(lhs)) }
    private var lhs: Schema { schema }
}
