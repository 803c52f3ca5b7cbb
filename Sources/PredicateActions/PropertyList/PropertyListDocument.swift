import Foundation

/// Why a file is not a property list, with where the problem is.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for a developer.
    public let message: String
    /// Where, when the file is XML: the 1-based line and column.
    public let location: PropertyListLocation?

    /// Creates an error.
    public init(_ message: String, location: PropertyListLocation? = nil) {
        self.message = message
        self.location = location
    }

    /// `line 29, column 68: message`, or the message alone.
    public var description: String {
        guard let line = location?.line, let column = location?.column else { return message }
        return "line \(line), column \(column): \(message)"
    }
}

/// A property list read with positions: XML by this package's own reader (lines and columns for
/// every value, inside strings too), binary by its own reader too (key paths only), and the rare
/// UTF-16 and OpenStep text forms by Foundation (key paths only).
struct PropertyListDocument: Sendable {
    let root: PropertyListNode
    /// `nil` for a binary property list, which has no lines.
    let lines: LineTable?

    /// A larger file is refused: an Info.plist is a few kilobytes.
    static let maximumBytes = 16 << 20

    init(bytes: [UInt8]) throws(PropertyListError) {
        guard bytes.count <= Self.maximumBytes else {
            throw PropertyListError("the file is \(bytes.count) bytes; a property list is at most \(Self.maximumBytes)")
        }
        guard !bytes.isEmpty else { throw PropertyListError("the file is empty: not a property list") }
        if bytes.starts(with: Array("bplist".utf8)) {
            do throws(BinaryPropertyListError) {
                root = try BinaryPropertyListReader.read(bytes)
            } catch {
                throw PropertyListError(
                    "the file starts as a binary property list (bplist) but is truncated or corrupt: \(error.message)")
            }
            lines = nil
            return
        }
        let firstSignificant = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
        guard firstSignificant == UInt8(ascii: "<") else {
            // UTF-16 XML and OpenStep text are rare in Info.plists; Foundation reads them, without positions.
            root = try Self.foundationRoot(bytes, what: "not a property list (XML or binary)")
            lines = nil
            return
        }
        let table = LineTable(bytes)
        do throws(XMLPropertyListError) {
            try Self.validateUTF8(bytes)
            root = try XMLPropertyListReader.read(bytes)
        } catch {
            let (line, column) = table.location(of: error.offset)
            throw PropertyListError(
                "not a valid XML property list: \(error.message)",
                location: PropertyListLocation(line: line, column: column, keyPath: ""))
        }
        lines = table
    }

    /// The location of a value or key at `offset` (a file offset, `nil` in binary) with `keyPath`.
    func location(_ offset: Int?, keyPath: String) -> PropertyListLocation {
        guard let offset, let lines else { return PropertyListLocation(line: nil, column: nil, keyPath: keyPath) }
        let (line, column) = lines.location(of: offset)
        return PropertyListLocation(line: line, column: column, keyPath: keyPath)
    }

    /// The file location of UTF-8 byte `ruleOffset` of the string `node` holds: the file's own
    /// position of that byte (entities and CDATA accounted for), or the string's element when it
    /// is empty or the file has no lines.
    func location(ofStringByte ruleOffset: Int, in node: PropertyListNode, keyPath: String) -> PropertyListLocation {
        guard case .string(_, let offsets) = node.content, !offsets.isEmpty else {
            return location(node.offset, keyPath: keyPath)
        }
        let clamped = min(max(0, ruleOffset), offsets.count - 1)
        // Past the end (an empty range at the end of the rule) points just after the last byte.
        let fileOffset = ruleOffset >= offsets.count ? Int(offsets[offsets.count - 1]) + 1 : Int(offsets[clamped])
        return location(fileOffset, keyPath: keyPath)
    }

    /// XML property lists are UTF-8; a byte that is not is reported where it is, rather than
    /// silently replaced.
    private static func validateUTF8(_ bytes: [UInt8]) throws(XMLPropertyListError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error:
                throw XMLPropertyListError(message: "the file is not valid UTF-8 here", offset: offset)
            }
        }
    }

    private static func foundationRoot(_ bytes: [UInt8], what: String) throws(PropertyListError) -> PropertyListNode {
        let value: Any
        do {
            value = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            // Foundation's own description here says only that the operation could not be completed.
            throw PropertyListError(what)
        }
        return node(value, depth: 0)
    }

    private static func node(_ value: Any, depth: Int) -> PropertyListNode {
        switch value {
        case let text as String:
            return PropertyListNode(content: .string(text, fileOffsets: []), offset: nil)
        case let dictionary as [String: Any]:
            guard depth < XMLPropertyListReader.maximumDepth else {
                return PropertyListNode(content: .dictionary([]), offset: nil)
            }
            let entries = dictionary.keys.sorted().map { key in
                PropertyListNode.Entry(key: key, keyOffset: nil, value: node(dictionary[key] as Any, depth: depth + 1))
            }
            return PropertyListNode(content: .dictionary(entries), offset: nil)
        case let array as [Any]:
            guard depth < XMLPropertyListReader.maximumDepth else {
                return PropertyListNode(content: .array([]), offset: nil)
            }
            return PropertyListNode(content: .array(array.map { node($0, depth: depth + 1) }), offset: nil)
        case let flag as Bool:
            return PropertyListNode(content: .boolean(flag), offset: nil)
        case let number as NSNumber:
            return PropertyListNode(content: .scalar(element: "integer", text: number.stringValue), offset: nil)
        default:
            return PropertyListNode(content: .scalar(element: "data", text: ""), offset: nil)
        }
    }
}

extension PropertyListNode {
    /// The value as Foundation's property-list objects, for the readers that walk `[String: Any]`.
    var foundationValue: Any {
        switch content {
        case .string(let text, _): return text
        case .dictionary(let entries):
            var dictionary: [String: Any] = [:]
            // The first of duplicate keys wins, as `subscript(key:)` reads it.
            for entry in entries.reversed() { dictionary[entry.key] = entry.value.foundationValue }
            return dictionary
        case .array(let elements): return elements.map(\.foundationValue)
        case .boolean(let flag): return flag
        case .scalar(let element, let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch element {
            case "integer": return Int64(trimmed) ?? 0
            case "real": return Double(trimmed) ?? 0
            default: return trimmed
            }
        }
    }
}
