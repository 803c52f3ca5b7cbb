import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The ladder of rules, trivial to heavy, each with its hand-written equivalents.
///
/// Native code uses the library's string kernels (`StringMatcher`, `LikePattern`,
/// `RegularExpressionMatcher`) and type table, as PERFORMANCE.md's baselines share one kernel:
/// the string rows then compare dispatch and data layout, not two string algorithms. Activation
/// rules are written as they read: the `SUBQUERY` is counted, then compared.
///
/// Idiomatic code is what an ordinary Swift developer writes with Foundation instead
/// (`lowercased()`, `range(of:options:)`, `NSRegularExpression`, a `Set` of wanted values): the
/// baseline for someone who does not have the library. It must find the rule's matches on the
/// benchmark's items, so each one follows the operator's semantics (`[c]`, `[cd]`, LIKE's
/// wildcards, MATCHES over the whole string). There is no UTType on Linux, so conformance uses
/// the library's type table, as the native rows do.
enum WorkloadLadder {
    static let all: [Workload] = [
        Workload(
            name: "bool", rule: "isUploaded == NO", shape: .item,
            row: { !$0.pointee.isUploaded },
            columns: { columns, n, mask in
                let uploaded = columns.isUploaded
                fill(n, mask) { uploaded[$0] ^ 1 }
            },
            foundation: .item(#Predicate<ItemMirror> { !$0.isUploaded }),
            idiomatic: .item { !$0.pointee.isUploaded }),
        Workload(
            name: "numeric range", rule: "documentSize > 1e6 AND documentSize <= 5000000000", shape: .item,
            row: { item in item.pointee.documentSize.map { $0 > 1_000_000 && $0 <= 5_000_000_000 } ?? false },
            columns: { columns, n, mask in
                let (size, present) = (columns.documentSize, columns.hasDocumentSize)
                fill(n, mask) { present[$0] & bit(size[$0] > 1_000_000) & bit(size[$0] <= 5_000_000_000) }
            },
            foundation: .item(
                #Predicate<ItemMirror> { item in
                    (item.documentSize ?? -1) > 1_000_000 && (item.documentSize ?? -1) <= 5_000_000_000
                }),
            idiomatic: .item { item in
                guard let size = item.pointee.documentSize else { return false }
                return size > 1_000_000 && size <= 5_000_000_000
            }),
        Workload(
            name: "between", rule: "documentSize BETWEEN {1000000, 50000000}", shape: .item,
            row: { item in item.pointee.documentSize.map { $0 >= 1_000_000 && $0 <= 50_000_000 } ?? false },
            columns: { columns, n, mask in
                let (size, present) = (columns.documentSize, columns.hasDocumentSize)
                fill(n, mask) { present[$0] & bit(size[$0] >= 1_000_000) & bit(size[$0] <= 50_000_000) }
            },
            foundation: .item(
                #Predicate<ItemMirror> { item in
                    (item.documentSize ?? -1) >= 1_000_000 && (item.documentSize ?? -1) <= 50_000_000
                }),
            // BETWEEN includes both bounds: a closed range.
            idiomatic: .item { item in
                guard let size = item.pointee.documentSize else { return false }
                return (1_000_000...50_000_000).contains(size)
            }),
        Workload(
            name: "suffix [c]", rule: "filename ENDSWITH[c] '.pdf'", shape: .item,
            row: { pdfSuffix.isSuffix(of: $0.pointee.filename) },
            columns: { columns, n, mask in
                let names = columns.filename
                fill(n, mask) { bit(pdfSuffix.isSuffix(of: names[$0])) }
            },
            foundation: .unsupported("no [c]"),
            idiomatic: .item { $0.pointee.filename.lowercased().hasSuffix(".pdf") }),
        Workload(
            name: "contains [cd]", rule: "filename CONTAINS[cd] 'resume'", shape: .item,
            row: { resume.isContained(in: $0.pointee.filename) },
            columns: { columns, n, mask in
                let names = columns.filename
                fill(n, mask) { bit(resume.isContained(in: names[$0])) }
            },
            foundation: .unsupported("no [cd]"),
            idiomatic: .item { item in
                item.pointee.filename.range(of: "resume", options: [.caseInsensitive, .diacriticInsensitive]) != nil
            }),
        Workload(
            name: "userInfo key", rule: "userInfo.rank >= 3", shape: .item,
            row: { item in
                if case .int(let rank)? = item.pointee.userInfo?["rank"] { return rank >= 3 }
                return false
            },
            columns: { columns, n, mask in
                let (rank, isInteger) = (columns.rank, columns.rankIsInteger)
                fill(n, mask) { isInteger[$0] & bit(rank[$0] >= 3) }
            },
            foundation: .item(#Predicate<ItemMirror> { ($0.userInfoIntegers["rank"] ?? -1) >= 3 }),
            // A rank stored as a string is a type error in the rule, so it does not match here either.
            idiomatic: .item { item in
                if case .int(let rank)? = item.pointee.userInfo?["rank"] { return rank >= 3 }
                return false
            }),
        Workload(
            name: "or of ands",
            rule: "(isShared == YES AND isSharedByCurrentUser == NO) OR (isTrashed == NO AND favoriteRank != nil)",
            shape: .item,
            row: { item in
                (item.pointee.isShared && !item.pointee.isSharedByCurrentUser)
                    || (!item.pointee.isTrashed && item.pointee.favoriteRank != nil)
            },
            columns: { columns, n, mask in
                let (shared, byMe) = (columns.isShared, columns.isSharedByCurrentUser)
                let (trashed, ranked) = (columns.isTrashed, columns.hasFavoriteRank)
                fill(n, mask) { (shared[$0] & (byMe[$0] ^ 1)) | ((trashed[$0] ^ 1) & ranked[$0]) }
            },
            foundation: .item(
                #Predicate<ItemMirror> { item in
                    (item.isShared && !item.isSharedByCurrentUser) || (!item.isTrashed && item.favoriteRank != nil)
                }),
            idiomatic: .item { item in
                (item.pointee.isShared && !item.pointee.isSharedByCurrentUser)
                    || (!item.pointee.isTrashed && item.pointee.favoriteRank != nil)
            }),
        Workload(
            name: "like [c]", rule: "filename LIKE[c] 'img_*'", shape: .item,
            // `_` is no wildcard in LIKE (only `*` and `?` are), so by hand this is a prefix test.
            row: { imagePrefix.isPrefix(of: $0.pointee.filename) },
            columns: { columns, n, mask in
                let names = columns.filename
                fill(n, mask) { bit(imagePrefix.isPrefix(of: names[$0])) }
            },
            foundation: .unsupported("no LIKE"),
            // A pattern ending in `*` with no other wildcard is a prefix, which is how one writes it.
            idiomatic: .item { $0.pointee.filename.lowercased().hasPrefix("img_") }),
        Workload(
            name: "matches", rule: "filename MATCHES '[A-Za-z_]+ [0-9]+\\\\.txt'", shape: .item,
            // By hand, the regular expression is a scan of the UTF-8 bytes.
            row: { isLettersSpaceDigitsDotText($0.pointee.filename) },
            columns: { columns, n, mask in
                let names = columns.filename
                fill(n, mask) { bit(isLettersSpaceDigitsDotText(names[$0])) }
            },
            foundation: .unsupported("no regex"),
            idiomatic: textFileName.map { expression in .item { matchesWholeString(expression, $0.pointee.filename) } }
                ?? .unsupported("no regex")),
        Workload(
            name: "uti", rule: "contentType.identifier UTI-CONFORMS-TO 'public.image'", shape: .item,
            row: { $0.pointee.contentType.map { registry.conforms($0.identifier, to: "public.image") } ?? false },
            columns: { columns, n, mask in conformance(columns, to: "public.image", n, mask) },
            foundation: .unsupported("no UTI"),
            idiomatic: .item { item in
                guard let type = item.pointee.contentType else { return false }
                return registry.conforms(type.identifier, to: "public.image")
            }),
        Workload(
            name: "any tags", rule: "ANY userInfo.tags IN {'red', 'green'}", shape: .item,
            row: { item in
                guard case .array(let tags)? = item.pointee.userInfo?["tags"] else { return false }
                return tags.contains { $0 == .string("red") || $0 == .string("green") }
            },
            columns: { columns, n, mask in
                let wanted: [UInt8] = columns.tags.map { bit($0 == "red" || $0 == "green") }
                let (starts, codes) = (columns.tagStart, columns.tagCodes)
                fill(n, mask) { index in
                    var hit: UInt8 = 0
                    for element in Int(starts[index])..<Int(starts[index + 1]) where codes[element] >= 0 {
                        hit |= wanted[Int(codes[element])]
                    }
                    return hit
                }
            },
            foundation: .item(
                #Predicate<ItemMirror> { item in
                    (item.userInfoStringArrays["tags"] ?? []).contains { $0 == "red" || $0 == "green" }
                }),
            idiomatic: .item { item in
                guard case .array(let tags)? = item.pointee.userInfo?["tags"] else { return false }
                return tags.contains { tag in
                    if case .string(let name) = tag { return wantedTags.contains(name) }
                    return false
                }
            }),
        Workload(
            name: "activation: uploaded",
            rule: "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.isUploaded == YES).@count > 0",
            shape: .smallSelections(.any),
            row: { $0.pointee.isUploaded },
            columns: { columns, n, mask in
                let uploaded = columns.isUploaded
                fill(n, mask) { uploaded[$0] }
            },
            foundation: .selection(
                #Predicate<SelectionMirror> { selection in selection.items.filter { $0.isUploaded }.count > 0 }),
            idiomatic: .item { $0.pointee.isUploaded }),
        Workload(
            name: "activation: test bit",
            rule: "SUBQUERY(fileproviderItems, $i, $i.userInfo.\"com.example.testBit\" == YES).@count > 0",
            shape: .smallSelections(.any),
            row: { $0.pointee.userInfo?["com.example.testBit"] == .bool(true) },
            columns: testBitColumn,
            foundation: .selection(testBitSelection),
            idiomatic: .item { $0.pointee.userInfo?["com.example.testBit"] == .bool(true) }),
        Workload(
            name: "activation: all folders",
            rule: "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count "
                + "== fileproviderItems.@count",
            shape: .smallSelections(.all),
            row: { $0.pointee.contentType.map { registry.conforms($0.identifier, to: "public.folder") } ?? false },
            columns: { columns, n, mask in conformance(columns, to: "public.folder", n, mask) },
            foundation: .unsupported("no UTI"),
            idiomatic: .item { item in
                guard let type = item.pointee.contentType else { return false }
                return registry.conforms(type.identifier, to: "public.folder")
            }),
        Workload(
            name: "one selection: test bit",
            rule: "SUBQUERY(fileproviderItems, $i, $i.userInfo.\"com.example.testBit\" == YES).@count > 0",
            shape: .oneSelection(.any),
            row: { $0.pointee.userInfo?["com.example.testBit"] == .bool(true) },
            columns: testBitColumn,
            foundation: .selection(testBitSelection),
            idiomatic: .item { $0.pointee.userInfo?["com.example.testBit"] == .bool(true) }),
    ]

    /// Why `#Predicate` cannot express some rules on Linux, for the table's footnote.
    static let foundationLimits =
        "#Predicate on Linux has no case- or diacritic-insensitive string operators, no hasSuffix, "
        + "no LIKE, no regular expressions, and cannot call the UTI table"
}

