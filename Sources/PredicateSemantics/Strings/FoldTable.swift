import Foundation

/// The exact folding of every BMP scalar under one option set, computed once, so that text made
/// of such scalars folds by table look-up instead of by Foundation's normaliser (≈ 1 µs a string)
/// and Unicode property searches.
///
/// Folding text is the concatenation of folding its scalars when no scalar can interact with its
/// neighbour: one that is not a mark, has combining class 0 and decomposes to a sequence that
/// starts the same way. Then canonical decomposition cannot reorder across it and every folding
/// cluster (a base and its marks) lies inside one scalar's decomposition. Scalars outside that
/// set (marks, supplementary-plane scalars) send the whole string to the exact path.
///
/// The four tables are built once and live as long as the process, so they are held in memory
/// that is never freed rather than in arrays: a table is then a plain value, and folding a
/// string takes no reference counting (an array's buffer was retained and released several
/// times a call, more than the look-ups cost on a short name).
struct FoldTable: @unchecked Sendable {
    /// Per BMP scalar: the folded scalar itself when it is one; ``multiple`` with a count and a
    /// ``pool`` offset when it is several; ``unsupported`` when the table cannot answer.
    private let entries: UnsafeBufferPointer<UInt32>
    /// Results of more than one scalar.
    private let pool: UnsafeBufferPointer<UInt32>

    private static let unsupported: UInt32 = 0x8000_0000
    private static let multiple: UInt32 = 0x4000_0000

    /// Canonical decomposition only: what ordering without `c`/`d` compares.
    static let canonical = FoldTable(caseInsensitive: false, diacriticInsensitive: false)
    /// `[c]`.
    static let caseInsensitive = FoldTable(caseInsensitive: true, diacriticInsensitive: false)
    /// `[d]`.
    static let diacriticInsensitive = FoldTable(caseInsensitive: false, diacriticInsensitive: true)
    /// `[cd]`.
    static let caseAndDiacriticInsensitive = FoldTable(caseInsensitive: true, diacriticInsensitive: true)

    /// The table for an option set; each is built on first use (a few tens of milliseconds).
    static func table(caseInsensitive: Bool, diacriticInsensitive: Bool) -> FoldTable {
        switch (caseInsensitive, diacriticInsensitive) {
        case (false, false): return canonical
        case (true, false): return Self.caseInsensitive
        case (false, true): return Self.diacriticInsensitive
        case (true, true): return caseAndDiacriticInsensitive
        }
    }

    private init(caseInsensitive: Bool, diacriticInsensitive: Bool) {
        var entries = [UInt32](repeating: Self.unsupported, count: 0x1_0000)
        var pool: [UInt32] = []
        let decompositions = Self.bmpDecompositions
        for value in 0..<0x1_0000 {
            let start = Int(decompositions.starts[value])
            let end = Int(decompositions.starts[value + 1])
            guard end > start, Self.isIndependent(UInt32(value), first: decompositions.scalars[start]) else { continue }
            let decomposition = Array(decompositions.scalars[start..<end])
            let folded =
                caseInsensitive || diacriticInsensitive
                ? StringFolding.fold(
                    scalars: decomposition, caseInsensitive: caseInsensitive,
                    diacriticInsensitive: diacriticInsensitive)
                : decomposition
            if folded.count == 1, let only = folded.first, only < Self.multiple {
                entries[value] = only
            } else if (2...15).contains(folded.count) && pool.count < 0x100_0000 {
                entries[value] = Self.multiple | UInt32(folded.count) << 24 | UInt32(pool.count)
                pool.append(contentsOf: folded)
            }
        }
        asciiFoldsAlone = entries[0..<0x80].allSatisfy { $0 < Self.multiple }
        self.entries = Self.immortal(entries)
        self.pool = Self.immortal(pool)
    }

    /// Whether every ASCII scalar folds to one scalar (itself, or a letter's other case), so that
    /// a run of ASCII bytes is folded a byte at a time with no decoding.
    private let asciiFoldsAlone: Bool

