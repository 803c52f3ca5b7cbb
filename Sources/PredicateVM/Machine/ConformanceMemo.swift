/// `UTI-CONFORMS-TO` answers of one machine, remembered for identifiers short enough to be
/// stored in the string itself: up to 15 ASCII bytes (`public.jpeg`, `com.adobe.pdf`,
/// `public.folder`), whose two words are the identifier. The answer of a site for such an
/// identifier is found in the type table once, not for every item that holds it (a look-up
/// hashes and compares the identifier, about 300 instructions).
///
/// Longer identifiers are not remembered: their words point at storage that a later item may
/// reuse for other text. The machine's environment, and so its type table, never changes.
struct ConformanceMemo {
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        /// The comparison site, -1 for an empty entry.
        var site = -1
        var answer = false
    }

    /// Direct-mapped: a new answer replaces the one in its place.
    private var entries = [Entry](repeating: Entry(), count: 16)

    /// The answer of `site` for `identifier`, remembered or found by `find` (and then
    /// remembered when the identifier is short).
    @inline(__always)
    mutating func answer(site: Int, identifier: String, _ find: () -> Bool) -> Bool {
        guard MemoryLayout<String>.size == 16 else { return find() }
        let (low, high) = unsafeBitCast(identifier, to: (UInt64, UInt64).self)
        // The discriminator of a small ASCII string (see `DictionaryKeyLookup.SmallASCII`).
        guard high >> 60 == 0xE else { return find() }
        let mixed = (low &* 0x9E37_79B9_7F4A_7C15) ^ high ^ UInt64(truncatingIfNeeded: site) &* 0xC2B2_AE3D_27D4_EB4F
        let index = Int(truncatingIfNeeded: mixed >> 60)
        let entry = entries[index]
        if entry.site == site && entry.low == low && entry.high == high { return entry.answer }
        let answer = find()
        entries[index] = Entry(low: low, high: high, site: site, answer: answer)
        return answer
    }
}
