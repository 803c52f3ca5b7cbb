import PredicateValue

/// Turns a rule's UTF-8 bytes into tokens (grammar.ebnf, "Lexical rules"). Longest match wins.
///
/// A lexical error does not stop the lexer's caller at once: it becomes an `.invalid` token,
/// which the parser reports when it reaches it, so errors are reported in source order.
struct Lexer {
    private let bytes: [UInt8]
    private var index = 0

    init(_ source: SourceText) {
        bytes = source.bytes
    }

    /// All tokens of the source, ending with `.end` or with the first `.invalid` token.
    mutating func tokenize() -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 3 + 1)
        while true {
            let token = next()
            tokens.append(token)
            switch token.kind {
            case .end, .invalid: return tokens
            default: continue
            }
        }
    }

    // MARK: - Character classes

    private func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return lower >= 0x61 && lower <= 0x7A
    }

    /// The Unicode scalar starting at `offset` and its length in bytes (the source is valid UTF-8).
    private func scalar(at offset: Int) -> (Unicode.Scalar, Int)? {
        guard let first = byte(at: offset) else { return nil }
        let length: Int
        if first < 0x80 {
            length = 1
        } else if first >> 5 == 0b110 {
            length = 2
        } else if first >> 4 == 0b1110 {
            length = 3
        } else {
            length = 4
        }
        guard offset + length <= bytes.count else { return nil }
        var decoder = UTF8()
        var iterator = bytes[offset..<(offset + length)].makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return (scalar, length) }
        return nil
    }

    /// The length of the identifier character at `offset` (0 when there is none). Identifiers
    /// are C identifiers, extended with Unicode letters and digits (SPEC §2.4.1, §9 item 18).
    private func identifierCharacterLength(at offset: Int, first: Bool) -> Int {
        guard let byte = byte(at: offset) else { return 0 }
        if byte < 0x80 {
            return Lexer.isASCIILetter(byte) || byte == 0x5F || (!first && Lexer.isDigit(byte)) ? 1 : 0
        }
        guard let (scalar, length) = scalar(at: offset) else { return 0 }
        let properties = scalar.properties
        if properties.isAlphabetic { return length }
        if !first, properties.numericType == .decimal { return length }
        return 0
    }

    /// The end offset of the identifier starting at `offset`, or `offset` when none starts there.
    private func identifierEnd(from offset: Int) -> Int {
        var end = offset
        var length = identifierCharacterLength(at: end, first: true)
        while length > 0 {
            end += length
            length = identifierCharacterLength(at: end, first: false)
        }
        return end
    }

    private func text(_ lower: Int, _ upper: Int) -> String {
        String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    // MARK: - Tokens

    /// Implements grammar rule `WHITESPACE` and the punctuation and operator tokens.
    private mutating func next() -> Token {
        while let byte = byte(at: index), Lexer.isWhitespace(byte) { index += 1 }
        let start = index
        guard let byte = byte(at: index) else { return Token(kind: .end, range: SourceRange(start, start)) }

        func single(_ kind: Token.Kind, length: Int = 1) -> Token {
            index += length
            return Token(kind: kind, range: SourceRange(start, index))
        }
        let following = self.byte(at: index + 1)

        switch byte {
        case UInt8(ascii: "("): return single(.leftParen)
        case UInt8(ascii: ")"): return single(.rightParen)
        case UInt8(ascii: "["): return single(.leftBracket)
        case UInt8(ascii: "]"): return single(.rightBracket)
        case UInt8(ascii: "{"): return single(.leftBrace)
        case UInt8(ascii: "}"): return single(.rightBrace)
        case UInt8(ascii: ","): return single(.comma)
        case UInt8(ascii: "."): return single(.dot)
        case UInt8(ascii: "+"): return single(.plus)
        case UInt8(ascii: "-"): return single(.minus)
        case UInt8(ascii: "/"): return single(.slash)
        case UInt8(ascii: "^"): return single(.bitXor)
        case UInt8(ascii: "~"): return single(.tilde)
        case UInt8(ascii: "*"): return following == UInt8(ascii: "*") ? single(.power, length: 2) : single(.star)
        case UInt8(ascii: "&"):
            return following == UInt8(ascii: "&") ? single(.logicalAnd, length: 2) : single(.bitAnd)
        case UInt8(ascii: "|"):
            return following == UInt8(ascii: "|") ? single(.logicalOr, length: 2) : single(.bitOr)
        case UInt8(ascii: "="):
            switch following {
            case UInt8(ascii: "="): return single(.equal, length: 2)
            case UInt8(ascii: "<"): return single(.lessEqual, length: 2)
            case UInt8(ascii: ">"): return single(.greaterEqual, length: 2)
            default: return single(.equal)
            }
        case UInt8(ascii: "!"):
            return following == UInt8(ascii: "=") ? single(.notEqual, length: 2) : single(.logicalNot)
        case UInt8(ascii: "<"):
            switch following {
            case UInt8(ascii: "<"): return single(.shiftLeft, length: 2)
            case UInt8(ascii: "="): return single(.lessEqual, length: 2)
            case UInt8(ascii: ">"): return single(.notEqual, length: 2)
            default: return single(.less)
            }
        case UInt8(ascii: ">"):
            switch following {
            case UInt8(ascii: ">"): return single(.shiftRight, length: 2)
            case UInt8(ascii: "="): return single(.greaterEqual, length: 2)
            default: return single(.greater)
            }
        case UInt8(ascii: ":"):
            if following == UInt8(ascii: "=") { return single(.assign, length: 2) }
            return single(.invalid(.unexpectedCharacter("':'")))
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            return lexString(quote: byte)
        case UInt8(ascii: "%"):
            return lexFormatSpecifier()
        case UInt8(ascii: "$"):
            return lexPrefixed(kind: { .variable($0) }, what: "a variable name after '$'", allowEscape: true)
        case UInt8(ascii: "@"):
            return lexPrefixed(kind: { .atKey("@" + $0) }, what: "a key name after '@'", allowEscape: false)
        case UInt8(ascii: "#"):
            return lexPrefixed(
                kind: { .identifier($0, escaped: true) }, what: "an identifier after '#'", allowEscape: false)
        default:
            if Lexer.isDigit(byte) { return lexNumber() }
            if identifierCharacterLength(at: index, first: true) > 0 { return lexWord() }
            return lexUnexpected()
        }
    }

    private mutating func lexUnexpected() -> Token {
        let start = index
        let (scalar, length) = scalar(at: index) ?? (Unicode.Scalar(0xFFFD) ?? "?", 1)
        index += length
        let shown: String
        if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .format {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            shown = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        } else if scalar == "\\" {
            shown = "'\\' (a backslash is only allowed inside a string literal)"
        } else {
            shown = "'\(Character(scalar))'"
        }
        return Token(kind: .invalid(.unexpectedCharacter(shown)), range: SourceRange(start, index))
    }

    /// `$name`, `$#name`, `@name`, `#name`: a one-character prefix glued to an identifier.
    /// Implements grammar rules `VARIABLE`, `AT_KEY`, `ESCAPED_IDENTIFIER`.
    private mutating func lexPrefixed(kind: (String) -> Token.Kind, what: String, allowEscape: Bool) -> Token {
        let start = index
        var nameStart = index + 1
        if allowEscape, byte(at: nameStart) == UInt8(ascii: "#") { nameStart += 1 }
        let end = identifierEnd(from: nameStart)
        guard end > nameStart else {
            index += 1
            let found = byte(at: index).map { _ in "'\(text(index, min(index + 1, bytes.count)))'" } ?? "end of input"
            return Token(kind: .invalid(.expected(what, found: found)), range: SourceRange(start, index))
        }
        index = end
        return Token(kind: kind(text(nameStart, end)), range: SourceRange(start, end))
    }

    /// An identifier, a keyword, a selector-style name (`modulus:by:`) or a UTI operator.
    /// Implements grammar rules `IDENT_SHAPE`, `IDENT_START`, `IDENT_CONTINUE`, `UNICODE_LETTER`,
    /// `UNICODE_DIGIT`, `IDENTIFIER`, `RESERVED_WORD`, `SELECTOR`, `UTI_CONFORMS_TO`, `UTI_EQUALS`.
    private mutating func lexWord() -> Token {
        let start = index
        let end = identifierEnd(from: start)
        let word = text(start, end)
        index = end

        if word.count == 3, word.uppercased() == "UTI" {
            for (suffix, kind) in [("-CONFORMS-TO", Token.Kind.utiConformsTo), ("-EQUALS", .utiEquals)]
            where matchesCaseInsensitively(suffix, at: end) {
                index = end + suffix.utf8.count
                return Token(kind: kind, range: SourceRange(start, index))
            }
        }
        if isSelectorColon(at: index) {
            // SELECTOR ::= IDENT ":" ( IDENT? ":" )*
            index += 1
            while true {
                if byte(at: index) == UInt8(ascii: ":"), isSelectorColon(at: index) {
                    index += 1
                    continue
                }
                let partEnd = identifierEnd(from: index)
                if partEnd > index, isSelectorColon(at: partEnd) {
                    index = partEnd + 1
                    continue
                }
                break
            }
            return Token(kind: .selector(text(start, index)), range: SourceRange(start, index))
        }
        if let keyword = Keyword(bytes: bytes[start..<end]) {
            return Token(kind: .keyword(keyword), range: SourceRange(start, end))
        }
        return Token(kind: .identifier(word, escaped: false), range: SourceRange(start, end))
    }

    private func isSelectorColon(at offset: Int) -> Bool {
        byte(at: offset) == UInt8(ascii: ":") && byte(at: offset + 1) != UInt8(ascii: "=")
    }

    private func matchesCaseInsensitively(_ word: String, at offset: Int) -> Bool {
        var position = offset
        for expected in word.utf8 {
            guard let actual = byte(at: position) else { return false }
            let folded = Lexer.isASCIILetter(actual) ? actual & ~0x20 : actual
            if folded != expected { return false }
            position += 1
        }
        return identifierCharacterLength(at: position, first: false) == 0
    }

    // MARK: - Numbers

    /// Decimal, fixed-point, exponent, `0x`, `0o` and `0b` forms (SPEC §2.6).
    /// Implements grammar rules `NUMBER`, `DECIMAL`, `FLOAT`, `EXPONENT`, `HEX`, `OCTAL`, `BINARY`,
    /// `DIGIT`, `HEX_DIGIT`.
    private mutating func lexNumber() -> Token {
        let start = index
        if bytes[index] == UInt8(ascii: "0"), let prefix = byte(at: index + 1) {
            let radix: Int? =
                switch prefix | 0x20 {
                case UInt8(ascii: "x"): 16
                case UInt8(ascii: "o"): 8
                case UInt8(ascii: "b"): 2
                default: nil
                }
            if let radix { return lexRadixNumber(radix: radix, start: start) }
        }
        while let byte = byte(at: index), Lexer.isDigit(byte) { index += 1 }
        var isFloatingPoint = false
        if byte(at: index) == UInt8(ascii: "."), let digit = byte(at: index + 1), Lexer.isDigit(digit) {
            isFloatingPoint = true
            index += 1
            while let byte = byte(at: index), Lexer.isDigit(byte) { index += 1 }
        }
        if let e = byte(at: index), e | 0x20 == UInt8(ascii: "e") {
            var exponentStart = index + 1
            if let sign = byte(at: exponentStart), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentStart += 1
            }
            if let digit = byte(at: exponentStart), Lexer.isDigit(digit) {
                isFloatingPoint = true
                index = exponentStart
                while let byte = byte(at: index), Lexer.isDigit(byte) { index += 1 }
            }
        }
        if let glued = gluedIdentifierEnd() { return invalidNumber(start, glued) }
        let literal = text(start, index)
        let range = SourceRange(start, index)
        if isFloatingPoint {
            guard let value = Double(literal) else { return invalidNumber(start, index) }
            return Token(kind: .number(.double(value)), range: range)
        }
        if let value = Int64(literal) { return Token(kind: .number(.int(value)), range: range) }
        if let value = UInt64(literal) { return Token(kind: .number(.uint(value)), range: range) }
        guard let value = Double(literal) else { return invalidNumber(start, index) }
        return Token(kind: .number(.double(value)), range: range)
    }

    private mutating func lexRadixNumber(radix: Int, start: Int) -> Token {
        index += 2
        let digitsStart = index
        var value: UInt64 = 0
        var overflowValue: Double = 0
        var overflowed = false
        while let byte = byte(at: index), let digit = Lexer.digitValue(byte), digit < radix {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: UInt64(radix))
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(digit))
            if overflowA || overflowB, !overflowed {
                overflowed = true
                overflowValue = Double(value)
            }
            if overflowed {
                overflowValue = overflowValue * Double(radix) + Double(digit)
            } else {
                value = sum
            }
            index += 1
        }
        if index == digitsStart || gluedIdentifierEnd() != nil {
            return invalidNumber(start, gluedIdentifierEnd() ?? index)
        }
        let number: Value =
            overflowed ? .double(overflowValue) : value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
        return Token(kind: .number(number), range: SourceRange(start, index))
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        if isDigit(byte) { return Int(byte - 0x30) }
        if isHexDigit(byte) { return Int((byte | 0x20) - 0x61 + 10) }
        return nil
    }

    /// `123abc` is one malformed number, not a number followed by a key.
    private func gluedIdentifierEnd() -> Int? {
        var end = index
        var length = identifierCharacterLength(at: end, first: false)
        while length > 0 {
            end += length
            length = identifierCharacterLength(at: end, first: false)
        }
        return end > index ? end : nil
    }

    private mutating func invalidNumber(_ start: Int, _ end: Int) -> Token {
        index = end
        return Token(kind: .invalid(.invalidNumber(text(start, index))), range: SourceRange(start, index))
    }

    // MARK: - Strings

    /// `'…'` or `"…"` with the escapes of SPEC §2.5.
    /// Implements grammar rules `STRING`, `ESCAPE`, `OCTAL_ESCAPE`, `HEX_ESCAPE`, `UNICODE_ESCAPE`.
    private mutating func lexString(quote: UInt8) -> Token {
        let start = index
        index += 1
        var decoded: [UInt8] = []
        var pendingHighSurrogate: UInt16?

        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        func flushSurrogate() {
            if pendingHighSurrogate != nil {
                appendScalar(0xFFFD)
                pendingHighSurrogate = nil
            }
        }

        while let byte = byte(at: index) {
            if byte == quote {
                flushSurrogate()
                index += 1
                return Token(kind: .string(String(decoding: decoded, as: UTF8.self)), range: SourceRange(start, index))
            }
            guard byte == UInt8(ascii: "\\") else {
                flushSurrogate()
                decoded.append(byte)
                index += 1
                continue
            }
            let escapeStart = index
            guard let escaped = self.byte(at: index + 1) else { break }
            index += 2
            if escaped | 0x20 == UInt8(ascii: "u") {
                guard let unit = readHexDigits(count: 4) else { return invalidEscape(escapeStart) }
                let codeUnit = UInt16(unit)
                if UTF16.isLeadSurrogate(codeUnit) {
                    flushSurrogate()
                    pendingHighSurrogate = codeUnit
                } else if UTF16.isTrailSurrogate(codeUnit), let high = pendingHighSurrogate {
                    pendingHighSurrogate = nil
                    appendScalar(0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(codeUnit - 0xDC00))
                } else {
                    flushSurrogate()
                    appendScalar(UTF16.isTrailSurrogate(codeUnit) ? 0xFFFD : UInt32(codeUnit))
                }
                continue
            }
            flushSurrogate()
            switch escaped {
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "v"): decoded.append(0x0B)
            case UInt8(ascii: "a"): decoded.append(0x07)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                guard let value = readHexDigits(count: 2) else { return invalidEscape(escapeStart) }
                appendScalar(value)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                if let second = self.byte(at: index), let third = self.byte(at: index + 1),
                    (0x30...0x37).contains(second), (0x30...0x37).contains(third)
                {
                    appendScalar(UInt32(escaped - 0x30) << 6 | UInt32(second - 0x30) << 3 | UInt32(third - 0x30))
                    index += 2
                } else {
                    decoded.append(escaped)
                }
            default:
                // `\\`, `\'`, `\"` and any other `\c` stand for the character itself; a
                // multi-byte character is copied by the loop.
                if escaped < 0x80 {
                    decoded.append(escaped)
                } else {
                    index -= 1
                }
            }
        }
        index = bytes.count
        return Token(kind: .invalid(.unterminatedString), range: SourceRange(start, start + 1))
    }

    private mutating func readHexDigits(count: Int) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<count {
            guard let byte = byte(at: index + offset), Lexer.isHexDigit(byte), let digit = Lexer.digitValue(byte)
            else { return nil }
            value = value << 4 | UInt32(digit)
        }
        index += count
        return value
    }

    private mutating func invalidEscape(_ start: Int) -> Token {
        var end = min(start + 2, bytes.count)
        while end < min(start + 6, bytes.count), Lexer.isHexDigit(bytes[end]) { end += 1 }
        index = bytes.count
        return Token(kind: .invalid(.invalidEscape(text(start, end))), range: SourceRange(start, end))
    }

    // MARK: - Format specifiers

    private static let conversions: Set<UInt8> = Set("@KdiDuUoOxXcCeEfgGaAsSp%".utf8)
    private static let lengthModifiers: Set<UInt8> = Set("hlqL".utf8)

    /// `%@`, `%K`, `%%`, `%d`, `%lld`, … (SPEC §2.8).
    /// Implements grammar rules `FORMAT_SPECIFIER`, `LENGTH_MODIFIER`, `CONVERSION`.
    private mutating func lexFormatSpecifier() -> Token {
        let start = index
        index += 1
        var modifiers = 0
        while modifiers < 2, let byte = byte(at: index), Lexer.lengthModifiers.contains(byte) {
            index += 1
            modifiers += 1
        }
        guard let conversion = byte(at: index), Lexer.conversions.contains(conversion),
            modifiers == 0
                || (conversion != UInt8(ascii: "@") && conversion != UInt8(ascii: "K")
                    && conversion != UInt8(ascii: "%"))
        else {
            if let (_, length) = scalar(at: index) { index += length }
            let written = text(start, index)
            return Token(kind: .invalid(.unrecognizedConversion(written)), range: SourceRange(start, index))
        }
        index += 1
        let specifier = FormatSpecifier(text: text(start, index), conversion: Character(Unicode.Scalar(conversion)))
        return Token(kind: .format(specifier), range: SourceRange(start, index))
    }
}
