/// SplitMix64 (Steele, Lea and Flood): a small, fast generator whose sequence depends only on the
/// seed, so that a failing case can be regenerated from the seed printed with it. The bounded
/// helpers are written here rather than taken from the standard library, whose algorithms for
/// `random(in:using:)` may change between Swift versions.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The seed of case `index` of a run seeded with `seed`: every case is reproducible alone.
    static func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is not positive).
    mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One element of a non-empty array (the first of an empty one is never asked for).
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[below(elements.count)]
    }

    /// An index chosen with the given relative weights.
    mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        var roll = below(total)
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }
}
