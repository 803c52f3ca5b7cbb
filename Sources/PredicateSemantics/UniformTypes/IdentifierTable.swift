/// ASCII case folding for type identifiers (SPEC §7.1: UTIs are case-insensitive).
///
/// Only ASCII letters fold; every other byte compares exactly, with no Unicode case folding or
/// normalisation. That is what "ASCII case-insensitive" means, and it keeps equality a plain
/// byte-wise equivalence that hashing can respect.
enum ASCIICase {
    /// `byte` with `A`–`Z` mapped to `a`–`z`.
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// The UTF-8 bytes of `text`, folded.
    static func foldedBytes(_ text: String) -> [UInt8] { text.utf8.map(folded) }

    /// Whether two identifiers are equal ignoring ASCII case.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var other = rhs.utf8.makeIterator()
        for byte in lhs.utf8 {
            guard let otherByte = other.next(), folded(byte) == folded(otherByte) else { return false }
        }
        return true
    }

    /// Whether `text` starts with `prefix` ignoring ASCII case; `prefix` must be lower case.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        var actual = text.utf8.makeIterator()
        for byte in prefix.utf8 {
            guard let next = actual.next(), folded(next) == byte else { return false }
        }
        return true
    }

    /// Eight bytes folded at once (SWAR): a byte gains `0x20` when it lies in `A`–`Z`. Lanes
    /// never carry into each other because each sum stays below `0x100`.
    @inline(__always)
    static func folded(word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones &* 0x80
        let low7 = word & ~highBits
        let atLeastA = low7 &+ ones &* (0x80 - 0x41)
        let atLeastAfterZ = low7 &+ ones &* (0x80 - 0x5B)
        let upper = atLeastA & ~atLeastAfterZ & ~word & highBits
        return word | (upper >> 2)
    }

    /// The eight bytes at `index` (a multiple of 8) as a word, zero-padded past the end. Stored
    /// keys and probes go through this one function, so byte order does not matter.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt64 {
        let remaining = bytes.count - index
        if remaining >= 8 { return bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) }
        if bytes.count >= 8 {
            // The last eight bytes, which end where the text does, shifted so that the ones past
            // `index` come first and zeros follow: the byte loop's word in one load.
            let last = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            let shift = UInt64(8 - remaining) &* 8
            return UInt32(littleEndian: 1) == 1 ? last >> shift : last << shift
        }
        var word: UInt64 = 0
        var shift: UInt64 = 0
        for offset in index..<bytes.count {
            word |= UInt64(bytes[offset]) &<< shift
            shift &+= 8
        }
        return word
    }

    /// A multiply-xor hash over the folded words. Not flooding-resistant, which is fine: the
    /// table's keys are the built-in list and the host's own declarations, and probes add nothing.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var index = 0
        while index < bytes.count {
            hash = (hash ^ folded(word: word(bytes, at: index))) &* 0x9e37_79b9_7f4a_7c15
            index &+= 8
        }
        return hash ^ (hash >> 31)
    }
}

/// The registry's identifier → ID map: an open-addressing hash table over ASCII-folded UTF-8.
///
/// A conformance test on two strings is two lookups here, so this is the evaluator's hot path.
/// A `Dictionary` with a case-folding key type spent most of its time in `Hasher` and in byte-wise
/// key comparisons; this table works on the probe's UTF-8 buffer in place, eight bytes at a time,
/// stores each key's hash to skip comparisons with other keys, and keeps the load factor at or
/// below ½, so probe chains are short and always reach an empty slot. No allocation per lookup.
struct IdentifierTable: Sendable {
    /// ID + 1 per slot; 0 marks an empty slot. The count is a power of two.
    private let slots: [Int32]
    /// The hash of each key, by ID.
    private let hashes: [UInt64]
    /// The UTF-8 length of each key, by ID.
    private let lengths: [Int32]
    /// `words[wordStart[id] ..< wordStart[id + 1]]` is key `id`, folded, as ``ASCIICase/word(_:at:)``
    /// packs it.
    private let wordStart: [Int32]
    private let words: [UInt64]

    /// Indexes `keys` (distinct ignoring ASCII case) by their position, which becomes their ID.
    init(keys: [String]) {
        var capacity = 8
        while capacity < keys.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: 0, count: capacity)
        var hashes: [UInt64] = []
        var lengths: [Int32] = []
        var wordStart: [Int32] = [0]
        var words: [UInt64] = []
        for (id, key) in keys.enumerated() {
            var key = key
            let hash = key.withUTF8 { utf8 in
                let bytes = UnsafeRawBufferPointer(utf8)
                for index in stride(from: 0, to: bytes.count, by: 8) {
                    words.append(ASCIICase.folded(word: ASCIICase.word(bytes, at: index)))
                }
                lengths.append(Int32(bytes.count))
                return ASCIICase.hash(bytes)
            }
            hashes.append(hash)
            wordStart.append(Int32(words.count))
            var slot = IdentifierTable.home(of: hash, capacity: capacity)
            while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(id + 1)
        }
        self.slots = slots
        self.hashes = hashes
        self.lengths = lengths
        self.wordStart = wordStart
        self.words = words
    }

    /// The ID of `identifier`, ignoring ASCII case; `nil` when absent.
    func id(for identifier: String) -> Int32? {
        // The bytes where they lie when the string has them in one piece (a native string, or a
        // small one copied to the stack): `withUTF8` needs a mutable copy, whose storage it
        // retains and releases on every look-up.
        if let found = identifier.utf8.withContiguousStorageIfAvailable({ id(forUTF8: UnsafeRawBufferPointer($0)) }) {
            return found
        }
        var text = identifier
        return text.withUTF8 { id(forUTF8: UnsafeRawBufferPointer($0)) }
    }

    private func id(forUTF8 bytes: UnsafeRawBufferPointer) -> Int32? {
        let hash = ASCIICase.hash(bytes)
        let mask = slots.count - 1
        var slot = IdentifierTable.home(of: hash, capacity: slots.count)
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            let id = Int(entry - 1)
            if hashes[id] == hash && matches(id, bytes) { return Int32(id) }
            slot = (slot + 1) & mask
        }
    }

    /// Whether key `id` equals the probe, folding the probe word by word (keys are stored folded).
    private func matches(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard Int(lengths[id]) == bytes.count else { return false }
        var wordIndex = Int(wordStart[id])
        var index = 0
        while index < bytes.count {
            guard words[wordIndex] == ASCIICase.folded(word: ASCIICase.word(bytes, at: index)) else { return false }
            wordIndex &+= 1
            index &+= 8
        }
        return true
    }

    /// The first slot to try.
    private static func home(of hash: UInt64, capacity: Int) -> Int {
        Int(truncatingIfNeeded: hash) & (capacity - 1)
    }
}
