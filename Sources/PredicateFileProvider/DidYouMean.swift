/// Near-miss suggestions for keys, values and names: what a did-you-mean offers. Shared by the
/// item reader here and the rule and Info.plist checkers of PredicateActions.
package enum DidYouMean {
    /// The closest of `candidates` to `key`: a case-insensitive match, or the nearest within a
    /// third of the key's length in edits (or within `maximumDistance`, when given: long names
    /// that share a prefix are a third apart without being typos of each other); ties go to the
    /// shorter candidate.
    package static func suggestion(
        for key: String, among candidates: [String], maximumDistance: Int? = nil
    ) -> String? {
        // A key far longer than every candidate is no near miss, and would cost length × length.
        guard key.count <= 2 * (candidates.map(\.count).max() ?? 0) + 8 else { return nil }
        let lowered = Array(key.lowercased())
        var best: (distance: Int, candidate: String)?
        for candidate in candidates.sorted() {
            let distance = editDistance(lowered, Array(candidate.lowercased()))
            if let current = best,
                distance > current.distance
                    || (distance == current.distance && candidate.count >= current.candidate.count)
            {
                continue
            }
            best = (distance, candidate)
        }
        guard let best, best.distance <= min(max(1, lowered.count / 3), maximumDistance ?? .max) else { return nil }
        return best.candidate
    }

    private static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        if lhs.isEmpty { return rhs.count }
        var previous = Array(0...rhs.count)
        for (i, left) in lhs.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: rhs.count)
            for (j, right) in rhs.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[rhs.count]
    }
}
