/// A syntax error in an XML property list, at a byte offset of the file.
struct XMLPropertyListError: Error, Sendable {
    let message: String
    let offset: Int
}

/// Reads an XML property list and remembers where every value came from.
///
/// Foundation's reader says only "the operation could not be completed" for the commonest
/// hand-edit mistake, a raw `&&` inside `<string>`, and reports no positions for anything it
/// accepts; this one reports both. It accepts what Apple's XML property lists contain: the
/// prolog (declaration, DOCTYPE, comments), `plist`, `dict`, `key`, `array`, `string`, `true`,
/// `false`, `integer`, `real`, `date` and `data`, entities and CDATA.
struct XMLPropertyListReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Nesting deeper than this is refused rather than recursed into: no Info.plist nests so deep.
    static let maximumDepth = 256

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The root value.
    static func read(_ bytes: [UInt8]) throws(XMLPropertyListError) -> PropertyListNode {
        var reader = XMLPropertyListReader(bytes)
        return try reader.document()
    }

    // MARK: - Document

    private mutating func document() throws(XMLPropertyListError) -> PropertyListNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        try skipMisc()
        guard let tag = try startTag() else {
            throw XMLPropertyListError(message: "expected the <plist> element", offset: index)
        }
        let root: PropertyListNode
        if tag.name == "plist" {
            guard !tag.selfClosing else {
                throw XMLPropertyListError(message: "<plist/> holds no value", offset: tag.offset)
            }
            try skipMisc()
            guard let inner = try startTag() else {
                throw XMLPropertyListError(message: "expected a value inside <plist>", offset: index)
            }
            root = try value(inner)
            try skipMisc()
            try endTag("plist", opener: tag)
        } else {
            root = try value(tag)
        }
        try skipMisc()
        guard index >= bytes.count else {
            throw XMLPropertyListError(message: "unexpected content after the end of the property list", offset: index)
        }
        return root
    }

    /// Skips white space, comments, processing instructions and the DOCTYPE.
    private mutating func skipMisc() throws(XMLPropertyListError) {
        while true {
            skipWhitespace()
            if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<?") {
                try skip(past: "?>", what: "the processing instruction", from: index)
            } else if starts(with: "<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(XMLPropertyListError) {
        try skip(past: "-->", what: "the comment '<!--'", from: index)
    }

    private mutating func skipDoctype() throws(XMLPropertyListError) {
        let start = index
        var brackets = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): brackets += 1
            case UInt8(ascii: "]"): brackets -= 1
            case UInt8(ascii: ">") where brackets <= 0:
                index += 1
                return
            default: break
            }
            index += 1
        }
        throw XMLPropertyListError(message: "the <!DOCTYPE is never closed with '>'", offset: start)
    }

    // MARK: - Values

    private struct Tag {
        let name: String
        let offset: Int
        let selfClosing: Bool
    }

    /// The value whose start tag `tag` has just been read.
    private mutating func value(_ tag: Tag) throws(XMLPropertyListError) -> PropertyListNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw XMLPropertyListError(
                message: "the property list nests deeper than \(Self.maximumDepth) levels", offset: tag.offset)
        }
        switch tag.name {
        case "dict":
            return PropertyListNode(content: .dictionary(try dictionary(tag)), offset: tag.offset)
        case "array":
            var elements: [PropertyListNode] = []
            if !tag.selfClosing {
                while true {
                    try skipMisc()
                    guard let inner = try startTag() else { break }
                    elements.append(try value(inner))
                }
                try endTag("array", opener: tag)
            }
            return PropertyListNode(content: .array(elements), offset: tag.offset)
        case "string":
            let (text, offsets) = tag.selfClosing ? ("", []) : try characterData(until: tag)
            return PropertyListNode(content: .string(text, fileOffsets: offsets), offset: tag.offset)
        case "true", "false":
            if !tag.selfClosing {
                let (text, _) = try characterData(until: tag)
                guard text.allSatisfy(\.isWhitespace) else {
                    throw XMLPropertyListError(message: "<\(tag.name)> holds no text", offset: tag.offset)
                }
            }
            return PropertyListNode(content: .boolean(tag.name == "true"), offset: tag.offset)
        case "integer", "real", "date", "data":
            let (text, _) = tag.selfClosing ? ("", []) : try characterData(until: tag)
            return PropertyListNode(content: .scalar(element: tag.name, text: text), offset: tag.offset)
        case "key":
            throw XMLPropertyListError(message: "a <key> outside a <dict>", offset: tag.offset)
        default:
            throw XMLPropertyListError(
                message: "<\(tag.name)> is not a property-list element (expected dict, array, string, true, "
                    + "false, integer, real, date or data)", offset: tag.offset)
        }
    }

    private mutating func dictionary(_ tag: Tag) throws(XMLPropertyListError) -> [PropertyListNode.Entry] {
        guard !tag.selfClosing else { return [] }
        var entries: [PropertyListNode.Entry] = []
        while true {
            try skipMisc()
            guard let keyTag = try startTag() else { break }
            guard keyTag.name == "key" else {
                throw XMLPropertyListError(
                    message: "expected <key> in <dict>, found <\(keyTag.name)>: every value needs a key before it",
                    offset: keyTag.offset)
            }
            let (key, _) = keyTag.selfClosing ? ("", []) : try characterData(until: keyTag)
            try skipMisc()
            guard let valueTag = try startTag() else {
                throw XMLPropertyListError(message: "the key '\(key)' has no value", offset: keyTag.offset)
            }
            entries.append(PropertyListNode.Entry(key: key, keyOffset: keyTag.offset, value: try value(valueTag)))
        }
        try endTag("dict", opener: tag)
        return entries
    }

    // MARK: - Tags and text

    /// Reads `<name …>` or `<name …/>`; `nil`, consuming nothing, when the next thing is an end tag.
    private mutating func startTag() throws(XMLPropertyListError) -> Tag? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "<") else {
            throw XMLPropertyListError(message: "unexpected text outside an element", offset: index)
        }
        if starts(with: "</") { return nil }
        let start = index
        index += 1
        let name = self.name()
        guard !name.isEmpty else {
            throw XMLPropertyListError(
                message: "'<' must be written '&lt;' in XML (a raw '<' starts a tag)", offset: start)
        }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ">"):
                index += 1
                return Tag(name: name, offset: start, selfClosing: false)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: ">"):
                index += 2
                return Tag(name: name, offset: start, selfClosing: true)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[index]
                let valueStart = index
                index += 1
                while index < bytes.count, bytes[index] != quote { index += 1 }
                guard index < bytes.count else {
                    throw XMLPropertyListError(message: "an attribute value is never closed", offset: valueStart)
                }
                index += 1
            case UInt8(ascii: "<"):
                throw XMLPropertyListError(message: "the tag <\(name) is never closed with '>'", offset: start)
            default:
                index += 1
            }
        }
        throw XMLPropertyListError(message: "the tag <\(name) is never closed with '>'", offset: start)
    }

    /// Reads `</name>` for the element opened by `opener`.
    private mutating func endTag(_ name: String, opener: Tag) throws(XMLPropertyListError) {
        let start = index
        guard starts(with: "</") else {
            throw XMLPropertyListError(message: "expected </\(name)> to close \(describe(opener))", offset: index)
        }
        index += 2
        let found = self.name()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
            throw XMLPropertyListError(message: "the end tag </\(found) is never closed with '>'", offset: start)
        }
        index += 1
        guard found == name else {
            throw XMLPropertyListError(
                message: "expected </\(name)> to close \(describe(opener)), found </\(found)>", offset: start)
        }
    }

    private func describe(_ tag: Tag) -> String {
        let (line, column) = LineTable(bytes).location(of: tag.offset)
        return "the <\(tag.name)> at \(line):\(column)"
    }

    /// The text of an element up to its end tag, entities and CDATA decoded, with the file offset
    /// of every decoded byte; consumes the end tag.
    private mutating func characterData(until tag: Tag) throws(XMLPropertyListError) -> (String, [Int32]) {
        var text: [UInt8] = []
        var offsets: [Int32] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    try endTag(tag.name, opener: tag)
                    return (String(decoding: text, as: UTF8.self), offsets)
                }
                if starts(with: "<!--") {
                    try skipComment()
                    continue
                }
                if starts(with: "<![CDATA[") {
                    let start = index
                    index += 9
                    while index < bytes.count, !starts(with: "]]>") {
                        text.append(bytes[index])
                        offsets.append(Int32(truncatingIfNeeded: index))
                        index += 1
                    }
                    guard index < bytes.count else {
                        throw XMLPropertyListError(
                            message: "the CDATA section is never closed with ']]>'", offset: start)
                    }
                    index += 3
                    continue
                }
                let offset = index
                index += 1
                let inner = name()
                let message =
                    inner.isEmpty
                    ? "'<' must be written '&lt;' inside <\(tag.name)>: a raw '<' starts a tag"
                    : "<\(tag.name)> holds text only, found <\(inner)>; close it with </\(tag.name)> first"
                throw XMLPropertyListError(message: message, offset: offset)
            }
            if byte == UInt8(ascii: "&") {
                let start = index
                let decoded = try entity()
                for decodedByte in decoded {
                    text.append(decodedByte)
                    offsets.append(Int32(truncatingIfNeeded: start))
                }
                continue
            }
            text.append(byte)
            offsets.append(Int32(truncatingIfNeeded: index))
            index += 1
        }
        throw XMLPropertyListError(message: "\(describe(tag)) is never closed with </\(tag.name)>", offset: tag.offset)
    }

    /// Decodes the entity at `&`: the five predefined ones and character references.
    private mutating func entity() throws(XMLPropertyListError) -> [UInt8] {
        let start = index
        var end = index + 1
        while end < bytes.count, end - start <= 12, bytes[end] != UInt8(ascii: ";"),
            isNameByte(bytes[end]) || bytes[end] == UInt8(ascii: "#")
        {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > start + 1 else {
            throw rawAmpersand(at: start)
        }
        let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
        index = end + 1
        switch name {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            var digits = Substring(name)
            guard digits.first == "#" else {
                throw XMLPropertyListError(
                    message: "unknown entity '&\(name);' (XML knows &amp; &lt; &gt; &quot; &apos;)", offset: start)
            }
            digits = digits.dropFirst()
            var radix = 10
            if digits.first == "x" || digits.first == "X" {
                radix = 16
                digits = digits.dropFirst()
            }
            guard let code = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(code) else {
                throw XMLPropertyListError(message: "invalid character reference '&\(name);'", offset: start)
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    private func rawAmpersand(at offset: Int) -> XMLPropertyListError {
        let doubled = offset + 1 < bytes.count && bytes[offset + 1] == UInt8(ascii: "&")
        let message =
            doubled
            ? "a raw '&&' is not valid XML: write '&amp;&amp;' or, better, AND"
            : "a raw '&' is not valid XML: write '&amp;'"
        return XMLPropertyListError(message: message, offset: offset)
    }

    // MARK: - Bytes

    private mutating func name() -> String {
        let start = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            return true
        default:
            return byte >= 0x80
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { prefix in
            var offset = 0
            while offset < count {
                if bytes[index + offset] != prefix[offset] { return false }
                offset += 1
            }
            return true
        }
    }

    private mutating func skip(
        past terminator: StaticString, what: String, from start: Int
    ) throws(XMLPropertyListError) {
        while index < bytes.count {
            if starts(with: terminator) {
                index += terminator.utf8CodeUnitCount
                return
            }
            index += 1
        }
        throw XMLPropertyListError(message: "\(what) is never closed with '\(terminator)'", offset: start)
    }
}
