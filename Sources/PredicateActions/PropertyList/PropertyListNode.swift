/// Where a value sits in an `Info.plist`: its line and column in an XML file, and its key path in
/// any form (a binary property list has no lines, so the key path is all an editor or CI gets).
public struct PropertyListLocation: Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line in the file, or `nil` for a binary property list.
    public let line: Int?
    /// The 1-based column (in characters) in the file, or `nil` for a binary property list.
    public let column: Int?
    /// The key path of the value, as in `NSExtension.NSExtensionFileProviderActions[0]`.
    public let keyPath: String

    /// Creates a location.
    public init(line: Int?, column: Int?, keyPath: String) {
        self.line = line
        self.column = column
        self.keyPath = keyPath
    }

    /// `line:column`, or the key path when the file has no lines.
    public var description: String {
        guard let line, let column else { return keyPath.isEmpty ? "the root" : keyPath }
        return "\(line):\(column)"
    }
}

/// A value of a property list with where it came from.
///
/// Strings read from XML keep, for every UTF-8 byte of their decoded text, the offset in the file
/// of the byte that produced it: entities (`&amp;`) and CDATA sections make the two differ, and a
/// rule's finding must land on the file's own line and column.
struct PropertyListNode: Sendable {
    enum Content: Sendable {
        /// The offsets are 32-bit: files are at most ``PropertyListDocument/maximumBytes``, and a
        /// string keeps one per byte.
        case string(String, fileOffsets: [Int32])
        case dictionary([Entry])
        case array([PropertyListNode])
        case boolean(Bool)
        /// `<integer>`, `<real>`, `<date>` and `<data>`, kept as text: no rule or structure check reads them.
        case scalar(element: String, text: String)
    }

    /// A key of a dictionary, where the `<key>` element starts, and its value.
    struct Entry: Sendable {
        let key: String
        let keyOffset: Int?
        let value: PropertyListNode
    }

    let content: Content
    /// The file offset of the value's start tag, or `nil` for a binary property list.
    let offset: Int?

    var string: String? {
        if case .string(let text, _) = content { return text }
        return nil
    }

    var entries: [Entry]? {
        if case .dictionary(let entries) = content { return entries }
        return nil
    }

    var elements: [PropertyListNode]? {
        if case .array(let elements) = content { return elements }
        return nil
    }

    /// The first value of `key` in a dictionary.
    subscript(key: String) -> PropertyListNode? {
        entries?.first { $0.key == key }?.value
    }

    /// What kind of value this is, for messages.
    var kindName: String {
        switch content {
        case .string: return "a string"
        case .dictionary: return "a dictionary"
        case .array: return "an array"
        case .boolean: return "a Boolean"
        case .scalar(let element, _): return element == "integer" ? "an integer" : "<\(element)>"
        }
    }
}

/// Offsets into a file's bytes as lines and columns, computed once per file.
struct LineTable: Sendable {
    private let bytes: [UInt8]
    private let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                starts.append(index + 1)
            } else if bytes[index] == 0x0D, index + 1 >= bytes.count || bytes[index + 1] != 0x0A {
                starts.append(index + 1)
            }
            index += 1
        }
        lineStarts = starts
    }

    /// The 1-based line and column of `offset`; columns count characters, as the rule's own
    /// diagnostics do.
    func location(of offset: Int) -> (line: Int, column: Int) {
        let clamped = min(max(0, offset), bytes.count)
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= clamped { low = middle } else { high = middle - 1 }
        }
        let start = lineStarts[low]
        let column = String(decoding: bytes[start..<clamped], as: UTF8.self).count + 1
        return (low + 1, column)
    }
}
