import Foundation

/// A type whose instances rules can read, described by a table of key paths: the library derives
/// the schema, the in-place field reads and the stored-field loads the engines use (everything
/// ``KeyValueCoding`` asks of a fast conformance), so no conformance writes `UnsafePointer`.
///
/// ```swift
/// struct Track: Queryable {
///     var title: String
///     var plays: Int
///     var isLiked: Bool
///     var added: Date
///     static let queryKeyPaths: KeyPathTable<Track> = [
///         "title": \.title, "plays": \.plays, "isLiked": \.isLiked, "added": \.added,
///     ]
/// }
/// let liked = tracks.filter(try Rule<Track>("isLiked == YES AND plays > %d", 10))
/// ```
///
/// Declare the table with `static let`, so that it is built once. Stored `Bool`, `Int`, `Int64`,
/// `UInt64` and `Double` properties (optional or not) are loaded straight from the instance by
/// offset, and stored `String` properties are compared where they lie (no copy); other fields
/// are read through their key path. The type must be `Sendable`: for a
/// mutable class, evaluate a snapshot struct of it instead (or a ``Value``).
public protocol Queryable: KeyValueCoding {
    /// The fields rules may read, in slot order, each by name.
    static var queryKeyPaths: KeyPathTable<Self> { get }
}

extension Queryable {
    /// The table's schema.
    public var schema: Schema { Self.queryKeyPaths.schema }
    /// Every instance has the table's schema.
    public static var sharedSchema: Schema? { queryKeyPaths.schema }

    /// Reads field `slot` through its key path.
    public func value(atSlot slot: Int) -> Value {
        withUnsafePointer(to: self) { Self.value(atSlot: slot, of: $0) }
    }

    /// Reads field `slot` of the instance at `object` in place.
    public static func value(atSlot slot: Int, of object: UnsafePointer<Self>) -> Value {
        let fields = queryKeyPaths.fields
        return slot >= 0 && slot < fields.count ? fields[slot].read(object) : .nil
    }

    /// Field `slot` as a plain scalar when it holds a Boolean, a number or a date.
    public static func scalar(atSlot slot: Int, of object: UnsafePointer<Self>) -> Scalar {
        let fields = queryKeyPaths.fields
        guard slot >= 0, slot < fields.count, let scalar = fields[slot].scalar else { return .other }
        return scalar(object)
    }

    /// Where field `slot` is stored, for stored scalar properties.
    public static func storedScalar(atSlot slot: Int) -> StoredScalar? {
        let fields = queryKeyPaths.fields
        return slot >= 0 && slot < fields.count ? fields[slot].stored : nil
    }

    /// Where field `slot` is stored, for stored `[String: Value]` properties, optional or not.
    public static func storedDictionary(atSlot slot: Int) -> StoredDictionary? {
        let fields = queryKeyPaths.fields
        return slot >= 0 && slot < fields.count ? fields[slot].storedDictionary : nil
    }

    /// Where field `slot` is stored, for stored `String` and `String?` properties.
    public static func storedString(atSlot slot: Int) -> StoredString? {
        let fields = queryKeyPaths.fields
        return slot >= 0 && slot < fields.count ? fields[slot].storedString : nil
    }

    /// The table's schema, without reading the instance.
    public static func schemaIdentity(of object: UnsafePointer<Self>) -> ObjectIdentifier {
        ObjectIdentifier(queryKeyPaths.schema)
    }

    /// Reads field `slot` of each instance in place.
    public static func forEachValue(atSlot slot: Int, of objects: UnsafeBufferPointer<Self>, _ body: (Value) -> Void) {
        guard let base = objects.baseAddress else { return }
        for index in objects.indices { body(value(atSlot: slot, of: base + index)) }
    }
}

/// The fields of a ``Queryable`` type: names and key paths, written as a dictionary literal
/// (`["title": \.title, "plays": \.plays]`), in slot order.
///
/// Each key path's value type decides the field's ``ValueType`` and how it is read: `Bool`,
/// integers, `Double`, `Float`, `Decimal`, `String`, `Date`, `Data`, their optionals, and any
/// other ``ValueConvertible`` or ``KeyValueCoding`` value (read as ``Value/init(any:)`` reads it).
public struct KeyPathTable<Root>: ExpressibleByDictionaryLiteral, Sendable {
    /// One field: how to read it, and where it is stored when it is a stored scalar.
    struct Field: Sendable {
        let read: @Sendable (UnsafePointer<Root>) -> PredicateValue.Value
        let scalar: (@Sendable (UnsafePointer<Root>) -> Scalar)?
        let stored: StoredScalar?
        /// Where the field is stored when it is a stored string.
        var storedString: StoredString? = nil
        /// Where the field is stored when it is a stored `[String: Value]`.
        var storedDictionary: StoredDictionary? = nil
    }

    /// The schema: the type's name and the fields in order.
    public let schema: Schema
    let fields: [Field]

    /// The fields named by `elements`, in order.
    public init(dictionaryLiteral elements: (String, PartialKeyPath<Root> & Sendable)...) {
        var schemaFields: [Schema.Field] = []
        var fields: [Field] = []
        for (name, path) in elements {
            let (type, field) = KeyPathTable.field(path)
            schemaFields.append(Schema.Field(name, type))
            fields.append(field)
        }
        schema = Schema(typeName: String(describing: Root.self), fields: schemaFields)
        self.fields = fields
    }

