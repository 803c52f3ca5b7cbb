/// Why a text is not valid JSON, and where.
///
/// Positions are 1-based. Lines break at LF, CR or CR LF; columns count Unicode scalars (not
/// bytes, not UTF-16 units), so a column matches what an editor shows for most text.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for example `expected ',' or ']' after an array element`.
    public let message: String
    /// The 1-based line of the offending byte.
    public let line: Int
    /// The 1-based column of the offending byte, in Unicode scalars.
    public let column: Int
    /// The 0-based UTF-8 byte offset of the offending byte.
    public let offset: Int
    /// Whether the text is refused only because its root array holds more elements than the
    /// caller allowed (`maximumRootElements`), rather than because it is malformed.
    public var exceedsRootElementLimit = false

    /// Creates an error at a given position.
    public init(message: String, line: Int, column: Int, offset: Int) {
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}

extension JSON {
    /// The nesting depth `parse(_:maximumDepth:)` accepts by default.
    public static let defaultMaximumDepth = 512

    /// Parses one JSON text (RFC 8259, strictly).
    ///
    /// Strict means: no comments, no trailing commas, no single quotes, no `NaN`, no leading
    /// zeros or `+` signs, no raw control characters in strings, no byte order mark, no unpaired
    /// UTF-16 surrogates in `\u` escapes, and well-formed UTF-8 only. Any whitespace RFC 8259
    /// allows may surround the value; anything else after it is an error.
    ///
    /// The reader is iterative, so hostile nesting cannot overflow the stack; `maximumDepth`
    /// still bounds it because consumers (conversion, printing) recurse. Work is linear in the
    /// input size.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text.
    ///   - maximumDepth: The most arrays and objects that may be open at once.
    /// - Returns: The document.
    /// - Throws: A ``JSONParseError`` naming the first problem and its position.
    ///   - maximumRootElements: The most elements a root array may hold: a larger one is refused
    ///     as soon as its next element starts, before the rest is read, so that a caller with a
    ///     limit on the count (a selection of items) never holds the whole document.
    public static func parse(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth, maximumRootElements: Int = .max
    ) throws(JSONParseError) -> JSON {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSON in
                var reader = JSONReader(buffer, maximumDepth: maximumDepth, maximumRootElements: maximumRootElements)
                return try reader.parseDocument()
            }
        }
        return try result.get()
    }

    /// Parses one JSON text held in a byte buffer; see `parse(_:maximumDepth:)`.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text; only read during the call.
    ///   - maximumDepth: The most arrays and objects that may be open at once.
    /// - Returns: The document.
    /// - Throws: A ``JSONParseError`` naming the first problem and its position.
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSON {
        var reader = JSONReader(bytes, maximumDepth: maximumDepth, maximumRootElements: .max)
        return try reader.parseDocument()
    }

    /// Parses one JSON text held in a string; see `parse(_:maximumDepth:)`.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - maximumDepth: The most arrays and objects that may be open at once.
    /// - Returns: The document.
    /// - Throws: A ``JSONParseError`` naming the first problem and its position.
    public static func parse(
        _ text: String, maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }
}

