import PredicateFileProvider
import PredicateSemantics
import PredicateValue

/// What `SELF` looks like in a case; the rule generator draws its key paths from the same shape.
enum ObjectShape: String, CaseIterable {
    /// A dictionary whose fields have the same names in every case (`i`, `s`, `items`, …), each
    /// sometimes missing, `nil`, `null` or of another kind.
    case plain
    /// A File Provider activation context: `{fileproviderItems: [items]}`.
    case fileProvider
    /// A File Provider user-interaction context (`action`, `sourceItem`, …).
    case interaction
    /// A File Provider item on its own.
    case item
    /// Something else: a scalar, an array, or no object.
    case other
}

/// Random objects and bindings over a fixed vocabulary, so that rules find what they look for
/// often enough for comparisons to mean something.
struct ObjectGenerator {
    var rng: SplitMix64
    /// Calm objects rarely hold `null` or a value of the wrong kind.
    var calm = false

    static let strings = [
        "abc", "ABC", "Abc", "", "a", "naïve", "NAIVE", "naive", "photo.JPG", "report.txt", "x*y", "a?c", "straße",
        "STRASSE", "ｆｕｌｌ", "full", "é", "e\u{301}", "public.jpeg", "10", "0x1F", "010", "1.5", "s",
    ]
    static let filenames = [
        "a.txt", "photo.JPG", "Report.PDF", "archive.zip", "naïve.md", "folder", "script.py", "", "b.TXT", "x*y.txt",
    ]
    static let contentTypes = [
        "public.jpeg", "public.png", "public.folder", "public.plain-text", "com.adobe.pdf", "public.zip-archive",
        "public.python-script", "com.example.custom", "dyn.ah62d4rv4ge8", "public.utf8-plain-text",
    ]
    static let dates: [Double] = [0, 86_400, 600_000_000, 700_000_000.5, -3_600, 1e9]

    // MARK: - Scalars

    mutating func int() -> Int64 {
        rng.pick([0, 1, 2, 3, 5, 7, 10, 42, 100, -1, -7, 1_000_000, 5_000_000_000])
    }

    mutating func double() -> Double {
        rng.pick([0.5, 1.5, 2.0, -2.25, 3.0, 1e10, 0.1, -0.0, 7.75])
    }

    mutating func string() -> String { rng.pick(ObjectGenerator.strings) }

    mutating func date() -> Value { .date(secondsSinceReferenceDate: rng.pick(ObjectGenerator.dates)) }

    /// A scalar of any kind (the "wrong kind" for a field, sometimes).
    mutating func scalar() -> Value {
        switch rng.below(8) {
        case 0: return .int(int())
        case 1: return .double(double())
        case 2: return .string(string())
        case 3: return .bool(rng.chance(50))
        case 4: return date()
        case 5: return .uint(UInt64(rng.pick([0, 3, 9]) as Int))
        case 6: return .array([.int(int()), .string(string())])
        default: return .dictionary(["x": .int(int())])
        }
    }

    // MARK: - Plain dictionaries

    /// Sets `key` to the canonical value usually, and sometimes leaves it out, stores `nil` or
    /// `null`, or a value of another kind.
    private mutating func field(_ entries: inout [String: Value], _ key: String, _ make: (inout Self) -> Value) {
        let odd = rng.below(100) < (calm ? 12 : 30)
        guard odd else {
            entries[key] = make(&self)
            return
        }
        switch rng.below(10) {
        case 0..<4: break
        case 4, 5: entries[key] = .nil
        case 6, 7: entries[key] = calm ? make(&self) : .null
        default: entries[key] = calm ? make(&self) : scalar()
        }
    }

    mutating func plain() -> Value {
        var entries: [String: Value] = [:]
        field(&entries, "i") { .int($0.int()) }
        field(&entries, "d") { .double($0.double()) }
        field(&entries, "u") { .uint(UInt64($0.rng.pick([0, 4, 42]) as Int)) }
        field(&entries, "s") { .string($0.string()) }
        field(&entries, "name") { .string($0.rng.pick(ObjectGenerator.filenames)) }
        field(&entries, "b") { .bool($0.rng.chance(50)) }
        field(&entries, "t") { $0.date() }
        field(&entries, "a") { $0.mixedArray() }
        field(&entries, "ai") { $0.array { .int($0.int()) } }
        field(&entries, "as") { $0.array { .string($0.string()) } }
        field(&entries, "m") { $0.dottedDictionary() }
        field(&entries, "items") { $0.records() }
        return .dictionary(entries)
    }