    /// `values` copied to memory that is never freed (see the type's comment).
    static func immortal(_ values: [UInt32]) -> UnsafeBufferPointer<UInt32> {
        let memory = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: max(1, values.count))
        _ = memory.initialize(from: values)
        return UnsafeBufferPointer(start: memory.baseAddress, count: values.count)
    }

    /// `text` folded by look-up, or `nil` when some scalar needs the exact path.
    func fold(_ text: String) -> [UInt32]? {
        var output: [UInt32] = []
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            guard value < 0x1_0000 else { return nil }
            let entry = entries[Int(value)]
            if entry < Self.multiple {
                output.append(entry)
                continue
            }
            guard entry & Self.unsupported == 0 else { return nil }
            let start = Int(entry & 0xFF_FFFF)
            let units = Int(entry >> 24 & 0xF)
            guard start + units <= pool.count else { return nil }
            output.append(contentsOf: pool[start..<(start + units)])
        }
        return output
    }

    /// `text` folded by look-up into `buffer`: the number of scalar values written, or `nil` when
    /// some scalar needs the exact path or the folding does not fit.
    func fold(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt32>) -> Int? {
        StringKernels.withUTF8(text) { utf8 in fold(utf8: utf8, into: buffer) }
    }

    /// ``fold(_:into:)`` on the UTF-8 of a string, decoded as it is read.
    private func fold(utf8: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt32>) -> Int? {
        let capacity = buffer.count
        var count = 0
        var index = 0
        while index < utf8.count {
            // Eight ASCII bytes at a time: most of a name that is not ASCII is.
            if asciiFoldsAlone, index &+ 8 <= utf8.count, capacity &- count >= 8, let base = utf8.baseAddress,
                UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                for offset in 0..<8 { buffer[count &+ offset] = entries[Int(base[index &+ offset])] }
                count &+= 8
                index &+= 8
                continue
            }
            guard let (value, length) = Self.scalar(in: utf8, at: index), value < 0x1_0000 else { return nil }
            index &+= length
            let entry = entries[Int(value)]
            if entry < Self.multiple {
                guard count < capacity else { return nil }
                buffer[count] = entry
                count &+= 1
                continue
            }
            guard entry & Self.unsupported == 0 else { return nil }
            let start = Int(entry & 0xFF_FFFF)
            let units = Int(entry >> 24 & 0xF)
            guard units <= capacity &- count, start + units <= pool.count else { return nil }
            for offset in 0..<units { buffer[count &+ offset] = pool[start &+ offset] }
            count &+= units
        }
        return count
    }

    /// Whether the folding of the string whose UTF-8 is `utf8` contains `needle` (folded, not
    /// empty), folded into a buffer on the stack from the bytes at hand; `nil` when a scalar needs
    /// the exact path or the folding does not fit.
    func folding(of utf8: UnsafeBufferPointer<UInt8>, contains needle: [UInt32]) -> Bool? {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: utf8.count &* 2 &+ 8) { buffer -> Bool? in
            guard let count = fold(utf8: utf8, into: buffer) else { return nil }
            return StringKernels.contains(UnsafeBufferPointer(rebasing: buffer[..<count]), needle)
        }
    }

    /// Whether the folding of the string whose UTF-8 is `utf8` ends with `needle` (folded, not
    /// empty), found by folding its last scalars only; `nil` when one of them needs the exact
    /// path.
    ///
    /// The answer is the whole string's even when earlier scalars need the exact path: every
    /// scalar the table answers for is a starter whose decomposition starts with one, so nothing
    /// before it reorders into its folding, and the exact path folds it as the table does.
    func folding(of utf8: UnsafeBufferPointer<UInt8>, endsWith needle: [UInt32]) -> Bool? {
        var remaining = needle.count
        guard remaining > 0 else { return false }
        var end = utf8.count
        while remaining > 0 {
            guard end > 0 else { return false }
            var start = end &- 1
            while start > 0, utf8[start] & 0xC0 == 0x80 { start &-= 1 }
            guard let (value, length) = Self.scalar(in: utf8, at: start), start + length == end, value < 0x1_0000
            else { return nil }
            end = start
            let entry = entries[Int(value)]
            if entry < Self.multiple {
                remaining &-= 1
                if needle[remaining] != entry { return false }
                continue
            }
            guard entry & Self.unsupported == 0 else { return nil }
            let first = Int(entry & 0xFF_FFFF)
            var offset = Int(entry >> 24 & 0xF)
            guard first + offset <= pool.count else { return nil }
            while offset > 0, remaining > 0 {
                offset &-= 1
                remaining &-= 1
                if pool[first &+ offset] != needle[remaining] { return false }
            }
        }
        return true
    }

    /// Whether the folding of the string whose UTF-8 is `utf8` starts with `needle` (folded, not
    /// empty), or with `whole`, is `needle`; found by folding its first scalars only, up to the
    /// first that decides; `nil` when one of them, or the scalar after them, needs the exact
    /// path.
    ///
    /// The scalar after the ones compared must be one the table answers for: only a starter
    /// guarantees that nothing reorders into the folding of the scalars before it.
    func folding(of utf8: UnsafeBufferPointer<UInt8>, startsWith needle: [UInt32], whole: Bool) -> Bool? {
        if needle.isEmpty && !whole { return false }
        var matched = 0
        var answer: Bool? = nil
        var index = 0
        while index < utf8.count {
            guard let (value, length) = Self.scalar(in: utf8, at: index), value < 0x1_0000 else { return nil }
            let entry = entries[Int(value)]
            guard entry < Self.multiple || entry & Self.unsupported == 0 else { return nil }
            if let answer { return answer }
            index &+= length
            let first: Int
            let units: Int
            if entry < Self.multiple {
                (first, units) = (-1, 1)
            } else {
                (first, units) = (Int(entry & 0xFF_FFFF), Int(entry >> 24 & 0xF))
                guard first + units <= pool.count else { return nil }
            }
            for offset in 0..<units {
                let unit = first < 0 ? entry : pool[first &+ offset]
                if matched == needle.count || needle[matched] != unit {
                    // A unit past the needle: a longer string for `whole`; for a prefix, the
                    // needle was matched before it.
                    answer = matched == needle.count && !whole
                    break
                }
                matched &+= 1
            }
            if answer == nil, !whole, matched == needle.count { answer = true }
        }
        return answer ?? (matched == needle.count)
    }

    /// The scalar value whose UTF-8 starts at `index` and its length in bytes; `nil` when the
    /// bytes there do not start a scalar (a string's UTF-8 always does).
    @inline(__always)
    static func scalar(in utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int)? {
        let lead = UInt32(utf8[index])
        if lead < 0x80 { return (lead, 1) }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard lead >= 0xC0, index + length <= utf8.count else { return nil }
        var value = lead & (0x7F >> UInt32(length))
        for offset in 1..<length {
            let byte = UInt32(utf8[index &+ offset])
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | byte & 0x3F
        }
        return (value, length)
    }

    /// Whether a scalar whose decomposition starts with `first` folds independently of its
    /// neighbours.
    private static func isIndependent(_ value: UInt32, first: UInt32) -> Bool {
        let properties = StringFolding.scalar(value).properties
        let firstProperties = StringFolding.scalar(first).properties
        return !StringFolding.isMark(value) && properties.canonicalCombiningClass.rawValue == 0
            && !StringFolding.isMark(first) && firstProperties.canonicalCombiningClass.rawValue == 0
    }

    /// Shared by the four tables: computing it is most of the cost of building one (≈ 25 ms).
    private static let bmpDecompositions = decompositions()

    /// The canonical decomposition of every BMP scalar, from one call of Foundation's normaliser
    /// over all of them, each followed by U+0000 (a starter that decomposes to itself, so that
    /// nothing reorders across it). Surrogate code points get an empty decomposition.
    private static func decompositions() -> (starts: [UInt32], scalars: [UInt32]) {
        var source = String.UnicodeScalarView()
        for value in UInt32(1)..<0x1_0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            source.append(scalar)
            source.append("\u{0}")
        }
        var decomposed = String(source).decomposedStringWithCanonicalMapping.unicodeScalars.makeIterator()
        var starts = [UInt32](repeating: 0, count: 0x1_0001)
        var scalars: [UInt32] = [0]
        for value in 1..<0x1_0000 {
            starts[value] = UInt32(scalars.count)
            guard Unicode.Scalar(UInt32(value)) != nil else { continue }
            while let next = decomposed.next(), next != "\u{0}" { scalars.append(next.value) }
        }
        starts[0x1_0000] = UInt32(scalars.count)
        // Anything left over means the separators did not line up: answer nothing from the table.
        if decomposed.next() != nil { return ([UInt32](repeating: 0, count: 0x1_0001), []) }
        return (starts, scalars)
    }
}