    private static func field(_ path: PartialKeyPath<Root> & Sendable) -> (ValueType, Field) {
        if let path = path as? KeyPath<Root, Bool> {
            return scalarField(.bool, path, .bool(path), PredicateValue.Value.bool, Scalar.bool)
        }
        if let path = path as? KeyPath<Root, Bool?> {
            return optionalField(.bool, path, nil, PredicateValue.Value.bool, Scalar.bool)
        }
        if let path = path as? KeyPath<Root, Int> {
            return scalarField(.integer, path, .int(path), { .int(Int64($0)) }, { .int(Int64($0)) })
        }
        if let path = path as? KeyPath<Root, Int?> {
            return optionalField(.integer, path, .int(path), { .int(Int64($0)) }, { .int(Int64($0)) })
        }
        if let path = path as? KeyPath<Root, Int64> {
            return scalarField(.integer, path, .int64(path), PredicateValue.Value.int, Scalar.int)
        }
        if let path = path as? KeyPath<Root, Int64?> {
            return optionalField(.integer, path, .int64(path), PredicateValue.Value.int, Scalar.int)
        }
        if let path = path as? KeyPath<Root, UInt64> {
            return scalarField(.integer, path, .uint64(path), PredicateValue.Value.uint, Scalar.uint)
        }
        if let path = path as? KeyPath<Root, UInt64?> {
            return optionalField(.integer, path, .uint64(path), PredicateValue.Value.uint, Scalar.uint)
        }
        if let path = path as? KeyPath<Root, Double> {
            return scalarField(.number, path, .double(path), PredicateValue.Value.double, Scalar.double)
        }
        if let path = path as? KeyPath<Root, Double?> {
            return optionalField(.number, path, .double(path), PredicateValue.Value.double, Scalar.double)
        }
        if let path = path as? KeyPath<Root, Date> {
            return scalarField(
                .date, path, nil, { $0.predicateValue },
                { .date(secondsSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        }
        if let path = path as? KeyPath<Root, Date?> {
            return optionalField(
                .date, path, nil, { $0.predicateValue },
                { .date(secondsSinceReferenceDate: $0.timeIntervalSinceReferenceDate) })
        }
        if let path = path as? KeyPath<Root, String> {
            let get = getter(path)
            return (
                .string, Field(read: { .string(get($0)) }, scalar: nil, stored: nil, storedString: .string(path))
            )
        }
        if let path = path as? KeyPath<Root, String?> {
            let get = getter(path)
            return (
                .optional(.string),
                Field(
                    read: { get($0).map(PredicateValue.Value.string) ?? .nil }, scalar: nil, stored: nil,
                    storedString: .string(path))
            )
        }
        if let path = path as? KeyPath<Root, [String: PredicateValue.Value]> {
            let get = getter(path)
            return (
                .dictionary(.any),
                Field(
                    read: { .dictionary(get($0)) }, scalar: nil, stored: nil, storedDictionary: .dictionary(path))
            )
        }
        if let path = path as? KeyPath<Root, [String: PredicateValue.Value]?> {
            let get = getter(path)
            return (
                .optional(.dictionary(.any)),
                Field(
                    read: { get($0).map(PredicateValue.Value.dictionary) ?? .nil }, scalar: nil, stored: nil,
                    storedDictionary: .dictionary(path))
            )
        }
        // Anything else by its dynamic value: arrays, sets, dictionaries, nested objects.
        let type = ValueType.any
        return (
            type,
            Field(
                read: { object in (try? PredicateValue.Value(any: object.pointee[keyPath: path])) ?? .nil },
                scalar: nil, stored: nil)
        )
    }

    /// Reads the field at `path` of the instance at a pointer: a stored property by its offset (only
    /// that field is copied), anything else through the key path.
    private static func getter<Field>(_ path: KeyPath<Root, Field>) -> @Sendable (UnsafePointer<Root>) -> Field {
        guard let offset = MemoryLayout<Root>.offset(of: path) else {
            // The table's key paths are Sendable (its literal requires it); a cast to a typed key
            // path cannot say so.
            nonisolated(unsafe) let path = path
            return { $0.pointee[keyPath: path] }
        }
        // The instance's memory is bound to `Root`, whose stored property at `offset` is a `Field`.
        return { (UnsafeRawPointer($0) + offset).assumingMemoryBound(to: Field.self).pointee }
    }

    private static func scalarField<Field>(
        _ type: ValueType, _ path: KeyPath<Root, Field>, _ stored: StoredScalar?,
        _ value: @escaping @Sendable (Field) -> PredicateValue.Value, _ scalar: @escaping @Sendable (Field) -> Scalar
    ) -> (ValueType, KeyPathTable.Field) {
        let get = getter(path)
        return (type, KeyPathTable.Field(read: { value(get($0)) }, scalar: { scalar(get($0)) }, stored: stored))
    }

    private static func optionalField<Field>(
        _ type: ValueType, _ path: KeyPath<Root, Field?>, _ stored: StoredScalar?,
        _ value: @escaping @Sendable (Field) -> PredicateValue.Value, _ scalar: @escaping @Sendable (Field) -> Scalar
    ) -> (ValueType, KeyPathTable.Field) {
        let get = getter(path)
        return (
            .optional(type),
            KeyPathTable.Field(
                read: { get($0).map(value) ?? .nil }, scalar: { get($0).map(scalar) ?? .nil }, stored: stored)
        )
    }
}
