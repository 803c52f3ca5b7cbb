/// A `LIKE` pattern without `?`: runs of literal scalars between stars (`*.pdf`, `img_*`,
/// `*sume*`, `report*2026*.txt`), matched without backtracking.
///
/// The first run must begin the text unless the pattern begins with a star, the last must end
/// it unless the pattern ends with one, and each run in between is found leftmost after the one
/// before: taking the earliest place for a run never loses a match that a later place would
/// give, since a star absorbs whatever lies between. So the work is a prefix test, a suffix test
/// and one substring search per inner run, and `*.pdf` looks at the last four scalars only.
///
/// Steps, the per-match budget of ``LikePattern``: one for the match, and one for each scalar
/// compared. They depend only on the text as matching sees it (folded and normalised), so every
/// way of reaching that text (ASCII bytes, only the decisive end, the whole prepared text)
/// spends the same steps.
struct LikeSegments: Sendable {
    /// The literal runs, none empty, in pattern order, end to end: run `i` is
    /// `scalars[starts[i] ..< starts[i + 1]]` (one array of scalars, so that matching copies
    /// no inner array, each of which would be retained and released).
    private let scalars: [UInt32]
    private let starts: [Int]
    /// The pattern does not begin with a star: the first run begins the text.
    let anchoredStart: Bool
    /// The pattern does not end with a star: the last run ends the text.
    let anchoredEnd: Bool

    /// The runs of `tokens` (scalar values, with `anySequence` for a star); `nil` when they hold
    /// `anyCharacter`, which this matcher leaves to the backtracking one.
    init?(tokens: [UInt32], anySequence: UInt32, anyCharacter: UInt32) {
        guard !tokens.isEmpty, !tokens.contains(anyCharacter) else { return nil }
        var scalars: [UInt32] = []
        var starts = [0]
        for token in tokens {
            if token == anySequence {
                if scalars.count > starts[starts.count - 1] { starts.append(scalars.count) }
            } else {
                scalars.append(token)
            }
        }
        if scalars.count > starts[starts.count - 1] { starts.append(scalars.count) }
        self.scalars = scalars
        self.starts = starts
        anchoredStart = tokens.first != anySequence
        anchoredEnd = tokens.last != anySequence
    }

    /// The length of the run the text must begin with, when the pattern does not begin with a
    /// star.
    var headLength: Int? {
        anchoredStart && starts.count > 1 ? starts[1] - starts[0] : nil
    }

    /// For a pattern of one run and one star (`img_*`, `*.pdf`), the bytes of `text` that decide
    /// it when they are ASCII: the first bytes of the run's length when those and the scalar
    /// after them are left as they are by folding and NFKC (see
    /// ``LikePattern/settledASCIIPrefix(_:_:)``), or the last bytes. Matching those bytes alone spends the steps, and gives the
    /// answer, that matching the whole prepared text would: the text is at least that long, and
    /// an ASCII scalar at its end is never composed with anything before it. `nil` otherwise.
    func decisiveASCIIEnd(of text: UnsafeBufferPointer<UInt8>, normalizes: Bool) -> UnsafeBufferPointer<UInt8>? {
        guard starts.count == 2, anchoredStart != anchoredEnd else { return nil }
        let length = scalars.count
        guard text.count >= length else { return nil }
        if anchoredEnd {
            let tail = UnsafeBufferPointer(rebasing: text[(text.count - length)...])
            return StringKernels.isASCII(tail) ? tail : nil
        }
        let head = UnsafeBufferPointer(rebasing: text[..<length])
        guard StringKernels.isASCII(head) else { return nil }
        // An ASCII scalar after the run cannot combine with it; anything else may.
        let settled =
            text.count == length || text[length] < 0x80
            || LikePattern.settledASCIIPrefix(text, normalizes) >= length
        return settled ? head : nil
    }

