/// The preparation `LIKE` gives (folding under `[c]`/`[d]`, then NFKC) to each scalar that NFKC
/// leaves alone wherever it stands and that folds to starters: ASCII, Latin-1's letters and
/// signs, Latin Extended-A, kana and the CJK unified ideographs, under one set of folding
/// options, computed once by the exact path.
///
/// Such scalars do not interact once folded, so text made of them is prepared by concatenating
/// their preparations, into a buffer on the stack. A scalar outside the table can only change
/// the preparation of the scalar just before it (a mark composes with the starter it follows),
/// so everything prepared before that one is final: a pattern's first run that already differs
/// there decides a match without the exact path (`img_*` on `Übersicht 3` or `写真 7.jpg`).
///
/// Like ``FoldTable``, the tables live in memory that is never freed, so that preparing a string
/// takes no reference counting.
struct PreparedScalars: @unchecked Sendable {
    /// By scalar value minus ``first``: the prepared scalar itself, ``multiple`` with a count and
    /// a ``pool`` offset, or ``unsupported``.
    private let entries: UnsafeBufferPointer<UInt32>
    /// Preparations of more than one scalar.
    private let pool: UnsafeBufferPointer<UInt32>
    /// Whether ASCII capitals prepare to small letters (`[c]`); the rest of ASCII is unchanged.
    private let lowercasesASCII: Bool
    /// The most scalars one table scalar prepares to.
    private let longest: Int

    private static let first: UInt32 = 0xC0
    private static let last: UInt32 = 0x30FA
    private static let unsupported: UInt32 = 0x8000_0000
    private static let multiple: UInt32 = 0x4000_0000

    private init(caseInsensitive: Bool, diacriticInsensitive: Bool) {
        var entries: [UInt32] = []
        var pool: [UInt32] = []
        var longest = 1
        for value in Self.first...Self.last {
            guard (0xC0...0x17F).contains(value) || (0x3041...0x30FA).contains(value),
                let scalar = Unicode.Scalar(value), StringFolding.isCompatibilityStable(scalar)
            else {
                entries.append(Self.unsupported)
                continue
            }
            let folded = StringFolding.fold(
                String(scalar), caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
            let prepared = StringFolding.compatibilityComposed(StringFolding.string(folded)).unicodeScalars
            // Only preparations that begin with a starter: a mark at their start could compose
            // with the scalar before, which the settled head of ``prepare(_:into:)`` relies on not
            // happening.
            guard let head = prepared.first, head.properties.canonicalCombiningClass.rawValue == 0,
                !StringFolding.isMark(head.value), prepared.count < 16
            else {
                entries.append(Self.unsupported)
                continue
            }
            if prepared.count == 1 {
                entries.append(head.value)
            } else {
                entries.append(Self.multiple | UInt32(prepared.count) << 24 | UInt32(pool.count))
                pool.append(contentsOf: prepared.map(\.value))
                longest = max(longest, prepared.count)
            }
        }
        self.entries = FoldTable.immortal(entries)
        self.pool = FoldTable.immortal(pool)
        self.longest = longest
        lowercasesASCII = caseInsensitive
    }

    private static let caseFolded = PreparedScalars(caseInsensitive: true, diacriticInsensitive: false)
    private static let diacriticFolded = PreparedScalars(caseInsensitive: false, diacriticInsensitive: true)
    private static let bothFolded = PreparedScalars(caseInsensitive: true, diacriticInsensitive: true)

    /// The table for the options (at least one of them set).
    static func table(caseInsensitive: Bool, diacriticInsensitive: Bool) -> PreparedScalars {
        switch (caseInsensitive, diacriticInsensitive) {
        case (true, false): return caseFolded
        case (false, true): return diacriticFolded
        default: return bothFolded
        }
    }

    /// A buffer size that holds the preparation of any text of `bytes` UTF-8 bytes this table
    /// prepares whole: each scalar of the table takes at least two bytes, ASCII one.
    func capacity(for bytes: Int) -> Int {
        bytes &* max(1, (longest &+ 1) / 2) &+ 1
    }

    /// How far ``prepare(_:into:)`` got.
    enum Preparation {
        /// Every scalar was in the table: the buffer's first `count` values are the prepared text.
        case whole(count: Int)
        /// A scalar was not (or the buffer was full): the buffer's first `settled` values are the
        /// prepared text's first scalars, whatever follows them.
        case head(settled: Int)
    }

    /// The text whose UTF-8 is `utf8` prepared into `buffer` scalar by scalar, as far as the
    /// table answers, or only until its first `settling` scalars are final (a head is all a
    /// pattern's first run needs to differ).
    func prepare(
        _ utf8: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt32>, settling: Int = .max
    ) -> Preparation {
        guard let base = utf8.baseAddress, let output = buffer.baseAddress else { return .whole(count: 0) }
        let capacity = buffer.count
        var count = 0
        // Where the preparation of the last scalar read begins: a scalar the table cannot answer
        // for may still change it, but nothing before it.
        var lastStart = 0
        var index = 0
        while index < utf8.count {
            if lastStart >= settling { return .head(settled: lastStart) }
            // Eight ASCII bytes at a time: most of a name that is not ASCII is.
            if index &+ 8 <= utf8.count, capacity &- count >= 8 {
                var word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if word & 0x8080_8080_8080_8080 == 0 {
                    if lowercasesASCII { word = StringKernels.asciiLowercased(word) }
                    for offset in 0..<8 {
                        output[count &+ offset] = UInt32(truncatingIfNeeded: word >> (offset &* 8) & 0xFF)
                    }
                    lastStart = count &+ 7
                    count &+= 8
                    index &+= 8
                    continue
                }
            }
            let byte = base[index]
            if byte < 0x80 {
                guard count < capacity else { return .head(settled: lastStart) }
                lastStart = count
                output[count] = UInt32(lowercasesASCII ? StringFolding.asciiLowercase(byte) : byte)
                count &+= 1
                index &+= 1
                continue
            }
            guard let (value, length) = FoldTable.scalar(in: utf8, at: index) else { return .head(settled: lastStart) }
            let entry: UInt32
            if value &- 0x4E00 < 0x5200 {
                // CJK unified ideographs: neither folding changes them.
                entry = value
            } else if value &- Self.first <= Self.last &- Self.first {
                entry = entries[Int(value &- Self.first)]
            } else {
                entry = Self.unsupported
            }
            if entry < Self.multiple {
                guard count < capacity else { return .head(settled: lastStart) }
                lastStart = count
                output[count] = entry
                count &+= 1
            } else {
                let start = Int(entry & 0xFF_FFFF)
                let units = Int(entry >> 24 & 0xF)
                guard entry & Self.unsupported == 0, units <= capacity &- count, start &+ units <= pool.count else {
                    return .head(settled: lastStart)
                }
                lastStart = count
                for offset in 0..<units { output[count &+ offset] = pool[start &+ offset] }
                count &+= units
            }
            index &+= length
        }
        return .whole(count: count)
    }
}