    /// 0–4 elements, sometimes with a `null` among them.
    mutating func array(_ element: (inout Self) -> Value) -> Value {
        var elements: [Value] = []
        for _ in 0..<rng.int(in: 0...4) { elements.append(rng.chance(calm ? 1 : 6) ? .null : element(&self)) }
        return .array(elements)
    }

    mutating func mixedArray() -> Value {
        array { generator in
            generator.rng.chance(15) ? .array([.int(generator.int())]) : generator.scalar()
        }
    }

    /// A dictionary with dotted keys, and sometimes the same path spelled as nested dictionaries.
    mutating func dottedDictionary() -> Value {
        var entries: [String: Value] = [:]
        if rng.chance(70) { entries["x"] = .int(int()) }
        if rng.chance(60) { entries["y.z"] = .string(string()) }
        if rng.chance(40) { entries["y"] = .dictionary(["z": .string(string())]) }
        if rng.chance(60) { entries["com.example.bit"] = rng.chance(80) ? .bool(rng.chance(50)) : .null }
        if rng.chance(30) { entries["com"] = .dictionary(["example": .dictionary(["bit": .bool(rng.chance(50))])]) }
        if rng.chance(20) { entries["k"] = .nil }
        return .dictionary(entries)
    }

    /// Elements of `items`: dictionaries with the same field names, or `null`.
    mutating func records() -> Value {
        array { generator in
            var entries: [String: Value] = [:]
            generator.field(&entries, "i") { .int($0.int()) }
            generator.field(&entries, "s") { .string($0.string()) }
            generator.field(&entries, "b") { .bool($0.rng.chance(50)) }
            generator.field(&entries, "d") { .double($0.double()) }
            generator.field(&entries, "t") { $0.date() }
            generator.field(&entries, "tags") { $0.array { .string($0.string()) } }
            return .dictionary(entries)
        }
    }

    // MARK: - File Provider

    /// The properties of a random item, as `FileProviderItem(properties:)` reads them.
    mutating func itemProperties(_ index: Int) -> [String: Value] {
        var properties: [String: Value] = [:]
        properties["filename"] = .string(rng.pick(ObjectGenerator.filenames))
        properties["itemIdentifier"] = .string("id\(index)")
        if rng.chance(30) { properties["parentItemIdentifier"] = .string("id\(index + 1)") }
        if rng.chance(80) { properties["contentType"] = .string(rng.pick(ObjectGenerator.contentTypes)) }
        if rng.chance(30) { properties["typeIdentifier"] = .string(rng.pick(ObjectGenerator.contentTypes)) }
        if rng.chance(60) { properties["capabilities"] = .int(Int64(rng.below(256))) }
        if rng.chance(40) { properties["fileSystemFlags"] = .int(Int64(rng.below(32))) }
        if rng.chance(70) { properties["documentSize"] = .int(rng.pick([0, 1, 100, 1024, 1_000_000, 5_000_000_000])) }
        if rng.chance(30) { properties["childItemCount"] = .int(Int64(rng.below(12))) }
        if rng.chance(60) { properties["creationDate"] = date() }
        if rng.chance(50) { properties["contentModificationDate"] = date() }
        if rng.chance(30) { properties["lastUsedDate"] = date() }
        if rng.chance(20) { properties["tagData"] = .data([UInt8(rng.below(256)), 7]) }
        if rng.chance(25) { properties["favoriteRank"] = .uint(UInt64(rng.pick([0, 1, 50]) as Int)) }
        if rng.chance(20) { properties["extendedAttributes"] = .dictionary(["com.example.xattr": .data([1, 2])]) }
        for flag in [
            "isTrashed", "isUploaded", "isUploading", "isDownloaded", "isDownloading", "isMostRecentVersionDownloaded",
            "isShared", "isSharedByCurrentUser",
        ] where rng.chance(50) {
            properties[flag] = .bool(rng.chance(50))
        }
        if rng.chance(15) {
            properties["uploadingError"] = .dictionary([
                "domain": .string("NSCocoaErrorDomain"), "code": .int(rng.pick([-1009, 4, 0])),
            ])
        }
        if rng.chance(20) { properties["ownerNameComponents"] = .dictionary(["givenName": .string(string())]) }
        if rng.chance(10) { properties["symlinkTargetPath"] = .string("/tmp/\(string())") }
        if rng.chance(30) { properties["contentPolicy"] = .int(Int64(rng.below(4))) }
        if rng.chance(65) { properties["userInfo"] = userInfo() }
        if rng.chance(25) {
            properties["inheritedUserInfo"] = .dictionary([
                "b.inherited": .bool(rng.chance(50)), "a.inherited": .bool(rng.chance(50)),
            ])
        }
        return properties
    }

