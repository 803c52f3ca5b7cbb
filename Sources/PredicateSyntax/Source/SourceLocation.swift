/// A half-open range of UTF-8 byte offsets into the source text of a rule.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// The offset of the first byte in the range.
    public var lowerBound: Int
    /// The offset one past the last byte in the range.
    public var upperBound: Int

    /// Creates a range from `lowerBound` up to, not including, `upperBound`.
    public init(_ lowerBound: Int, _ upperBound: Int) {
        self.lowerBound = lowerBound
        self.upperBound = max(lowerBound, upperBound)
    }

    /// The smallest range covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(min(lowerBound, other.lowerBound), max(upperBound, other.upperBound))
    }

    /// `lower..<upper` in bytes.
    public var description: String { "\(lowerBound)..<\(upperBound)" }
}

/// A human-readable position: 1-based line and column (columns count characters, not bytes).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in characters from the start of the line.
    public var column: Int

    /// Creates a location from a line and a column, both 1-based.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// The source text of a rule, viewed as UTF-8 bytes, with position arithmetic for diagnostics.
struct SourceText: Sendable {
    let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The byte offset at which the line containing `offset` starts.
    func lineStart(containing offset: Int) -> Int {
        var index = min(max(0, offset), bytes.count)
        while index > 0 {
            let previous = bytes[index - 1]
            if previous == 0x0A || previous == 0x0D { break }
            index -= 1
        }
        return index
    }

    /// The byte offset at which the line containing `offset` ends (before its line break).
    func lineEnd(containing offset: Int) -> Int {
        var index = min(max(0, offset), bytes.count)
        while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
        return index
    }

    /// The line and column of `offset`. A CR LF pair counts as one line break.
    func location(of offset: Int) -> SourceLocation {
        let clamped = min(max(0, offset), bytes.count)
        var line = 1
        var index = 0
        while index < clamped {
            if bytes[index] == 0x0A {
                line += 1
            } else if bytes[index] == 0x0D {
                if index + 1 >= bytes.count || bytes[index + 1] != 0x0A { line += 1 }
            }
            index += 1
        }
        let start = lineStart(containing: clamped)
        let prefix = String(decoding: bytes[start..<clamped], as: UTF8.self)
        return SourceLocation(line: line, column: prefix.count + 1)
    }

    /// The text of the line containing `offset`, without its line break.
    func lineText(containing offset: Int) -> String {
        let start = lineStart(containing: offset)
        return String(decoding: bytes[start..<lineEnd(containing: offset)], as: UTF8.self)
    }

    /// The source text covered by `range`.
    func text(in range: SourceRange) -> String {
        let lower = min(max(0, range.lowerBound), bytes.count)
        let upper = min(max(lower, range.upperBound), bytes.count)
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }
}
