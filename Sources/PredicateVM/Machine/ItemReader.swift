import PredicateValue

/// An item the machine reads in place: its address and its type, opened only to read a field, so
/// that the instruction loop itself is not generic (unspecialised generic code would copy values
/// through their witnesses and look up generic metadata on every evaluation).
///
/// Valid only while the caller's pointer is: the machine holds one for the length of a call and
/// drops it before returning.
struct ItemReader: @unchecked Sendable {
    let address: UnsafeRawPointer
    let type: any KeyValueCoding.Type
    /// The item's schema identity, read once per item.
    let schema: ObjectIdentifier

    init<Item: KeyValueCoding>(_ item: UnsafePointer<Item>) {
        address = UnsafeRawPointer(item)
        type = Item.self
        schema = Item.schemaIdentity(of: item)
    }

    /// The item of type `type` at `address`.
    init(address: UnsafeRawPointer, type: any KeyValueCoding.Type) {
        self.address = address
        self.type = type
        schema = type.schemaIdentity(at: address)
    }

    /// The item of type `type` at `address`, whose schema is known to be `schema` (every item of
    /// a type with a ``KeyValueCoding/sharedSchema`` has it): nothing to ask the type.
    @inline(__always)
    init(address: UnsafeRawPointer, type: any KeyValueCoding.Type, schema: ObjectIdentifier) {
        self.address = address
        self.type = type
        self.schema = schema
    }

    /// Field `slot`, read in place.
    @inline(__always)
    func value(atSlot slot: Int) -> Value { type.value(atSlot: slot, at: address) }

    /// Field `slot` as a plain scalar, read in place (``Scalar/other`` when it is not one).
    @inline(__always)
    func scalar(atSlot slot: Int) -> Scalar { type.scalar(atSlot: slot, at: address) }

    /// The item as a value.
    func boxed() -> Value { type.boxed(at: address) }

    /// The item `offset` strides further on, of the same type; `sharedSchema` when every item of
    /// the type has the same schema.
    @inline(__always)
    func advanced(by offset: Int, stride: Int, sharedSchema: Bool) -> ItemReader {
        sharedSchema
            ? ItemReader(address: address + offset * stride, type: type, schema: schema)
            : ItemReader(address: address + offset * stride, type: type)
    }
}

/// Items selected by the caller, evaluated in place as the array under one key of an activation
/// context (`{fileproviderItems: [items]}`), without building the context or boxing an item.
///
/// Plain data (an address, a type, two counts), so that copying it costs nothing.
struct ItemSelection: @unchecked Sendable {
    /// The first item; `nil` for an empty selection.
    let first: ItemReader?
    let count: Int
    let stride: Int
    /// Whether every item has the first one's schema, known from the type.
    let sharedSchema: Bool

    /// The items, of a type whose items all have the schema `schema` when it is not `nil`.
    init<Item: KeyValueCoding>(_ items: UnsafeBufferPointer<Item>, schema: ObjectIdentifier?) {
        // Through a raw pointer: generic optionals would look up their metadata at every call.
        let raw = UnsafeRawBufferPointer(items)
        count = items.count
        stride = MemoryLayout<Item>.stride
        sharedSchema = schema != nil
        if let base = raw.baseAddress, items.count > 0 {
            first =
                schema.map { ItemReader(address: base, type: Item.self, schema: $0) }
                ?? ItemReader(address: base, type: Item.self)
        } else {
            first = nil
        }
    }

    /// Item `index` (below ``count``).
    @inline(__always)
    func item(_ index: Int) -> ItemReader? {
        guard let first, index >= 0, index < count else { return nil }
        return index == 0 ? first : first.advanced(by: index, stride: stride, sharedSchema: sharedSchema)
    }

    /// The items as the language's array, for an instruction that needs the collection whole.
    func boxedItems() -> [Value] {
        (0..<count).compactMap { item($0)?.boxed() }
    }
}

extension KeyValueCoding {
    /// Field `slot` of the object of this type at `address`.
    fileprivate static func value(atSlot slot: Int, at address: UnsafeRawPointer) -> Value {
        value(atSlot: slot, of: address.assumingMemoryBound(to: Self.self))
    }

    /// Field `slot` of the object of this type at `address`, as a plain scalar.
    fileprivate static func scalar(atSlot slot: Int, at address: UnsafeRawPointer) -> Scalar {
        scalar(atSlot: slot, of: address.assumingMemoryBound(to: Self.self))
    }

    /// The schema identity of the object of this type at `address`.
    fileprivate static func schemaIdentity(at address: UnsafeRawPointer) -> ObjectIdentifier {
        schemaIdentity(of: address.assumingMemoryBound(to: Self.self))
    }

    /// The object of this type at `address`, as a value.
    fileprivate static func boxed(at address: UnsafeRawPointer) -> Value {
        .object(address.assumingMemoryBound(to: Self.self).pointee)
    }
}
