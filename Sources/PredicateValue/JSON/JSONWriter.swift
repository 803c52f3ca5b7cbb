extension JSON {
    /// The document as compact JSON text: no whitespace between tokens, members in order,
    /// numbers as written.
    ///
    /// Strings escape `"` and `\`, use `\b \f \n \r \t` for those characters, and `\u00XX` for
    /// the other C0 controls and DEL; U+2028 and U+2029 become `\u2028` and `\u2029` so the
    /// text is also a valid JavaScript literal. Everything else is written as UTF-8. Swift
    /// strings are always valid Unicode, so the output is always valid UTF-8.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// Appends the compact JSON text of the document to `output`; see ``serialized``.
    ///
    /// - Parameter output: The string to append to.
    public func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let number): output += number.text
        case .string(let value): JSON.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { output += "," }
                JSON.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    /// Appends `string` as a quoted JSON string literal to `output`.
    ///
    /// - Parameters:
    ///   - string: The text to quote.
    ///   - output: The string to append to.
    public static func writeString(_ string: String, to output: inout String) {
        // Most strings need no escaping at all: check the UTF-8 once and append the string whole,
        // which is far cheaper than rebuilding it.
        let needsEscaping = string.utf8.contains {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F || $0 == 0xE2
        }
        guard needsEscaping else {
            output += "\""
            output += string
            output += "\""
            return
        }
        let source = Array(string.utf8)
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(source.count + 16)
        var index = 0
        while index < source.count {
            let byte = source[index]
            index += 1
            // U+2028 and U+2029 (E2 80 A8, E2 80 A9) end lines in JavaScript.
            if byte == 0xE2, index + 1 < source.count, source[index] == 0x80, source[index + 1] & 0xFE == 0xA8 {
                bytes += Array((source[index + 1] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 2
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20, 0x7F: bytes += Array(("\\u" + jsonHex(byte, width: 4).lowercased()).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        output += String(decoding: bytes, as: UTF8.self)
    }
}