private let registry = UniformTypeRegistry.system
private let pdfSuffix = StringMatcher(".pdf", options: .caseInsensitive)
private let resume = StringMatcher("resume", options: [.caseInsensitive, .diacriticInsensitive])
private let imagePrefix = StringMatcher("img_", options: .caseInsensitive)
private let wantedTags: Set<String> = ["red", "green"]

/// The `matches` rule's pattern, compiled once as a developer would; nil only if Foundation
/// rejected it (the idiomatic engine then says so instead of failing).
private let textFileName = try? NSRegularExpression(pattern: "[A-Za-z_]+ [0-9]+\\.txt")

/// Whether `expression` matches all of `string`, as MATCHES requires: a match anchored at the start
/// that reaches the end (for this pattern the match from the start is unique, so no longer one is
/// missed).
private func matchesWholeString(_ expression: NSRegularExpression, _ string: String) -> Bool {
    let whole = NSRange(string.startIndex..., in: string)
    return expression.firstMatch(in: string, options: .anchored, range: whole)?.range == whole
}

private let testBitColumn: @Sendable (ItemColumns, Int, UnsafeMutablePointer<UInt8>) -> Void = { columns, n, mask in
    let bits = columns.testBit
    fill(n, mask) { bit(bits[$0] == 1) }
}

