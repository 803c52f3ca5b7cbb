import PredicateFileProvider
import PredicateSemantics
import PredicateValue

/// Deterministic File Provider items with a realistic mix: nils, non-ASCII file names, userInfo
/// with mixed types, content types from the type table.
///
/// The items come in one fixed sequence, so the first `n` items of a larger run are the items of a
/// run of `n`: the prefix the slow engines measure is the data the fast ones start with.
struct ItemGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64.
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    // A third of the stems are not ASCII (accents, umlauts, CJK), as in real sync roots.
    private static let stems = [
        "report", "Résumé", "IMG_0042", "notes", "Budget 2026", "Übersicht", "写真", "scan", "draft", "invoice",
        "Präsentation", "photo", "archive", "README", "résumé final",
    ]
    private static let types: [(String, String)] = [
        ("pdf", "com.adobe.pdf"), ("jpg", "public.jpeg"), ("png", "public.png"), ("txt", "public.plain-text"),
        ("docx", "org.openxmlformats.wordprocessingml.document"), ("zip", "public.zip-archive"),
        ("mov", "com.apple.quicktime-movie"), ("swift", "public.swift-source"), ("", "public.folder"),
        ("heic", "public.heic"),
    ]
    private static let tags = ["red", "green", "blue", "work", "home"]

    mutating func item(_ index: Int) -> FileProviderItem {
        let (ext, type) = Self.types[below(Self.types.count)]
        let stem = Self.stems[below(Self.stems.count)]
        let name = ext.isEmpty ? "\(stem) \(index)" : "\(stem) \(index).\(chance(20) ? ext.uppercased() : ext)"
        var item = FileProviderItem(itemIdentifier: "id-\(index)", parentItemIdentifier: "root", filename: name)
        item.contentType = chance(3) ? nil : UniformType(type)
        item.isUploaded = chance(70)
        item.isDownloaded = chance(60)
        item.isShared = chance(25)
        item.isSharedByCurrentUser = item.isShared && chance(50)
        item.isTrashed = chance(5)
        item.capabilities = FileProviderCapabilities(rawValue: Int64(below(256)))
        item.documentSize = ext.isEmpty || chance(10) ? nil : Int64(below(20_000_000))
        item.childItemCount = ext.isEmpty ? Int64(below(50)) : nil
        item.contentModificationDate = Double(below(800_000_000))
        item.favoriteRank = chance(10) ? UInt64(below(100)) : nil
        if chance(80) {
            var info: [String: Value] = [:]
            // Providers are not consistent about types: a few ranks are strings, which a rule
            // comparing `rank >= 3` must survive (it is an error, so the item does not match).
            if chance(70) { info["rank"] = chance(3) ? .string("\(below(10))") : .int(Int64(below(10))) }
            if chance(30) { info["com.example.testBit"] = .bool(chance(50)) }
            if chance(50) { info["owner"] = .string(chance(50) ? "alice" : "bob") }
            if chance(20) { info["score"] = .double(Double(below(1000)) / 10) }
            if chance(40) {
                info["tags"] = .array((0..<below(3)).map { _ in .string(Self.tags[below(Self.tags.count)]) })
            }
            item.userInfo = info
        }
        return item
    }

    mutating func items(_ count: Int) -> [FileProviderItem] { (0..<count).map { item($0) } }
}
