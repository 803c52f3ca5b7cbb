import Foundation
import PredicateSyntax

/// How a set of options compares strings (SPEC §4.4, §4.5.1).
enum StringComparisonKind: Sendable {
    /// `[n]`: UTF-16 code units as they are, for equality, substrings and ordering alike.
    case literal
    /// No `c` or `d`: equality and substrings are literal, ordering is by UTF-16 code unit after
    /// canonical decomposition (Apple's `compare:`). `l` and `w` alone land here.
    case canonical
    /// `c` and/or `d` without `n`: both sides are folded (``StringFolding``) for every operator.
    case folded(caseInsensitive: Bool, diacriticInsensitive: Bool)

    init(_ options: ComparisonOptions) {
        let caseInsensitive = options.contains(.caseInsensitive)
        let diacriticInsensitive = options.contains(.diacriticInsensitive)
        if options.contains(.normalized) {
            self = .literal
        } else if caseInsensitive || diacriticInsensitive {
            self = .folded(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        } else {
            self = .canonical
        }
    }

    /// Whether ASCII text is lower-cased by the fold (ASCII is otherwise unchanged by it).
    var lowercasesASCII: Bool {
        if case .folded(let caseInsensitive, _) = self { return caseInsensitive }
        return false
    }

    /// `text` as this kind compares it when not ASCII: folded, decomposed, or as it is.
    func transform(_ text: String) -> [UInt32] {
        switch self {
        case .literal: return text.unicodeScalars.map(\.value)
        case .canonical: return StringFolding.decomposed(text)
        case .folded(let caseInsensitive, let diacriticInsensitive):
            return StringFolding.fold(
                text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        }
    }
}

extension StringComparisonKind {
    /// `body` over `text` as ``transform(_:)`` gives it: written into a buffer on the stack when
    /// the text is plain enough for a table (the common case: nothing is allocated), else over
    /// ``transform(_:)``'s array.
    @inline(__always)
    func withTransformed<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt32>) -> R) -> R {
        // Most scalars fold to one or two values and take two or three bytes: a folding that
        // outgrows this goes the array's way.
        let capacity = text.utf8.count &* 2 &+ 8
        let done = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: capacity) { buffer -> R? in
            let count: Int?
            switch self {
            case .literal:
                count = Self.scalars(of: text, into: buffer)
            case .canonical:
                // Nothing below U+00C0 (UTF-8 lead byte 0xC3) has a canonical decomposition.
                count =
                    StringKernels.withUTF8(text, { $0.allSatisfy { $0 < 0xC3 } })
                    ? Self.scalars(of: text, into: buffer) : FoldTable.canonical.fold(text, into: buffer)
            case .folded(let caseInsensitive, let diacriticInsensitive):
                count = FoldTable.table(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                    .fold(text, into: buffer)
            }
            guard let count else { return nil }
            return body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
        if let done { return done }
        return transform(text).withUnsafeBufferPointer(body)
    }

    /// The scalar values of `text` written to `buffer` (never more than its UTF-8 bytes); `nil`
    /// when they do not fit.
    private static func scalars(of text: String, into buffer: UnsafeMutableBufferPointer<UInt32>) -> Int? {
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < buffer.count else { return nil }
            buffer[count] = scalar.value
            count &+= 1
        }
        return count
    }
}

/// ASCII bytes as a comparison sees them: lower-cased under `[c]`, as they are otherwise.
typealias ASCIIView = LazyMapCollection<UnsafeBufferPointer<UInt8>, UInt8>

/// The four tests that look for one string in another. Callers pass the test as a value and
/// ``run(_:_:)`` is called with concrete collection types, so every use is specialised (a generic
/// function passed as a closure would run unspecialised, through witness tables).
enum SubstringTest: Sendable {
    /// The two strings are equal.
    case equal
    /// The first string begins with the second (non-empty) one.
    case prefix
    /// The first string ends with the second (non-empty) one.
    case suffix
    /// The first string contains the second (non-empty) one.
    case contains

    func run<H: RandomAccessCollection, N: RandomAccessCollection>(_ haystack: H, _ needle: N) -> Bool
    where H.Element == N.Element, H.Element: Equatable, H.Index == Int, N.Index == Int {
        switch self {
        case .equal: return StringKernels.equal(haystack, needle)
        case .prefix: return StringKernels.hasPrefix(haystack, needle)
        case .suffix: return StringKernels.hasSuffix(haystack, needle)
        case .contains: return StringKernels.contains(haystack, needle)
        }
    }
}

/// The search and comparison loops shared by every string operator, over any random-access
/// sequence of code units (bytes, scalar values) so that the ASCII paths allocate nothing.
///
/// Scalar sequences are compared, not UTF-16: for text that came from valid strings, equality,
/// prefix, suffix and substring tests give the same answers on scalars, on UTF-8 and on UTF-16.
/// Ordering is the exception, and uses ``utf16Order(_:)``.
enum StringKernels {
    static func hasPrefix<H: RandomAccessCollection, N: RandomAccessCollection>(_ haystack: H, _ needle: N) -> Bool
    where H.Element == N.Element, H.Element: Equatable, H.Index == Int, N.Index == Int {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return matches(haystack, at: haystack.startIndex, needle)
    }

    static func hasSuffix<H: RandomAccessCollection, N: RandomAccessCollection>(_ haystack: H, _ needle: N) -> Bool
    where H.Element == N.Element, H.Element: Equatable, H.Index == Int, N.Index == Int {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return matches(haystack, at: haystack.endIndex - needle.count, needle)
    }