private let testBitSelection = #Predicate<SelectionMirror> { selection in
    selection.items.filter { $0.userInfoBooleans["com.example.testBit"] == true }.count > 0
}

/// `[A-Za-z_]+ [0-9]+\.txt`, anchored at both ends, as MATCHES is.
private func isLettersSpaceDigitsDotText(_ name: String) -> Bool {
    var bytes = name.utf8[...]
    func skip(_ accepts: (UInt8) -> Bool) -> Int {
        var skipped = 0
        while let byte = bytes.first, accepts(byte) {
            bytes.removeFirst()
            skipped += 1
        }
        return skipped
    }
    let letters = skip { byte in
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
    }
    guard letters > 0, bytes.first == UInt8(ascii: " ") else { return false }
    bytes.removeFirst()
    let digits = skip { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    return digits > 0 && bytes.elementsEqual(".txt".utf8)
}

/// Conformance is decided once per distinct type (the dictionary of the content-type column),
/// inside the timed work, then looked up per item.
private func conformance(_ columns: ItemColumns, to type: String, _ n: Int, _ mask: UnsafeMutablePointer<UInt8>) {
    let conforming: [UInt8] = columns.contentTypes.map { bit(registry.conforms($0, to: type)) }
    let codes = columns.contentType
    fill(n, mask) { index in codes[index] < 0 ? 0 : conforming[Int(codes[index])] }
}

/// Writes `body(i)` into `mask[i]` for every item: inlined, so each kernel is one plain loop.
@inline(__always)
private func fill(_ n: Int, _ mask: UnsafeMutablePointer<UInt8>, _ body: (Int) -> UInt8) {
    for index in 0..<n { mask[index] = body(index) }
}

@inline(__always)
private func bit(_ condition: Bool) -> UInt8 { condition ? 1 : 0 }
