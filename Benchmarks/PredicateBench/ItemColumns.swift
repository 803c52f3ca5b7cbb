import PredicateFileProvider
import PredicateValue

/// The items as a struct of arrays, the layout a hand-written columnar scan reads: one array per
/// field, Booleans and presence as bytes (so kernels combine them with `&` and `|` without
/// branches), strings kept as strings, and the low-cardinality fields (content type, tags)
/// dictionary-encoded as small integer codes into a table of distinct values.
///
/// Hot `userInfo` keys are extracted into typed columns with a type byte, as a columnar store
/// would; building the columns is not part of any engine's time (it is reported separately).
final class ItemColumns: Sendable {
    let count: Int
    let isUploaded: [UInt8]
    let isShared: [UInt8]
    let isSharedByCurrentUser: [UInt8]
    let isTrashed: [UInt8]
    let hasFavoriteRank: [UInt8]
    let documentSize: [Int64]
    let hasDocumentSize: [UInt8]
    let filename: [String]
    /// Index into ``contentTypes``, or -1 for an item without a content type.
    let contentType: [Int32]
    let contentTypes: [String]
    /// `userInfo.rank` where it is an integer, and 1 in ``rankIsInteger`` for those items.
    let rank: [Int64]
    let rankIsInteger: [UInt8]
    /// `userInfo."com.example.testBit"`: 1 true, 0 false, -1 absent or not a Boolean.
    let testBit: [Int8]
    /// The string elements of `userInfo.tags` of item `i` are `tagCodes[tagStart[i] ..< tagStart[i + 1]]`,
    /// indexes into ``tags``; -1 stands for an element that is not a string. Items without a tags
    /// array have an empty range.
    let tagStart: [Int32]
    let tagCodes: [Int32]
    let tags: [String]

    init(_ items: [FileProviderItem]) {
        count = items.count
        func bytes(_ flag: (FileProviderItem) -> Bool) -> [UInt8] { items.map { flag($0) ? 1 : 0 } }
        isUploaded = bytes(\.isUploaded)
        isShared = bytes(\.isShared)
        isSharedByCurrentUser = bytes(\.isSharedByCurrentUser)
        isTrashed = bytes(\.isTrashed)
        hasFavoriteRank = bytes { $0.favoriteRank != nil }
        documentSize = items.map { $0.documentSize ?? 0 }
        hasDocumentSize = bytes { $0.documentSize != nil }
        filename = items.map(\.filename)

        var typeCodes: [String: Int32] = [:]
        var typeTable: [String] = []
        func code(_ text: String, _ codes: inout [String: Int32], _ table: inout [String]) -> Int32 {
            if let known = codes[text] { return known }
            let new = Int32(table.count)
            codes[text] = new
            table.append(text)
            return new
        }
        contentType = items.map { item in
            item.contentType.map { code($0.identifier, &typeCodes, &typeTable) } ?? -1
        }
        contentTypes = typeTable

        var ranks = [Int64](repeating: 0, count: items.count)
        var rankFlags = [UInt8](repeating: 0, count: items.count)
        var bits = [Int8](repeating: -1, count: items.count)
        var starts: [Int32] = [0]
        var codes: [Int32] = []
        var tagCodes: [String: Int32] = [:]
        var tagTable: [String] = []
        starts.reserveCapacity(items.count + 1)
        for (index, item) in items.enumerated() {
            if case .int(let rank)? = item.userInfo?["rank"] {
                ranks[index] = rank
                rankFlags[index] = 1
            }
            if case .bool(let bit)? = item.userInfo?["com.example.testBit"] { bits[index] = bit ? 1 : 0 }
            if case .array(let elements)? = item.userInfo?["tags"] {
                for element in elements {
                    if case .string(let tag) = element {
                        codes.append(code(tag, &tagCodes, &tagTable))
                    } else {
                        codes.append(-1)
                    }
                }
            }
            starts.append(Int32(codes.count))
        }
        rank = ranks
        rankIsInteger = rankFlags
        testBit = bits
        tagStart = starts
        self.tagCodes = codes
        tags = tagTable
    }
}
