/// Gives each distinct string of a column a small code, so a column of few distinct values
/// (content types, owners, tags) is stored as codes and every comparison on it is decided once
/// per distinct value instead of once per row.
///
/// A string is looked up first by its 16 bytes of representation: equal representations are
/// the same string (the same inline bytes, or the same immutable storage), so the common case
/// is one multiply and one probe, with no hashing of the text. A representation not seen yet is
/// looked up by value, so equal strings stored apart still share their code. Every
/// representation in the table is kept alive, so its storage cannot be freed and reused by
/// another string while the table refers to it.
struct StringInterner {
    /// The distinct values, by code.
    private(set) var distinct: [String] = []
    private var byValue: [Bytes: Int32] = [:]
    /// Open addressing over representations: the two words and the code (`-1` for a free slot).
    private var slots: [Slot] = []
    /// The strings whose representations are in `slots`, kept alive.
    private var representations: [String] = []

    /// A string that equals only the same UTF-8 bytes: `String`'s own equality is canonical
    /// equivalence, and operators without `[n]` may tell canonically equivalent strings apart.
    private struct Bytes: Hashable {
        let text: String

        static func == (lhs: Bytes, rhs: Bytes) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

        func hash(into hasher: inout Hasher) {
            var text = self.text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private struct Slot {
        var low: UInt64
        var high: UInt64
        var code: Int32
    }

    /// Whether strings have the two-word layout the representation table reads.
    private static let representationsReadable = MemoryLayout<String>.size == 16

    /// At most this many representations are remembered; past it, strings not among them are
    /// looked up by value (a column of few values, each stored anew per row).
    private static let representationLimit = 1 << 16

    /// How many distinct values have codes.
    var count: Int { distinct.count }

    /// The code of `text`, new if it was not seen before.
    mutating func code(_ text: String) -> Int32 {
        guard Self.representationsReadable else { return codeByValue(text) }
        let (low, high) = withUnsafeBytes(of: text) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        if slots.isEmpty { slots = Array(repeating: Slot(low: 0, high: 0, code: -1), count: 64) }
        let mask = slots.count - 1
        var index = Self.hash(low, high) & mask
        while slots[index].code >= 0 {
            if slots[index].low == low && slots[index].high == high { return slots[index].code }
            index = (index + 1) & mask
        }
        let code = codeByValue(text)
        guard representations.count < Self.representationLimit else { return code }
        slots[index] = Slot(low: low, high: high, code: code)
        representations.append(text)
        if representations.count * 2 > slots.count { grow() }
        return code
    }

    private mutating func codeByValue(_ text: String) -> Int32 {
        if let known = byValue[Bytes(text: text)] { return known }
        let code = Int32(truncatingIfNeeded: distinct.count)
        byValue[Bytes(text: text)] = code
        distinct.append(text)
        return code
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(low: 0, high: 0, code: -1), count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot.code >= 0 {
            var index = Self.hash(slot.low, slot.high) & mask
            while slots[index].code >= 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }

    private static func hash(_ low: UInt64, _ high: UInt64) -> Int {
        let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0xFF51_AFD7_ED55_8CCD
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 29))
    }
}
