import PredicateValue

/// One key looked up in a dictionary as the last component of a key path reads it (SPEC §4.2.2):
/// what ``KeyValueAccess/value(along:from:variable:)`` asks, and what the engines reading
/// `userInfo.rank` or `userInfo."com.example.flag"` of many items prepare once.
///
/// A dotted key is first looked up whole; when the dictionary lacks it (or holds nil there), the
/// key is a path, whose first part the dictionary must hold for the general path to have anything
/// to walk: when it does not, the answer is nil at once.
public struct DictionaryKeyLookup: Sendable {
    /// The key, whole.
    public let key: String
    /// The part of a dotted key before its first dot; `nil` for a dotless key.
    let head: String?
    /// The UTF-8 lengths of ``key`` and ``head`` when the key is ASCII, else 0: no key with
    /// fewer bytes can equal them (see ``mayEqual(_:length:)``).
    let keyLength: Int
    let headLength: Int

    /// Dictionaries with at most this many entries are searched by comparing keys in turn: for
    /// the few entries of a typical `userInfo`, a few string comparisons (most of which stop at
    /// the first word) cost less than hashing the key.
    static let scanLimit = 8

    /// Prepares `key` (an operator key, `@count`, is not a dictionary key: leave it to the
    /// general path).
    public init(_ key: String) {
        self.key = key
        head = key.utf8.firstIndex(of: UInt8(ascii: ".")).map { String(key[..<$0]) }
        let isASCII = key.utf8.allSatisfy { $0 < 0x80 }
        keyLength = isASCII ? key.utf8.count : 0
        headLength = isASCII ? head?.utf8.count ?? 0 : 0
        keyBits = Self.smallASCIIBits(key)
        headBits = head.flatMap(Self.smallASCIIBits)
    }

    /// The raw bits of ``key`` and ``head`` when each is a small ASCII string (see
    /// ``smallASCIIBits(_:)``), else `nil`.
    let keyBits: SmallASCII?
    let headBits: SmallASCII?

    /// A string's two words, when they hold a small ASCII string: up to 15 ASCII bytes stored in
    /// the string itself, whose discriminator (the top nibble of the second word) is `0xE`. Two
    /// such strings are equal (canonically equivalent) exactly when their bits are: the bytes
    /// are the characters, unused bytes are zero, and the count is in the discriminator.
    /// `String.==` checks the bits too, but then calls into the standard library to compare what
    /// differs, which for the few short keys of a `userInfo` costs more than the rest of the scan.
    struct SmallASCII: Equatable {
        let low: UInt64
        let high: UInt64
    }

    /// `string`'s bits as a ``SmallASCII``, or `nil` when it is stored otherwise (longer, not
    /// ASCII, or bridged), and for a layout of `String` other than the two words this reads.
    @inline(__always)
    static func smallASCIIBits(_ string: String) -> SmallASCII? {
        guard MemoryLayout<String>.size == MemoryLayout<SmallASCII>.size else { return nil }
        let bits = unsafeBitCast(string, to: SmallASCII.self)
        return bits.high >> 60 == 0xE ? bits : nil
    }

    /// Whether `candidate`, whose bits are `candidateBits`, equals `target` (of `length` ASCII
    /// bytes, with bits `targetBits`): by the bits when both are small ASCII strings, else by
    /// ``mayEqual(_:length:)`` and `==`.
    @inline(__always)
    static func equals(
        _ candidate: String, _ candidateBits: SmallASCII?, _ target: String, _ targetBits: SmallASCII?, length: Int
    ) -> Bool {
        if let candidateBits, let targetBits { return candidateBits == targetBits }
        return mayEqual(candidate, length: length) && candidate == target
    }

    /// Whether `candidate` may equal (be canonically equivalent to) a key of `length` ASCII bytes.
    ///
    /// A string equivalent to an ASCII one is made of ASCII characters and singletons that
    /// decompose to one (KELVIN SIGN to `K`), each of two or more bytes: it is never shorter.
    /// `utf8.count` is stored in a native string, so most keys of another length cost nothing more.
    @inline(__always)
    static func mayEqual(_ candidate: String, length: Int) -> Bool {
        candidate.utf8.count >= length
    }

    /// The value the key path ends with on `entries`; `nil` when only the general path, walking
    /// the parts of a dotted key in turn, can tell.
    public func value(in entries: [String: Value]) -> Value? {
        if entries.count <= Self.scanLimit {
            // Key equality is `String`'s `==`, as the hashed look-up's, so both find the same entry.
            // Iterated rather than indexed: an index into the keys and the values is checked
            // against the dictionary at each use, and each view retains its storage.
            var headIsPresent = false
            for (candidate, value) in entries {
                let bits = Self.smallASCIIBits(candidate)
                if Self.equals(candidate, bits, key, keyBits, length: keyLength) {
                    if !value.isNil || head == nil { return value }
                } else if let head, !headIsPresent, Self.equals(candidate, bits, head, headBits, length: headLength),
                    !value.isNil
                {
                    headIsPresent = true
                }
            }
            if head == nil { return .nil }
            return headIsPresent ? nil : .nil
        }
        let found = entries[key]
        if let found, !found.isNil { return found }
        guard let head else { return found ?? .nil }
        return (entries[head] ?? .nil).isNil ? .nil : nil
    }
}