    /// Naive search with a first-unit filter: needles are short constants in practice, and the
    /// worst case is bounded by haystack × needle length.
    static func contains<H: RandomAccessCollection, N: RandomAccessCollection>(_ haystack: H, _ needle: N) -> Bool
    where H.Element == N.Element, H.Element: Equatable, H.Index == Int, N.Index == Int {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        let last = haystack.endIndex - needle.count
        var position = haystack.startIndex
        while position <= last {
            if haystack[position] == first && matches(haystack, at: position, needle) { return true }
            position += 1
        }
        return false
    }

    static func equal<A: Collection, B: Collection>(_ lhs: A, _ rhs: B) -> Bool
    where A.Element == B.Element, A.Element: Equatable {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    /// Lexicographic order; a proper prefix comes first.
    static func order<A: Sequence, B: Sequence>(_ lhs: A, _ rhs: B) -> ComparisonResult
    where A.Element == B.Element, A.Element: Comparable {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let a?, let b?):
                if a != b { return a < b ? .orderedAscending : .orderedDescending }
            }
        }
    }

    /// A key that orders scalar values as their UTF-16 encodings order: U+E000–U+FFFF sort
    /// after the supplementary planes, whose encodings start with a surrogate (D800–DBFF).
    static func utf16Order(_ value: UInt32) -> UInt32 {
        value >= 0xE000 && value <= 0xFFFF ? value + 0x11_0000 : value
    }

    private static func matches<H: RandomAccessCollection, N: RandomAccessCollection>(
        _ haystack: H, at start: Int, _ needle: N
    ) -> Bool where H.Element == N.Element, H.Element: Equatable, H.Index == Int, N.Index == Int {
        var offset = 0
        let count = needle.count
        let needleStart = needle.startIndex
        while offset < count {
            if haystack[start + offset] != needle[needleStart + offset] { return false }
            offset += 1
        }
        return true
    }

    // MARK: - Access to UTF-8

    /// Runs `body` over the UTF-8 of `text`, copying only if the string is not stored contiguously
    /// (a bridged string). Cheaper than the mutating `String.withUTF8` on a copy.
    static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// `body` over both strings as ASCII views when both are ASCII; `nil` otherwise.
    static func withASCII<R>(
        _ lhs: String, _ rhs: String, lowercased: Bool, _ body: (ASCIIView, ASCIIView) -> R
    ) -> R? {
        withUTF8(lhs) { left in
            guard isASCII(left) else { return nil }
            return withUTF8(rhs) { right in
                guard isASCII(right) else { return nil }
                return body(view(left, lowercased: lowercased), view(right, lowercased: lowercased))
            }
        }
    }

    static func view(_ bytes: UnsafeBufferPointer<UInt8>, lowercased: Bool) -> ASCIIView {
        bytes.lazy.map { lowercased ? StringFolding.asciiLowercase($0) : $0 }
    }

    /// Whether the last `needle.count` bytes of `text` (at least that many), their letters
    /// lowercased when `lowercased`, are `needle` (ASCII, already lowercased then); `nil` when one
    /// of those bytes is not ASCII. Every byte is looked at, without a branch on what it holds.
    static func asciiSuffix(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], lowercased: Bool) -> Bool? {
        guard let base = text.baseAddress, needle.count <= text.count else { return nil }
        let end = base + (text.count - needle.count)
        return needle.withUnsafeBufferPointer { needle in
            var high: UInt8 = 0
            var differs: UInt8 = 0
            for index in needle.indices {
                let byte = end[index]
                high |= byte
                differs |= (lowercased ? StringFolding.asciiLowercase(byte) : byte) ^ needle[index]
            }
            return high < 0x80 ? differs == 0 : nil
        }
    }

    /// Whether the ASCII bytes `haystack`, their letters lowercased when `lowercased`, contain
    /// `needle` (ASCII, already lowercased then): ``contains(_:_:)``, with the places where the
    /// needle's first byte occurs found eight bytes at a time, each byte lowercased once.
    static func asciiContains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], lowercased: Bool) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, needle.count <= haystack.count else {
            return false
        }
        let last = haystack.count - needle.count
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let wanted = UInt64(first) &* ones
        var start = 0
        while start + 8 <= haystack.count && start <= last {
            var word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            if lowercased { word = asciiLowercased(word) }
            let difference = word ^ wanted
            // A zero byte of `difference` sets its top bit here (bytes above a zero may too:
            // every candidate is checked).
            var candidates = (difference &- ones) & ~difference & highs
            while candidates != 0 {
                let position = start + candidates.trailingZeroBitCount >> 3
                if position > last { return false }
                if asciiMatches(base, at: position, needle, lowercased: lowercased) { return true }
                candidates &= candidates &- 1
            }
            start += 8
        }
        while start <= last {
            let byte = lowercased ? StringFolding.asciiLowercase(base[start]) : base[start]
            if byte == first && asciiMatches(base, at: start, needle, lowercased: lowercased) { return true }
            start += 1
        }
        return false
    }

    /// Eight ASCII bytes (each below 0x80) with their capitals made small.
    @inline(__always)
    static func asciiLowercased(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // A byte (below 0x80) is an upper-case letter when adding 0x3F carries into its top bit
        // and adding 0x25 does not: 0x41 ... 0x5A. Its 0x20 bit is then set.
        let upper = (word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & 0x8080_8080_8080_8080
        return word | upper >> 2
    }

    /// Whether `needle` lies at `start` of the ASCII bytes at `base`, lowercased when `lowercased`.
    @inline(__always)
    private static func asciiMatches(
        _ base: UnsafePointer<UInt8>, at start: Int, _ needle: [UInt8], lowercased: Bool
    ) -> Bool {
        for offset in needle.indices {
            let byte = lowercased ? StringFolding.asciiLowercase(base[start + offset]) : base[start + offset]
            if byte != needle[offset] { return false }
        }
        return true
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < count {
            if base[offset] >= 0x80 { return false }
            offset += 1
        }
        return true
    }
}
