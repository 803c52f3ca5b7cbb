import CMemoryHints

/// Where the objects of a type seem to keep a string field, learned from the strings their
/// ``KeyValueCoding/value(atSlot:of:)`` answers: so that an engine reading that field of many
/// objects in turn asks for each string's memory a few objects ahead, though the type declares
/// nothing about how it stores its fields (the protocol's minimal conformance).
///
/// A hint and nothing more. The place is guessed, never trusted: what an object's field holds
/// is still what ``KeyValueCoding/value(atSlot:of:)`` answers, and the bytes found at the place
/// are only turned into an address to prefetch, which never faults, whatever they hold. Reading
/// a string a few objects ahead halved a rule's time on 200,000 objects (`ENDSWITH[c]`, 48 ns
/// an object to 23): the string's storage lies elsewhere on the heap, and each miss on it,
/// retained then compared, otherwise waits alone.
///
/// The guess reads a `String`'s two words as the standard library lays them out on 64-bit
/// platforms (a count and flags, then the object with its form in the top four bits); a layout
/// that differs would only make the guesses miss.
@usableFromInline
package struct StringStorageHint: Sendable {
    /// How many bytes of objects make asking ahead worth it. Below that, their strings are
    /// likely still in the last-level cache, where a prefetch costs more than the wait it would
    /// hide: on 20,000 objects of 112 bytes, `ENDSWITH[c]` took 20 ns an object without
    /// prefetching and 25 with it; on 60,000, 18 and 20; on 200,000, 48 and 23. The objects' own
    /// bytes are the least of what a pass reads (their strings lie elsewhere), so the guess errs
    /// towards not asking.
    @usableFromInline package static let worthwhileBytes = 8 << 20

    /// The byte offset in the object of the two words that matched its field's string.
    @usableFromInline let offset: Int

    @usableFromInline
    init(offset: Int) { self.offset = offset }

    /// The place of the field's string in objects of `stride` bytes from `base` (`count` of
    /// them), when the first objects whose field is a string kept on the heap hold that string's
    /// two words at the same offset; `nil` when no such offset is found. `field` reads the field
    /// of an object, as the engine does.
    @inlinable
    package static func learn(
        base: UnsafeRawPointer, stride: Int, size: Int, count: Int, worthwhile: Bool = true,
        field: (Int) -> String?
    ) -> StringStorageHint? {
        guard worthwhile else { return nil }
        // Only where a string is the two 64-bit words read below.
        guard MemoryLayout<String>.size == 16 else { return nil }
        var found: Int?
        var agreeing = 0
        // A few objects are enough to tell a stored field from a coincidence; a string kept
        // inline (up to 15 bytes) or in the binary says nothing about where heap strings are.
        for index in 0..<min(count, 64) where agreeing < 3 {
            guard let text = field(index) else { continue }
            let (countAndFlags, object) = unsafeBitCast(text, to: (UInt64, UInt64).self)
            guard Self.heapObject(object) != nil else { continue }
            let start = base + index * stride
            func matches(_ offset: Int) -> Bool {
                start.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == countAndFlags
                    && start.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) == object
            }
            if let offset = found {
                guard matches(offset) else { return nil }
            } else {
                guard let offset = Swift.stride(from: 0, through: size - 16, by: 8).first(where: matches) else {
                    return nil
                }
                found = offset
            }
            agreeing += 1
        }
        guard let offset = found, agreeing >= 2 else { return nil }
        return StringStorageHint(offset: offset)
    }

    /// Asks the processor to bring in the storage of the string that the object at `object`
    /// seems to hold at ``offset``: the line of its header (which a retain writes) and the line
    /// of its last byte (where `ENDSWITH` looks). Nothing waits for it.
    @inlinable @inline(__always)
    package func prefetch(in object: UnsafeRawPointer) {
        let countAndFlags = object.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let objectBits = object.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
        guard let address = Self.heapObject(objectBits) else { return }
        predicate_prefetch(address)
        // The characters follow a 32-byte header; the count is the low 48 bits.
        predicate_prefetch(address + (31 &+ Int(truncatingIfNeeded: countAndFlags & 0xFFFF_FFFF_FFFF)))
    }

    /// The address of a native string's storage, from the object word of its layout; `nil` for
    /// the other forms (inline, immortal, bridged, foreign), whose bytes need no fetching or
    /// are not where this guess would look.
    @inlinable @inline(__always)
    static func heapObject(_ bits: UInt64) -> UnsafeRawPointer? {
        guard bits >> 60 == 0 else { return nil }
        return UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: bits))
    }
}