    /// How matching a text whose first scalars are `head` ends, when `head` alone decides it:
    /// the pattern begins with a run that differs from `head` within it. Steps are spent as
    /// ``match(_:steps:)`` spends them on the whole text; `nil` (nothing spent) when the head
    /// decides nothing.
    func mismatchInHead<Head: RandomAccessCollection>(_ head: Head, steps: inout Int) -> HeadOutcome?
    where Head.Element == UInt32, Head.Index == Int {
        guard anchoredStart, starts.count > 1 else { return nil }
        return scalars.withUnsafeBufferPointer { scalars -> HeadOutcome? in
            let run = UnsafeBufferPointer(rebasing: scalars[starts[0]..<starts[1]])
            var offset = 0
            while offset < min(run.count, head.count) {
                if run[offset] != head[head.startIndex + offset] {
                    // The match's step, then one for each scalar compared, the last included.
                    let spent = offset + 2
                    guard steps >= spent else {
                        // Where the whole text's match stops: at the first step past the budget.
                        steps = -1
                        return .ranOut
                    }
                    steps -= spent
                    return .mismatch
                }
                offset += 1
            }
            return nil
        }
    }

    /// What a head decided (see ``mismatchInHead(_:steps:)``).
    enum HeadOutcome {
        /// The text does not match.
        case mismatch
        /// The steps ran out first.
        case ranOut
    }

    /// Whether `text` (the text as matching sees it) matches, spending `steps`; `nil` when they
    /// ran out.
    func match<Text: RandomAccessCollection>(_ text: Text, steps: inout Int) -> Bool?
    where Text.Element == UInt32, Text.Index == Int {
        scalars.withUnsafeBufferPointer { scalars in
            starts.withUnsafeBufferPointer { starts in
                Self.match(text, runs: scalars, starts: starts, anchoredStart, anchoredEnd, steps: &steps)
            }
        }
    }

    private static func match<Text: RandomAccessCollection>(
        _ text: Text, runs scalars: UnsafeBufferPointer<UInt32>, starts: UnsafeBufferPointer<Int>,
        _ anchoredStart: Bool, _ anchoredEnd: Bool, steps: inout Int
    ) -> Bool? where Text.Element == UInt32, Text.Index == Int {
        func run(_ index: Int) -> UnsafeBufferPointer<UInt32> {
            UnsafeBufferPointer(rebasing: scalars[starts[index]..<starts[index + 1]])
        }
        steps -= 1
        guard steps >= 0 else { return nil }
        var low = text.startIndex
        var high = text.endIndex
        var first = 0
        var last = starts.count - 1
        if anchoredStart && last > 0 {
            // Compared as far as the text goes before its length is checked, so that a head
            // that differs decides the same, steps too, whatever follows it (``mismatchInHead``).
            let run = run(0)
            first = 1
            let available = min(run.count, high - low)
            guard let equal = equal(UnsafeBufferPointer(rebasing: run[..<available]), text, at: low, steps: &steps)
            else { return nil }
            guard equal, available == run.count else { return false }
            low += run.count
        }
        if anchoredEnd {
            // A pattern of one run, both ends anchored, is the whole text: nothing may follow it.
            guard last > first else { return low == high }
            let run = run(last - 1)
            last -= 1
            guard high - low >= run.count else { return false }
            guard let equal = equal(run, text, at: high - run.count, steps: &steps) else { return nil }
            guard equal else { return false }
            high -= run.count
        }
        var index = first
        while index < last {
            let run = run(index)
            var start = low
            var found = false
            while start + run.count <= high {
                guard let equal = equal(run, text, at: start, steps: &steps) else { return nil }
                if equal {
                    found = true
                    break
                }
                start += 1
            }
            guard found else { return false }
            low = start + run.count
            index += 1
        }
        return true
    }

    /// Whether `run` is the text at `start`, one step a scalar compared (up to the first that
    /// differs); `nil` when the steps ran out.
    @inline(__always)
    private static func equal<Text: RandomAccessCollection>(
        _ run: UnsafeBufferPointer<UInt32>, _ text: Text, at start: Int, steps: inout Int
    ) -> Bool? where Text.Element == UInt32, Text.Index == Int {
        var offset = 0
        while offset < run.count {
            steps -= 1
            guard steps >= 0 else { return nil }
            if run[offset] != text[start + offset] { return false }
            offset += 1
        }
        return true
    }
}