/// A single-pass reader over UTF-8 bytes. Containers are tracked on an explicit stack rather
/// than by recursion so that depth costs heap, not call stack.
struct JSONReader {
    /// A container that is open while its elements are read.
    private struct Frame {
        var isObject: Bool
        var elements: [JSON] = []
        var members: [(key: String, value: JSON)] = []
        /// The key whose value is being read (objects only).
        var key = ""
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumDepth: Int
    private let maximumRootElements: Int
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, maximumRootElements: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.maximumRootElements = maximumRootElements
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw error("a byte order mark is not allowed", at: 0)
        }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describeByte(at: index)) after the JSON value", at: index)
        }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        var stack: [Frame] = []
        while true {
            // Read the start of a value: either a scalar, or an opening bracket (which pushes a
            // frame and loops to read the container's first element).
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input, expected a value", at: index) }
            var value: JSON
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard stack.count < maximumDepth else {
                    throw error("nesting is deeper than \(maximumDepth) levels", at: index)
                }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: isObject ? "}" : "]") {
                    index += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    var frame = Frame(isObject: isObject)
                    if isObject { frame.key = try parseKey() }
                    stack.append(frame)
                    continue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw error("unexpected \(describeByte(at: index)), expected a value", at: index)
            }

            // Hand the finished value to the innermost open container; if that container is now
            // closed, it becomes the finished value for the next one out.
            while true {
                guard let top = stack.indices.last else { return value }
                skipWhitespace()
                let next: UInt8? = index < bytes.count ? bytes[index] : nil
                if stack[top].isObject {
                    stack[top].members.append((key: stack[top].key, value: value))
                    if next == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        stack[top].key = try parseKey()
                        break
                    } else if next == UInt8(ascii: "}") {
                        index += 1
                        value = .object(stack.removeLast().members)
                    } else {
                        throw unexpected("expected ',' or '}' after an object member")
                    }
                } else {
                    stack[top].elements.append(value)
                    if next == UInt8(ascii: ",") {
                        if top == 0, stack[top].elements.count >= maximumRootElements {
                            var refusal = error(
                                "the array holds more than \(maximumRootElements) elements", at: index + 1)
                            refusal.exceedsRootElementLimit = true
                            throw refusal
                        }
                        index += 1
                        break
                    } else if next == UInt8(ascii: "]") {
                        index += 1
                        value = .array(stack.removeLast().elements)
                    } else {
                        throw unexpected("expected ',' or ']' after an array element")
                    }
                }
            }
        }
    }

    /// Reads `"key"` and the `:` after it; the reader is at the opening quote.
    private mutating func parseKey() throws(JSONParseError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw unexpected("expected a string key")
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw unexpected("expected ':' after an object key")
        }
        index += 1
        return key
    }

    /// Reads a string; the reader is at the opening quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Text without escapes (the common case) is decoded straight from the input; the first
        // escape switches to building the UTF-8 in a buffer.
        var buffer: [UInt8] = []
        var escaped = false
        var segmentStart = start
        while true {
            guard index < bytes.count else { throw error("unexpected end of input in a string", at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text: String
                if escaped {
                    buffer.append(contentsOf: bytes[segmentStart..<index])
                    text = String(decoding: buffer, as: UTF8.self)
                } else {
                    text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                buffer.append(contentsOf: bytes[segmentStart..<index])
                escaped = true
                try parseEscape(into: &buffer)
                segmentStart = index
            case 0x00..<0x20:
                throw error("control character U+\(jsonHex(byte, width: 4)) in a string must be escaped", at: index)
            case 0x80...:
                try skipUTF8Sequence()
            default:
                index += 1
            }
        }
    }

    /// Reads one escape sequence and appends its UTF-8; the reader is at the backslash.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw error("unexpected end of input in a string", at: index) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired low surrogate in a \\u escape", at: escapeStart)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate is only meaningful followed by a low one: together they
                // spell one scalar beyond U+FFFF. Alone, it cannot become valid UTF-8.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error("unpaired high surrogate in a \\u escape", at: escapeStart)
                }
                let lowStart = index
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("expected a low surrogate after a high surrogate", at: lowStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicodeScalar = Unicode.Scalar(scalar) else {
                throw error("invalid \\u escape", at: escapeStart)
            }
            UTF8.encode(unicodeScalar) { buffer.append($0) }
        default:
            throw error("invalid escape sequence '\\\(describeCharacter(byte))'", at: escapeStart)
        }
    }

    /// Reads the four hex digits of a `\u` escape.
    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unexpected end of input in a \\u escape", at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected 4 hex digits after \\u", at: index)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Checks one multi-byte UTF-8 sequence (Unicode Table 3-7: no overlong forms, no
    /// surrogates, nothing past U+10FFFF) and steps over it.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw error("invalid UTF-8 byte 0x\(jsonHex(lead))", at: index)
        }
        for offset in 1..<length {
            let range = offset == 1 ? secondRange : 0x80...0xBF
            guard index + offset < bytes.count, range.contains(bytes[index + offset]) else {
                throw error("invalid UTF-8 sequence starting with byte 0x\(jsonHex(lead))", at: index)
            }
        }
        index += length
    }

    /// Reads a number, checking the RFC 8259 grammar; the reader is at `-` or a digit.
    private mutating func parseNumber() throws(JSONParseError) -> JSON.Number {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected("expected a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("a number must not have leading zeros", at: index - 1)
            }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected("expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw unexpected("expected a digit in the exponent")
            }
            skipDigits()
        }
        return JSON.Number(
            unchecked: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = index
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else {
                throw error("invalid literal, expected '\(literal)'", at: start)
            }
            index += 1
        }
        // `nullx` or `true1` would otherwise fail later with a less helpful message.
        if index < bytes.count, isIdentifierByte(bytes[index]) {
            throw error("invalid literal, expected '\(literal)'", at: start)
        }
    }

    private func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte == 0x5F
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    // MARK: Errors

    /// An error at the current position, naming what was found there.
    private func unexpected(_ expectation: String) -> JSONParseError {
        let found = index < bytes.count ? describeByte(at: index) : "end of input"
        return error("\(expectation), found \(found)", at: index)
    }

    private func error(_ message: String, at offset: Int) -> JSONParseError {
        // Positions are worked out only when an error is reported, so the happy path pays
        // nothing for line tracking.
        let end = min(max(0, offset), bytes.count)
        var line = 1
        var lineStart = 0
        var position = 0
        while position < end {
            let byte = bytes[position]
            if byte == 0x0A || (byte == 0x0D && (position + 1 >= bytes.count || bytes[position + 1] != 0x0A)) {
                line += 1
                lineStart = position + 1
            }
            position += 1
        }
        // Counting bytes that do not continue a sequence counts scalars in valid UTF-8.
        let column = bytes[lineStart..<end].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return JSONParseError(message: message, line: line, column: column, offset: end)
    }

    /// A readable name for the byte (or the character it starts) at `offset`.
    private func describeByte(at offset: Int) -> String {
        let byte = bytes[offset]
        if byte >= 0x80 {
            var end = offset + 1
            while end < bytes.count, end - offset < 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
            var decoder = UTF8()
            var iterator = bytes[offset..<end].makeIterator()
            if case .scalarValue(let scalar) = decoder.decode(&iterator) {
                return "character U+\(jsonHex(scalar.value, width: 4))"
            }
            return "byte 0x\(jsonHex(byte))"
        }
        if byte < 0x20 || byte == 0x7F { return "character U+\(jsonHex(UInt32(byte), width: 4))" }
        return "character '\(describeCharacter(byte))'"
    }

    private func describeCharacter(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "U+\(jsonHex(UInt32(byte), width: 4))"
    }
}

/// Upper-case hex, zero-padded to `width` digits.
func jsonHex(_ value: some BinaryInteger, width: Int = 2) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