    /// A `userInfo` dictionary: dotted keys, nested dictionaries along the same path, `nil` and
    /// `null` values.
    mutating func userInfo() -> Value {
        var entries: [String: Value] = [:]
        if rng.chance(60) { entries["com.example.testBit"] = rng.chance(85) ? .bool(rng.chance(50)) : .null }
        if rng.chance(50) { entries["rank"] = rng.chance(80) ? .int(Int64(rng.below(10))) : .string("high") }
        if rng.chance(40) { entries["locked"] = rng.chance(90) ? .bool(rng.chance(50)) : .nil }
        if rng.chance(40) { entries["label"] = .string(string()) }
        if rng.chance(30) { entries["tags"] = array { .string($0.string()) } }
        if rng.chance(30) { entries["a.inherited"] = .bool(rng.chance(50)) }
        if rng.chance(20) {
            entries["com"] = .dictionary(["example": .dictionary(["testBit": .bool(rng.chance(50))])])
        }
        return .dictionary(entries)
    }

    mutating func item(_ index: Int) -> FileProviderItem {
        let properties = itemProperties(index)
        return (try? FileProviderItem(properties: properties))
            ?? FileProviderItem(itemIdentifier: "id\(index)", parentItemIdentifier: "root", filename: "a.txt")
    }

    mutating func activation() -> Value {
        var items: [FileProviderItem] = []
        for index in 0..<rng.weighted([2, 5, 4, 2, 1]) { items.append(item(index)) }
        return FileProviderContext.activation(selectedItems: items)
    }

    mutating func interaction() -> Value {
        let action = rng.pick(UserInteractionAction.allCases)
        var domain: [String: Value] = [:]
        if rng.chance(60) { domain["plan"] = .string(rng.pick(["pro", "free", "PRO"])) }
        if rng.chance(50) { domain["com.example.flag"] = .bool(rng.chance(50)) }
        if rng.chance(40) { domain["tags"] = array { .string($0.string()) } }
        return FileProviderContext.userInteraction(
            action: action, sourceItem: rng.chance(75) ? item(0) : nil,
            destinationItem: rng.chance(60) ? item(1) : nil, sourceItemsCount: rng.below(4),
            domainUserInfo: domain)
    }

    // MARK: - Cases

    mutating func object(_ shape: ObjectShape) -> Value {
        switch shape {
        case .plain: return plain()
        case .fileProvider: return activation()
        case .interaction: return interaction()
        case .item: return .object(item(0))
        case .other:
            switch rng.below(6) {
            case 0: return .string(string())
            case 1: return .int(int())
            case 2: return records()
            case 3: return .nil
            case 4: return rng.chance(50) ? .null : .set([.int(1), .string("a"), .int(int())])
            default: return mixedArray()
            }
        }
    }

    /// Bindings for `$x`, `$s`, `$k` (a key, for `SELF.$k`), `$arr`, `$n` and `$it` (an item, mostly);
    /// each sometimes absent.
    mutating func variables() -> [String: Value] {
        var bindings: [String: Value] = [:]
        if rng.chance(90) { bindings["x"] = rng.chance(80) ? .int(int()) : .string(string()) }
        if rng.chance(90) { bindings["s"] = .string(string()) }
        if rng.chance(85) {
            bindings["k"] = rng.chance(85) ? .string(rng.pick(["s", "i", "zz", "m.x", "filename", "name"])) : .int(3)
        }
        if rng.chance(85) {
            if rng.chance(20) {
                bindings["arr"] = .array((0..<rng.below(3)).map { .object(item($0 + 5)) })
            } else {
                bindings["arr"] = array { $0.rng.chance(50) ? .int($0.int()) : .string($0.string()) }
            }
        }
        if rng.chance(40) { bindings["n"] = .null }
        switch rng.below(12) {
        case 0..<7: bindings["it"] = .object(item(9))
        case 7, 8: bindings["it"] = .dictionary(["filename": .string(rng.pick(ObjectGenerator.filenames))])
        case 9: bindings["it"] = .string(string())
        default: break
        }
        return bindings
    }
}
