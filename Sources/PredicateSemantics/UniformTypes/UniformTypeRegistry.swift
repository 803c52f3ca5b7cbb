/// A type identifier interned by one ``UniformTypeRegistry``, for fast paths that test conformance
/// many times (a compiled rule can look its constant identifiers up once, at preparation).
///
/// An ID only means something to the registry that issued it and to registries derived from it
/// with ``UniformTypeRegistry/registering(_:)``, which keep every existing ID and append new ones.
/// Identifiers no registry knows have no ID; the string API handles them (SPEC §7.1).
public struct UniformTypeID: Hashable, Comparable, Sendable {
    /// The index of the type in its registry; stable for the registry's lifetime.
    public let rawValue: Int32

    /// Rebuilds an ID from its raw value, for callers that store IDs as plain integers (bytecode
    /// operands). An ID the registry never issued conforms to nothing.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Orders by raw value, so that sets of IDs can be kept sorted.
    public static func < (lhs: UniformTypeID, rhs: UniformTypeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One type a host declares, the equivalent of an entry of `UTExportedTypeDeclarations` or
/// `UTImportedTypeDeclarations` (SPEC §7.1): the conformance graph is data, not code, so a File
/// Provider extension's own document types take part in `UTI-CONFORMS-TO`.
public struct UniformTypeDeclaration: Hashable, Sendable {
    /// The type identifier, compared ignoring ASCII case.
    public var identifier: String
    /// The direct parents (`UTTypeConformsTo`); the registry derives the transitive closure.
    public var parents: [String]
    /// The extension a `UTType` object reports as `preferredFilenameExtension`; `nil` keeps the
    /// value of a type this declaration replaces.
    public var preferredFilenameExtension: String?
    /// The MIME type a `UTType` object reports as `preferredMIMEType`; `nil` keeps the value of a
    /// type this declaration replaces.
    public var preferredMIMEType: String?

    /// Declares `identifier` with the direct parents `parents` and optional tags.
    public init(
        _ identifier: String, conformsTo parents: [String], preferredFilenameExtension: String? = nil,
        preferredMIMEType: String? = nil
    ) {
        self.identifier = identifier
        self.parents = parents
        self.preferredFilenameExtension = preferredFilenameExtension
        self.preferredMIMEType = preferredMIMEType
    }
}

/// The type-conformance graph that `UTI-CONFORMS-TO` and `UTI-EQUALS` consult (SPEC §7): the
/// built-in table of §7.2 plus whatever the host registers.
///
/// The registry is an immutable value, so one instance can be shared by every evaluation on every
/// thread without locks; registering types makes a new registry. Each type's full ancestor set is
/// computed once, when the registry is made, as a sorted array of interned IDs, so a conformance
/// test is two hash lookups and a binary search, with no graph walk and no allocation.
///
/// Semantics (SPEC §7.1):
/// * Identifiers compare ignoring ASCII case; bytes outside ASCII compare exactly.
/// * Conformance is reflexive and transitive over the declared direct parents.
/// * An identifier no declaration mentions conforms only to itself.
/// * A dynamic identifier (`dyn.` prefix) that no host declares conforms to itself,
///   `public.data` and `public.item` (and whatever those two conform to).
/// * An identifier that appears only as someone's parent is known (it has an ID and its
///   descendants conform to it) but undeclared: it has no parents of its own.
/// * Cycles, which only host declarations can create, are accepted rather than rejected: the
///   relation is graph reachability, so every member of a cycle conforms to every other member and
///   to all their ancestors. Construction marks each node once per walk, so a cycle cannot make it
///   loop; ``typesInCycles`` lists the members so that tools can warn about them.
public struct UniformTypeRegistry: Sendable {
    /// The built-in table of SPEC §7.2 and nothing else: what a rule sees when the host registers
    /// no types of its own.
    public static let system: UniformTypeRegistry = {
        var builder = Builder()
        for (identifier, parents) in BuiltInUniformTypes.conformances {
            builder.declare(UniformTypeDeclaration(identifier, conformsTo: parents))
        }
        for (identifier, filenameExtension, mimeType) in BuiltInUniformTypes.tags {
            builder.declare(
                tagsOf: identifier, preferredFilenameExtension: filenameExtension, preferredMIMEType: mimeType)
        }
        return builder.build()
    }()

    /// The tables, behind one reference: a registry is copied wherever an environment hands it
    /// out (every `UTI-CONFORMS-TO`), and copying ten arrays would retain and release each.
    private final class Tables: Sendable {
        /// The spelling of each type, indexed by ID: the latest declaration's, or the first mention's.
        let spellings: [String]
        /// ID by identifier, ignoring ASCII case.
        let table: IdentifierTable
        /// Whether a declaration (built-in or host) names the type, as opposed to a parent mention.
        let declared: [Bool]
        /// Declared direct parents, in declaration order.
        let parentIDs: [[Int32]]
        /// Preferred filename extension by ID.
        let filenameExtensions: [String?]
        /// Preferred MIME type by ID.
        let mimeTypes: [String?]
        /// `closure[closureStart[id] ..< closureStart[id + 1]]` is the sorted set of every type `id`
        /// conforms to, itself included (one flat array: no per-type allocation, good locality).
        let closureStart: [Int32]
        let closure: [Int32]
        /// Sorted ancestor set shared by every undeclared `dyn.` identifier.
        let dynamicClosure: [Int32]
        /// Whether the type reaches itself through at least one parent edge.
        let cyclic: [Bool]

        init(
            spellings: [String], table: IdentifierTable, declared: [Bool], parentIDs: [[Int32]],
            filenameExtensions: [String?], mimeTypes: [String?], closureStart: [Int32], closure: [Int32],
            dynamicClosure: [Int32], cyclic: [Bool]
        ) {
            self.spellings = spellings
            self.table = table
            self.declared = declared
            self.parentIDs = parentIDs
            self.filenameExtensions = filenameExtensions
            self.mimeTypes = mimeTypes
            self.closureStart = closureStart
            self.closure = closure
            self.dynamicClosure = dynamicClosure
            self.cyclic = cyclic
        }
    }

    private let tables: Tables
    private var spellings: [String] { tables.spellings }
    private var table: IdentifierTable { tables.table }
    private var declared: [Bool] { tables.declared }
    private var parentIDs: [[Int32]] { tables.parentIDs }
    private var filenameExtensions: [String?] { tables.filenameExtensions }
    private var mimeTypes: [String?] { tables.mimeTypes }
    private var closureStart: [Int32] { tables.closureStart }
    private var closure: [Int32] { tables.closure }
    private var dynamicClosure: [Int32] { tables.dynamicClosure }
    private var cyclic: [Bool] { tables.cyclic }

    /// A registry with the built-in table only; the same as ``system``.
    public init() { self = UniformTypeRegistry.system }

    /// This registry plus `declarations`, applied in order.
    ///
    /// A declaration for an identifier that is already declared (built-in or earlier) replaces its
    /// parents, so a host can correct any [I] edge of SPEC §7.2; its tags replace the old ones
    /// only when given. IDs issued by this registry stay valid in the result.
    public func registering(_ declarations: [UniformTypeDeclaration]) -> UniformTypeRegistry {
        var builder = Builder(
            spellings: spellings, declared: declared, parentIDs: parentIDs,
            filenameExtensions: filenameExtensions, mimeTypes: mimeTypes)
        for declaration in declarations { builder.declare(declaration) }
        return builder.build()
    }

    fileprivate init(
        spellings: [String], table: IdentifierTable, declared: [Bool], parentIDs: [[Int32]],
        filenameExtensions: [String?], mimeTypes: [String?], closureStart: [Int32], closure: [Int32],
        dynamicClosure: [Int32], cyclic: [Bool]
    ) {
        tables = Tables(
            spellings: spellings, table: table, declared: declared, parentIDs: parentIDs,
            filenameExtensions: filenameExtensions, mimeTypes: mimeTypes, closureStart: closureStart, closure: closure,
            dynamicClosure: dynamicClosure, cyclic: cyclic)
    }
}

// MARK: - Queries

extension UniformTypeRegistry {
    /// Whether `identifier` conforms to `other` (`UTTypeConformsTo`, the `UTI-CONFORMS-TO`
    /// operator on two strings): reflexive, transitive, ASCII case-insensitive.
    public func conforms(_ identifier: String, to other: String) -> Bool {
        conforms(identifier, to: other, otherID: typeID(for: other))
    }

    /// ``conforms(_:to:)-(String,String)`` with `other`'s ID looked up already
    /// (``typeID(for:)``), for a caller testing many identifiers against one type.
    public func conforms(_ identifier: String, to other: String, otherID: UniformTypeID?) -> Bool {
        if let lhs = typeID(for: identifier) {
            guard let otherID else { return false }
            return conforms(lhs, to: otherID)
        }
        if ASCIICase.equal(identifier, other) { return true }
        guard UniformTypeRegistry.isDynamic(identifier), let otherID else { return false }
        return UniformTypeRegistry.contains(dynamicClosure[...], otherID.rawValue)
    }

    /// Whether the type `identifier` conforms to the type `other`; both must come from this
    /// registry (or one it was derived from). An ID it never issued conforms to nothing.
    public func conforms(_ identifier: UniformTypeID, to other: UniformTypeID) -> Bool {
        guard let ancestors = closure(of: identifier.rawValue) else { return false }
        return UniformTypeRegistry.contains(ancestors, other.rawValue)
    }

    /// Whether two identifiers name the same type (`UTTypeEqual`, the `UTI-EQUALS` operator):
    /// equal ignoring ASCII case. The graph plays no part; `public.jpeg` and `public.image` are
    /// different types even though one conforms to the other.
    public func isEqual(_ a: String, _ b: String) -> Bool { ASCIICase.equal(a, b) }

    /// The interned ID of `identifier` (ignoring ASCII case), or `nil` when no declaration mentions
    /// it, either as a type or as a parent.
    public func typeID(for identifier: String) -> UniformTypeID? {
        table.id(for: identifier).map(UniformTypeID.init(rawValue:))
    }

    /// The identifier an ID stands for, spelled as declared; `nil` for an ID not issued here.
    public func identifier(for id: UniformTypeID) -> String? {
        spellings.indices.contains(Int(id.rawValue)) ? spellings[Int(id.rawValue)] : nil
    }

    /// Whether a declaration, built-in or registered, names `identifier` (`UTType.isDeclared`).
    /// Identifiers mentioned only as a parent, unknown identifiers and undeclared dynamic ones are
    /// not declared.
    public func isDeclared(_ identifier: String) -> Bool {
        guard let id = table.id(for: identifier) else { return false }
        return declared[Int(id)]
    }

    /// Every type `identifier` conforms to except itself, sorted: for tools that explain why a rule
    /// matched, and for tests. Empty for an unknown identifier.
    public func ancestors(of identifier: String) -> [String] {
        let own = typeID(for: identifier)?.rawValue
        let ancestors: ArraySlice<Int32>
        if let own, let known = closure(of: own) {
            ancestors = known
        } else if UniformTypeRegistry.isDynamic(identifier) {
            ancestors = dynamicClosure[...]
        } else {
            return []
        }
        return ancestors.filter { $0 != own }.map { spellings[Int($0)] }.sorted()
    }

    /// The declared direct parents of `identifier`, in declaration order; empty when it declares
    /// none or is not declared.
    public func parents(of identifier: String) -> [String] {
        guard let id = table.id(for: identifier) else { return [] }
        return parentIDs[Int(id)].map { spellings[Int($0)] }
    }

    /// The identifier as the registry spells it (`PUBLIC.JPEG` → `public.jpeg`), or `identifier`
    /// itself when the registry does not know it; `UTType(_:)` normalises the same way.
    public func canonicalIdentifier(_ identifier: String) -> String {
        guard let id = table.id(for: identifier) else { return identifier }
        return spellings[Int(id)]
    }

    /// Every declared identifier, sorted.
    public var declaredIdentifiers: [String] {
        spellings.indices.filter { declared[$0] }.map { spellings[$0] }.sorted()
    }

    /// The identifiers that lie on a cycle of host declarations, sorted; a lint tool reports them
    /// because a cycle makes unrelated types conform to each other.
    public var typesInCycles: [String] {
        spellings.indices.filter { cyclic[$0] }.map { spellings[$0] }.sorted()
    }

    /// The extension Apple's `UTType.preferredFilenameExtension` would report, from the built-in
    /// tag table or a host declaration; `nil` for abstract and unknown types.
    public func preferredFilenameExtension(for identifier: String) -> String? {
        guard let id = table.id(for: identifier) else { return nil }
        return filenameExtensions[Int(id)]
    }

    /// The MIME type Apple's `UTType.preferredMIMEType` would report; `nil` when none is known.
    public func preferredMIMEType(for identifier: String) -> String? {
        guard let id = table.id(for: identifier) else { return nil }
        return mimeTypes[Int(id)]
    }

    /// Whether `identifier` is a dynamic type identifier (`dyn.` prefix, any ASCII case), which
    /// the system synthesises for data it has no declared type for.
    static func isDynamic(_ identifier: String) -> Bool { ASCIICase.hasPrefix(identifier, "dyn.") }

    /// The sorted ancestor set of `id`, itself included; `nil` for an ID not issued here.
    private func closure(of id: Int32) -> ArraySlice<Int32>? {
        let index = Int(id)
        guard index >= 0, index + 1 < closureStart.count else { return nil }
        return closure[Int(closureStart[index])..<Int(closureStart[index + 1])]
    }

    /// Binary search in a sorted slice: ancestor sets are small, and this keeps them compact.
    private static func contains(_ sorted: ArraySlice<Int32>, _ value: Int32) -> Bool {
        var low = sorted.startIndex
        var high = sorted.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if sorted[middle] < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < sorted.endIndex && sorted[low] == value
    }
}

// MARK: - Construction

/// Collects declarations, then computes every ancestor set in one pass.
private struct Builder {
    var spellings: [String] = []
    var declared: [Bool] = []
    var parentIDs: [[Int32]] = []
    var filenameExtensions: [String?] = []
    var mimeTypes: [String?] = []
    /// ID by folded identifier, while building.
    private var ids: [[UInt8]: Int32] = [:]

    init() {}

    /// A builder holding a finished registry's types, to add declarations to.
    init(
        spellings: [String], declared: [Bool], parentIDs: [[Int32]], filenameExtensions: [String?],
        mimeTypes: [String?]
    ) {
        self.spellings = spellings
        self.declared = declared
        self.parentIDs = parentIDs
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        for (id, spelling) in spellings.enumerated() { ids[ASCIICase.foldedBytes(spelling)] = Int32(id) }
    }

    /// The ID of `identifier`, creating an undeclared, parentless node the first time.
    mutating func intern(_ identifier: String) -> Int32 {
        let key = ASCIICase.foldedBytes(identifier)
        if let id = ids[key] { return id }
        let id = Int32(spellings.count)
        ids[key] = id
        spellings.append(identifier)
        declared.append(false)
        parentIDs.append([])
        filenameExtensions.append(nil)
        mimeTypes.append(nil)
        return id
    }

    /// Declares a type; the latest declaration of an identifier wins.
    mutating func declare(_ declaration: UniformTypeDeclaration) {
        let id = Int(intern(declaration.identifier))
        var parents: [Int32] = []
        for parent in declaration.parents {
            let parentID = intern(parent)
            if !parents.contains(parentID) { parents.append(parentID) }
        }
        spellings[id] = declaration.identifier
        declared[id] = true
        parentIDs[id] = parents
        declare(
            tagsOf: declaration.identifier, preferredFilenameExtension: declaration.preferredFilenameExtension,
            preferredMIMEType: declaration.preferredMIMEType)
    }

    /// Sets the tags of a type, keeping the old ones where the new ones are `nil`.
    mutating func declare(tagsOf identifier: String, preferredFilenameExtension: String?, preferredMIMEType: String?) {
        let id = Int(intern(identifier))
        if let preferredFilenameExtension { filenameExtensions[id] = preferredFilenameExtension }
        if let preferredMIMEType { mimeTypes[id] = preferredMIMEType }
    }

    /// Walks the graph once from every type. Each walk stamps the nodes it reaches with the
    /// starting node, so a node is expanded at most once per walk and cycles terminate.
    func build() -> UniformTypeRegistry {
        let count = spellings.count
        let dynamicParents = ["public.data", "public.item"].compactMap { ids[ASCIICase.foldedBytes($0)] }
        var edges = parentIDs
        for id in 0..<count where !declared[id] && UniformTypeRegistry.isDynamic(spellings[id]) {
            edges[id] = dynamicParents
        }
        var stamp = [Int32](repeating: -1, count: count)
        var cyclic = [Bool](repeating: false, count: count)
        var closureStart: [Int32] = [0]
        var closure: [Int32] = []
        var pending: [Int32] = []
        closureStart.reserveCapacity(count + 1)
        for start in 0..<count {
            let origin = Int32(start)
            let begin = closure.count
            stamp[start] = origin
            closure.append(origin)
            pending.append(contentsOf: edges[start])
            while let next = pending.popLast() {
                if next == origin { cyclic[start] = true }
                guard stamp[Int(next)] != origin else { continue }
                stamp[Int(next)] = origin
                closure.append(next)
                pending.append(contentsOf: edges[Int(next)])
            }
            closure[begin...].sort()
            closureStart.append(Int32(closure.count))
        }
        var dynamicClosure: [Int32] = []
        for parent in dynamicParents {
            dynamicClosure += closure[Int(closureStart[Int(parent)])..<Int(closureStart[Int(parent) + 1])]
        }
        dynamicClosure = Array(Set(dynamicClosure)).sorted()
        return UniformTypeRegistry(
            spellings: spellings, table: IdentifierTable(keys: spellings), declared: declared, parentIDs: parentIDs,
            filenameExtensions: filenameExtensions, mimeTypes: mimeTypes, closureStart: closureStart,
            closure: closure, dynamicClosure: dynamicClosure, cyclic: cyclic)
    }
}
