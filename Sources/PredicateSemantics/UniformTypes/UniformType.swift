import PredicateValue

/// A `UTType` object, as an item's `contentType` hands it to a predicate (SPEC §4.2.6, §5.2).
///
/// Rules read it through key-value coding: `contentType.identifier UTI-CONFORMS-TO 'public.image'`
/// is the supported spelling. The UTI operators themselves reject the object, as Apple's do; see
/// ``utiConformsTo(_:_:registry:lenient:)``.
///
/// The object is a snapshot: its keys are computed from a registry once, when it is made, so
/// reading them costs nothing and the object can cross threads freely.
public struct UniformType: KeyValueCoding, Hashable, CustomStringConvertible {
    /// The type identifier, spelled as the registry declares it.
    public let identifier: String
    /// The usual filename extension, without the dot; `nil` for abstract or unknown types.
    public let preferredFilenameExtension: String?
    /// The usual MIME type; `nil` when none is known.
    public let preferredMIMEType: String?
    /// Whether the identifier is a synthesised `dyn.` identifier.
    public let isDynamic: Bool
    /// Whether the registry has a declaration for the identifier.
    public let isDeclared: Bool

    /// Whether the identifier is in Apple's reserved `public.` domain.
    public var isPublicType: Bool { ASCIICase.hasPrefix(identifier, "public.") }

    /// Makes the object for `identifier`, reading its declaration and tags from `registry`.
    ///
    /// Unlike Apple's failable `UTType(_:)`, any identifier is accepted: a rule should see an
    /// undeclared type (`isDeclared == NO`) rather than a missing `contentType`.
    public init(_ identifier: String, registry: UniformTypeRegistry = .system) {
        self.identifier = registry.canonicalIdentifier(identifier)
        preferredFilenameExtension = registry.preferredFilenameExtension(for: identifier)
        preferredMIMEType = registry.preferredMIMEType(for: identifier)
        isDynamic = UniformTypeRegistry.isDynamic(identifier)
        isDeclared = registry.isDeclared(identifier)
    }

    /// The keys of SPEC §4.2.6, shared by every instance (schemas compare by identity). The
    /// Boolean keys also answer without their `is` prefix (`dynamic`, `declared`, `publicType`),
    /// as key-value coding's accessor search does.
    public static let schema = Schema(
        typeName: "UTType",
        fields: [
            Schema.Field("identifier", .string),
            Schema.Field("preferredFilenameExtension", .optional(.string)),
            Schema.Field("preferredMIMEType", .optional(.string)),
            Schema.Field("isDynamic", .bool),
            Schema.Field("isDeclared", .bool),
            Schema.Field("isPublicType", .bool),
        ]
    )

    /// ``schema``; instance access for the ``KeyValueCoding`` protocol.
    public var schema: Schema { UniformType.schema }

    /// The value of a field, by its slot in ``schema``; a slot outside the schema reads as nil.
    public func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(identifier)
        case 1: return preferredFilenameExtension.map(Value.string) ?? .nil
        case 2: return preferredMIMEType.map(Value.string) ?? .nil
        case 3: return .bool(isDynamic)
        case 4: return .bool(isDeclared)
        case 5: return .bool(isPublicType)
        default: return .nil
        }
    }

    /// Two type objects are equal when their identifiers are (ignoring ASCII case), as
    /// `UTType.==` is; the snapshot fields follow from the identifier.
    public func isEqual(to other: any KeyValueCoding) -> Bool {
        guard let other = other as? UniformType else { return false }
        return self == other
    }

    /// Equal identifiers, ignoring ASCII case.
    public static func == (lhs: UniformType, rhs: UniformType) -> Bool {
        ASCIICase.equal(lhs.identifier, rhs.identifier)
    }

    /// Hashes the identifier ignoring ASCII case, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ASCIICase.foldedBytes(identifier)) }

    /// The identifier, as Apple's `UTType.description` prints it.
    public var description: String { identifier }
}
