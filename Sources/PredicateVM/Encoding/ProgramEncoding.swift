import Foundation
import PredicateSyntax
import PredicateValue

/// The constants of the serialized program format, for tools that recognise or produce it.
///
/// A compiled rule is serialized so that it can be cached or shipped to another process and
/// loaded without the parser or compiler; loading re-checks everything, so the bytes need not
/// be trusted. Fixed-width integers are little-endian; a varint is unsigned LEB128 of at most
/// ten bytes; a string is a varint byte count and that many bytes of UTF-8.
///
/// | Part | Content |
/// |---|---|
/// | header | magic `PRED`, version (UInt16), body length (UInt32), CRC-32 of the body (UInt32) |
/// | body | the nine sections below, in this order, each: id (UInt8), payload length (varint), payload |
/// | 1 kind | one byte: 0 predicate, 1 expression, 2 rule set |
/// | 2 code | varint count; per instruction its opcode and its three ``Instruction/operands`` bytes |
/// | 3 constants | varint count; per constant a ``ValueTag`` and its payload |
/// | 4 key paths | varint count; per path a varint count of components, each a tag and its payload |
/// | 5 variables | varint count; the names, as strings |
/// | 6 source ranges | varint count; per range its lower and upper bounds, varints |
/// | 7 limits | maximum stack depth and maximum `SUBQUERY` depth, varints |
/// | 8 source | the rule's text: the whole payload, UTF-8 |
///
/// Key-path components are tag 0 and a key, tag 1 and a variable name, or tag 2 and a bound
/// field: its schema's type name, its slot (varint) and its key. Loading resolves a field
/// against the schemas the caller passes, by type name, and refuses it unless that slot still
/// answers that key.
///
/// The checksum is CRC-32 (IEEE 802.3, reflected polynomial `0xEDB88320`, as zlib computes
/// it) over the body, so that corruption is reported as such rather than as whatever
/// structural error it happens to cause. Encoding is deterministic: dictionary entries are
/// sorted by the UTF-8 bytes of their keys, everything else is in program order, and every
/// instruction has one encoding (unused operand bytes are zero).
public enum ProgramFormat {
    /// The first four bytes of every serialized program: `PRED`.
    public static let magic: [UInt8] = Array("PRED".utf8)
    /// The format version this build writes and the only one it reads. The opcode numbers
    /// (``Opcode``'s raw values, in declaration order), the operand layout and ``ValueTag`` are
    /// part of the format: changing any of them needs a new version.
    public static let version: UInt16 = 2
    /// Magic, version, body length and checksum: the bytes before the first section.
    public static let headerSize = 14
    /// How deeply constants (arrays, sets, dictionaries) may nest: the parser allows 128 levels
    /// by default, format arguments a little more; the limit keeps a hostile input from
    /// exhausting the decoder's call stack. 512 overflowed a test thread's stack under
    /// AddressSanitizer, whose frames are larger; 256 leaves room.
    public static let maximumConstantNesting = 256
}

/// The sections of a serialized program, by id, in the order they appear.
public enum ProgramSection: UInt8, Hashable, Sendable, CaseIterable {
    /// Predicate or expression.
    case kind = 1
    /// The instructions.
    case code
    /// The constant pool.
    case constants
    /// The key-path table.
    case keyPaths
    /// The variable names.
    case variables
    /// One source range per instruction.
    case sourceRanges
    /// Maximum stack and `SUBQUERY` depths.
    case limits
    /// The rule's source text.
    case source
    /// The comparison sites of `TEST`, `TEST_AND` and `TEST_OR`.
    case comparisons
}

/// The tags of serialized constants: one byte before each value's payload.
///
/// Numbers get the compact encodings (zigzag varint for `int`, varint for `uint`), floating
/// values their exact bit patterns so that NaN payloads and signed zeros survive, and decimals
/// their textual form, the one representation `Decimal` guarantees to read back.
public enum ValueTag: UInt8, Hashable, Sendable, CaseIterable {
    /// `nil`; no payload.
    case `nil`
    /// `null`; no payload.
    case null
    /// `false`; no payload.
    case `false`
    /// `true`; no payload.
    case `true`
    /// A signed integer: zigzag varint.
    case int
    /// An unsigned integer: varint.
    case uint
    /// A double: its bit pattern, UInt64.
    case double
    /// A decimal: its description, as a string.
    case decimal
    /// A string.
    case string
    /// A date: the bit pattern of its seconds since the reference date, UInt64.
    case date
    /// Bytes: varint count and the bytes.
    case data
    /// An array: varint count and the elements.
    case array
    /// A set: varint count and the elements, in their order.
    case set
    /// A dictionary: varint count, then key (string) and value pairs sorted by key bytes.
    case dictionary
}

/// Why ``Program/serialized()`` refused a program: it holds something the format cannot carry.
public enum ProgramEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Constant `index` is (or contains) a host object, which has no serialized form: it exists
    /// only in the process that created it.
    case objectConstant(index: Int)
    /// Constant `index` nests deeper than ``ProgramFormat/maximumConstantNesting``, so it could
    /// not be loaded back.
    case constantTooDeep(index: Int)
    /// The body would be larger than the header's 32-bit length can say.
    case tooLarge(bytes: Int)

    /// The reason, for people.
    public var description: String {
        switch self {
        case .objectConstant(let index): return "constant \(index) is a host object, which cannot be serialized"
        case .constantTooDeep(let index):
            return "constant \(index) nests deeper than \(ProgramFormat.maximumConstantNesting) levels"
        case .tooLarge(let bytes): return "the program's body (\(bytes) bytes) exceeds 4 GiB"
        }
    }
}

/// Why bytes could not be loaded as a ``Program``: where in the bytes, and what was wrong.
public struct ProgramLoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong. Payloads carry what was found, so a message (and a test) can be exact.
    public enum Reason: Hashable, Sendable {
        /// The bytes end before a fixed-size item that should be there.
        case truncated
        /// The bytes do not start with ``ProgramFormat/magic``: not a program at all.
        case badMagic
        /// A version this build cannot read.
        case unsupportedVersion(UInt16)
        /// The body's CRC-32 differs from the header's: the bytes were damaged.
        case checksumMismatch(stored: UInt32, computed: UInt32)
        /// Bytes after the declared body, or after the last section inside it.
        case trailingBytes(count: Int)
        /// A section is missing or out of order.
        case unexpectedSection(expected: ProgramSection, found: UInt8)
        /// A section's content ended before its declared length.
        case sectionLengthMismatch(ProgramSection)
        /// A length or count that the remaining bytes cannot hold: a lying length field,
        /// refused before anything is allocated for it.
        case lengthOutOfBounds(length: UInt64, available: Int)
        /// A varint longer than ten bytes or above `UInt64.max`.
        case invalidVarint
        /// A number that does not fit where it goes (a depth or a source position above `Int.max`).
        case numberOutOfRange(UInt64)
        /// A kind byte other than 0 (predicate), 1 (expression) or 2 (rule set).
        case invalidKind(UInt8)
        /// Instruction `instruction` has an opcode no ``Opcode`` has.
        case unknownOpcode(UInt8, instruction: Int)
        /// Instruction `instruction` has an operand that names nothing (an `INDEX_SYM` of 7, a
        /// `CMP` operator past the last).
        case invalidOperand(instruction: Int)
        /// A comparison site's operator or quantifier number that names none.
        case invalidOperatorCode(UInt8)
        /// Instruction `instruction` has non-zero bytes where its opcode has no operand: every
        /// program has exactly one encoding.
        case nonCanonicalOperands(instruction: Int)
        /// A constant tag that is not a ``ValueTag``.
        case invalidValueTag(UInt8)
        /// A key-path component tag other than 0, 1 or 2.
        case invalidKeyComponentTag(UInt8)
        /// A string that is not valid UTF-8.
        case invalidUTF8
        /// A decimal constant whose text does not read as a decimal.
        case invalidDecimal(String)
        /// Constants nested deeper than ``ProgramFormat/maximumConstantNesting``.
        case nestingTooDeep
        /// A dictionary constant with the same key twice.
        case duplicateDictionaryKey(String)
        /// A source range whose upper bound is below its lower bound.
        case invalidSourceRange(lower: UInt64, upper: UInt64)
        /// A bound field names a schema the caller did not pass.
        case unknownSchema(typeName: String)
        /// The caller passed two different schemas with the type name a bound field names.
        case ambiguousSchema(typeName: String)
        /// A bound field's slot is past the end of its schema's fields.
        case fieldSlotOutOfRange(typeName: String, slot: UInt64, fieldCount: Int)
        /// A bound field's slot is a field that does not answer the field's key: the program was
        /// compiled against a different version of the schema.
        case fieldKeyMismatch(typeName: String, slot: Int, key: String)
        /// The program decoded, but the ``Verifier`` refused it.
        case verificationFailed(VerificationError)
    }

    /// The byte offset in the input where the problem was found.
    public let offset: Int
    /// What was wrong.
    public let reason: Reason

    /// Creates an error; the loader is the only producer outside tests.
    public init(offset: Int, _ reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// The problem and its byte offset, for people.
    public var description: String { "byte \(offset): \(reasonDescription)" }

    private var reasonDescription: String {
        switch reason {
        case .truncated: return "the program is truncated"
        case .badMagic: return "not a serialized predicate program (wrong magic bytes)"
        case .unsupportedVersion(let version):
            return "format version \(version) is not supported (this build reads \(ProgramFormat.version))"
        case .checksumMismatch(let stored, let computed):
            return "checksum mismatch: stored \(hex(stored)), computed \(hex(computed))"
        case .trailingBytes(let count): return "\(count) unexpected trailing bytes"
        case .unexpectedSection(let expected, let found): return "expected section \(expected), found id \(found)"
        case .sectionLengthMismatch(let section): return "section \(section) is shorter than its declared length"
        case .lengthOutOfBounds(let length, let available):
            return "length \(length) exceeds the \(available) bytes available"
        case .invalidVarint: return "invalid varint"
        case .numberOutOfRange(let number): return "number \(number) is out of range"
        case .invalidKind(let kind): return "invalid program kind \(kind)"
        case .unknownOpcode(let opcode, let instruction): return "instruction \(instruction): unknown opcode \(opcode)"
        case .invalidOperand(let instruction): return "instruction \(instruction): an operand names nothing"
        case .invalidOperatorCode(let code): return "comparison site: operator or quantifier \(code) names nothing"
        case .nonCanonicalOperands(let instruction): return "instruction \(instruction): unused operand bytes are set"
        case .invalidValueTag(let tag): return "invalid constant tag \(tag)"
        case .invalidKeyComponentTag(let tag): return "invalid key-path component tag \(tag)"
        case .invalidUTF8: return "a string is not valid UTF-8"
        case .invalidDecimal(let text): return "'\(text)' is not a decimal number"
        case .nestingTooDeep: return "constants nest deeper than \(ProgramFormat.maximumConstantNesting) levels"
        case .duplicateDictionaryKey(let key): return "dictionary key '\(key)' appears twice"
        case .invalidSourceRange(let lower, let upper): return "invalid source range \(lower)..<\(upper)"
        case .unknownSchema(let name): return "no schema named \(name) was supplied"
        case .ambiguousSchema(let name): return "two different schemas named \(name) were supplied"
        case .fieldSlotOutOfRange(let name, let slot, let count):
            return "\(name) has \(count) fields; the program reads slot \(slot)"
        case .fieldKeyMismatch(let name, let slot, let key):
            return "slot \(slot) of \(name) does not answer '\(key)': the schema does not match"
        case .verificationFailed(let error): return "the program does not verify: \(error)"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

// MARK: - Serialization

extension Program {
    /// The program in the serialized format (``ProgramFormat``), for caching compiled rules or
    /// shipping them to another process, which loads them with ``init(bytes:schemas:)``.
    ///
    /// - Throws: ``ProgramEncodingError`` when a constant is a host object, which only exists
    ///   in this process.
    public func serialized() throws(ProgramEncodingError) -> [UInt8] {
        var body = ByteWriter()
        body.section(.kind) { $0.byte(kind.rawValue) }
        body.section(.code) { writer in
            writer.count(code.count)
            for instruction in code {
                let operands = instruction.operands
                writer.bytes([instruction.opcode.rawValue, operands.0, operands.1, operands.2])
            }
        }
        var constantsWriter = ByteWriter()
        constantsWriter.count(constants.count)
        for (index, constant) in constants.enumerated() {
            try constantsWriter.value(constant, index: index, depth: 0)
        }
        body.section(.constants) { $0.bytes(constantsWriter.bytes) }
        body.section(.keyPaths) { writer in
            writer.count(keyPaths.count)
            for path in keyPaths {
                writer.count(path.count)
                for component in path { writer.component(component) }
            }
        }
        body.section(.variables) { writer in
            writer.count(variables.count)
            for name in variables { writer.string(name) }
        }
        body.section(.sourceRanges) { writer in
            writer.count(sourceRanges.count)
            for range in sourceRanges {
                writer.varint(UInt64(clamping: range.lowerBound))
                writer.varint(UInt64(clamping: range.upperBound))
            }
        }
        body.section(.limits) { writer in
            writer.varint(UInt64(clamping: maximumStackDepth))
            writer.varint(UInt64(clamping: maximumSubqueryDepth))
        }
        body.section(.source) { $0.bytes(Array(source.utf8)) }
        body.section(.comparisons) { writer in
            writer.count(comparisons.count)
            for site in comparisons {
                switch site.receiver {
                case .evaluatedObject: writer.varint(0)
                case .variable(let slot): writer.varint(UInt64(slot) + 1)
                }
                writer.varint(UInt64(site.keyPath))
                writer.varint(UInt64(site.constant))
                writer.bytes([site.op.code, site.options.rawValue, site.quantifier.code])
                writer.varint(UInt64(clamping: site.keyPathRange.lowerBound))
                writer.varint(UInt64(clamping: site.keyPathRange.upperBound))
            }
        }

        guard let length = UInt32(exactly: body.bytes.count) else { throw .tooLarge(bytes: body.bytes.count) }
        var output = ByteWriter()
        output.bytes(ProgramFormat.magic)
        output.fixed(UInt64(ProgramFormat.version), width: 2)
        output.fixed(UInt64(length), width: 4)
        output.fixed(UInt64(CRC32.checksum(body.bytes[...])), width: 4)
        output.bytes(body.bytes)
        return output.bytes
    }
}

/// Appends the format's primitives to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func bytes(_ values: [UInt8]) { bytes.append(contentsOf: values) }

    mutating func fixed(_ value: UInt64, width: Int) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func count(_ count: Int) { varint(UInt64(clamping: count)) }

    mutating func string(_ text: String) {
        count(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    /// Writes a section: its id, its payload's length, its payload.
    mutating func section(_ section: ProgramSection, _ write: (inout ByteWriter) -> Void) {
        var payload = ByteWriter()
        write(&payload)
        byte(section.rawValue)
        count(payload.bytes.count)
        bytes(payload.bytes)
    }

    mutating func component(_ component: KeyComponent) {
        switch component {
        case .key(let key):
            byte(0)
            string(key)
        case .variable(let name):
            byte(1)
            string(name)
        case .field(let field):
            byte(2)
            string(field.schema.schema.typeName)
            count(field.slot)
            string(field.key)
        }
    }

    mutating func value(_ value: Value, index: Int, depth: Int) throws(ProgramEncodingError) {
        guard depth < ProgramFormat.maximumConstantNesting else { throw .constantTooDeep(index: index) }
        switch value {
        case .nil: byte(ValueTag.nil.rawValue)
        case .null: byte(ValueTag.null.rawValue)
        case .bool(let flag): byte(flag ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case .int(let number):
            byte(ValueTag.int.rawValue)
            varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        case .uint(let number):
            byte(ValueTag.uint.rawValue)
            varint(number)
        case .double(let number):
            byte(ValueTag.double.rawValue)
            fixed(number.bitPattern, width: 8)
        case .decimal(let number):
            byte(ValueTag.decimal.rawValue)
            string(number.description)
        case .string(let text):
            byte(ValueTag.string.rawValue)
            string(text)
        case .date(let seconds):
            byte(ValueTag.date.rawValue)
            fixed(seconds.bitPattern, width: 8)
        case .data(let data):
            byte(ValueTag.data.rawValue)
            count(data.count)
            bytes(data)
        case .array(let elements), .set(let elements):
            byte(value.isSet ? ValueTag.set.rawValue : ValueTag.array.rawValue)
            count(elements.count)
            for element in elements { try self.value(element, index: index, depth: depth + 1) }
        case .dictionary(let entries):
            byte(ValueTag.dictionary.rawValue)
            count(entries.count)
            let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (key, element) in sorted {
                string(key)
                try self.value(element, index: index, depth: depth + 1)
            }
        case .object:
            throw .objectConstant(index: index)
        }
    }
}

extension Value {
    fileprivate var isSet: Bool {
        if case .set = self { return true }
        return false
    }
}

// MARK: - Loading

extension Program {
    /// Loads a program serialized by ``serialized()``, checking everything a hostile or damaged
    /// input could get wrong, then running the ``Verifier``: a program that loads is safe to run.
    ///
    /// - Parameters:
    ///   - bytes: The serialized program.
    ///   - schemas: The schemas bound fields may name, matched by type name. Each bound field
    ///     must name one of them, and its slot must still answer its key, so a program compiled
    ///     against another version of a schema is refused instead of reading the wrong field.
    ///   - limits: How large a program to accept (see ``ProgramLimits``).
    /// - Throws: ``ProgramLoadError``, with the byte offset of the problem.
    public init(
        bytes: [UInt8], schemas: [Schema] = [], limits: ProgramLimits = ProgramLimits()
    ) throws(ProgramLoadError) {
        var reader = ByteReader(bytes: bytes, position: 0, end: bytes.count)
        try reader.header()
        let bodyStart = reader.position
        var fields = FieldResolver(schemas: schemas)

        let kindByte = try reader.section(.kind) { reader throws(ProgramLoadError) in try reader.byte() }
        guard let kind = Kind(rawValue: kindByte) else {
            throw ProgramLoadError(offset: reader.position - 1, .invalidKind(kindByte))
        }
        var codeStart = 0
        let code = try reader.section(.code) { reader throws(ProgramLoadError) in
            try reader.instructions(codeStart: &codeStart)
        }
        let constants = try reader.section(.constants) { reader throws(ProgramLoadError) in
            try reader.array(minimumElementSize: 1) { reader throws(ProgramLoadError) in try reader.value(depth: 0) }
        }
        let keyPaths = try reader.section(.keyPaths) { reader throws(ProgramLoadError) in
            try reader.array(minimumElementSize: 1) { reader throws(ProgramLoadError) in
                try reader.array(minimumElementSize: 2) { reader throws(ProgramLoadError) in
                    try reader.component(&fields)
                }
            }
        }
        let variables = try reader.section(.variables) { reader throws(ProgramLoadError) in
            try reader.array(minimumElementSize: 1) { reader throws(ProgramLoadError) in try reader.string() }
        }
        let sourceRanges = try reader.section(.sourceRanges) { reader throws(ProgramLoadError) in
            try reader.array(minimumElementSize: 2) { reader throws(ProgramLoadError) in try reader.sourceRange() }
        }
        let depths = try reader.section(.limits) { reader throws(ProgramLoadError) in
            (try reader.integer(), try reader.integer())
        }
        let source = try reader.section(.source) { reader throws(ProgramLoadError) in
            try reader.text(count: reader.remaining)
        }
        let comparisons = try reader.section(.comparisons) { reader throws(ProgramLoadError) in
            try reader.array(minimumElementSize: 8) { reader throws(ProgramLoadError) in try reader.comparisonSite() }
        }
        guard reader.remaining == 0 else {
            throw ProgramLoadError(offset: reader.position, .trailingBytes(count: reader.remaining))
        }

        self.init(
            kind: kind, code: code, constants: constants, keyPaths: keyPaths, comparisons: comparisons,
            variables: variables, sourceRanges: sourceRanges, maximumStackDepth: depths.0,
            maximumSubqueryDepth: depths.1, source: source)
        do {
            try Verifier.verify(self, limits: limits)
        } catch {
            let offset = error.instruction.map { codeStart + 4 * $0 } ?? bodyStart
            throw ProgramLoadError(offset: offset, .verificationFailed(error))
        }
    }
}

/// Resolves serialized bound fields against the schemas the caller passed.
struct FieldResolver {
    var byName: [String: Schema] = [:]
    var ambiguous: Set<String> = []

    init(schemas: [Schema]) {
        for schema in schemas {
            if let existing = byName[schema.typeName] {
                if existing !== schema { ambiguous.insert(schema.typeName) }
            } else {
                byName[schema.typeName] = schema
            }
        }
    }

    func resolve(typeName: String, slot: UInt64, key: String, at offset: Int) throws(ProgramLoadError) -> KeyComponent {
        guard !ambiguous.contains(typeName) else {
            throw ProgramLoadError(offset: offset, .ambiguousSchema(typeName: typeName))
        }
        guard let schema = byName[typeName] else {
            throw ProgramLoadError(offset: offset, .unknownSchema(typeName: typeName))
        }
        guard slot < UInt64(schema.fields.count) else {
            throw ProgramLoadError(
                offset: offset, .fieldSlotOutOfRange(typeName: typeName, slot: slot, fieldCount: schema.fields.count))
        }
        let index = Int(slot)
        let field = schema.fields[index]
        guard field.name == key || field.aliases.contains(key) || schema.slot(forKey: key) == index else {
            throw ProgramLoadError(offset: offset, .fieldKeyMismatch(typeName: typeName, slot: index, key: key))
        }
        return .field(FieldReference(key: key, slot: index, schema: SchemaReference(schema)))
    }
}

/// Reads the format's primitives from `bytes[position..<end]`, checking every length against
/// what is left before reading or allocating anything.
struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    var end: Int

    var remaining: Int { end - position }

    func error(_ reason: ProgramLoadError.Reason, at offset: Int? = nil) -> ProgramLoadError {
        ProgramLoadError(offset: offset ?? position, reason)
    }

    mutating func byte() throws(ProgramLoadError) -> UInt8 {
        guard position < end else { throw error(.truncated) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func take(_ count: Int) throws(ProgramLoadError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw error(.truncated) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func fixed(width: Int) throws(ProgramLoadError) -> UInt64 {
        var value: UInt64 = 0
        for (index, byte) in try take(width).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        return value
    }

    mutating func varint() throws(ProgramLoadError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 70, by: 7) {
            let byte = try self.byte()
            let bits = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 only.
            guard shift < 63 || bits <= 1 else { throw error(.invalidVarint, at: start) }
            value |= bits << shift
            if byte & 0x80 == 0 { return value }
        }
        throw error(.invalidVarint, at: start)
    }

    /// A non-negative number that must fit an `Int`.
    mutating func integer() throws(ProgramLoadError) -> Int {
        let start = position
        let value = try varint()
        guard let number = Int(exactly: value) else { throw error(.numberOutOfRange(value), at: start) }
        return number
    }

    /// A count of elements each at least `minimumElementSize` bytes long: a count the rest of
    /// the bytes cannot hold is refused before anything is reserved for it.
    mutating func count(minimumElementSize: Int) throws(ProgramLoadError) -> Int {
        let start = position
        let value = try varint()
        guard value <= UInt64(remaining / minimumElementSize) else {
            throw error(.lengthOutOfBounds(length: value, available: remaining), at: start)
        }
        return Int(value)
    }

    mutating func array<Element>(
        minimumElementSize: Int, _ element: (inout ByteReader) throws(ProgramLoadError) -> Element
    ) throws(ProgramLoadError) -> [Element] {
        let count = try self.count(minimumElementSize: minimumElementSize)
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try element(&self)) }
        return elements
    }

    mutating func text(count: Int) throws(ProgramLoadError) -> String {
        let start = position
        let slice = try take(count)
        guard let text = String(validating: slice, as: UTF8.self) else { throw error(.invalidUTF8, at: start) }
        return text
    }

    mutating func string() throws(ProgramLoadError) -> String {
        try text(count: try count(minimumElementSize: 1))
    }

    mutating func header() throws(ProgramLoadError) {
        for (index, expected) in ProgramFormat.magic.enumerated() where index < bytes.count {
            guard bytes[index] == expected else { throw error(.badMagic, at: 0) }
        }
        guard bytes.count >= ProgramFormat.headerSize else { throw error(.truncated, at: bytes.count) }
        position = ProgramFormat.magic.count
        let version = UInt16(truncatingIfNeeded: try fixed(width: 2))
        guard version == ProgramFormat.version else { throw error(.unsupportedVersion(version), at: 4) }
        let length = try fixed(width: 4)
        let stored = UInt32(truncatingIfNeeded: try fixed(width: 4))
        let available = UInt64(bytes.count - ProgramFormat.headerSize)
        guard length <= available else { throw error(.truncated, at: bytes.count) }
        guard length == available else {
            let bodyEnd = ProgramFormat.headerSize + Int(length)
            throw error(.trailingBytes(count: bytes.count - bodyEnd), at: bodyEnd)
        }
        let computed = CRC32.checksum(bytes[ProgramFormat.headerSize...])
        guard stored == computed else { throw error(.checksumMismatch(stored: stored, computed: computed), at: 10) }
    }

    /// Reads section `section`'s id and length, then its payload with `body`, which must use
    /// all of it and nothing after it.
    mutating func section<Result>(
        _ section: ProgramSection, _ body: (inout ByteReader) throws(ProgramLoadError) -> Result
    ) throws(ProgramLoadError) -> Result {
        let idOffset = position
        let id = try byte()
        guard id == section.rawValue else {
            throw error(.unexpectedSection(expected: section, found: id), at: idOffset)
        }
        let length = try count(minimumElementSize: 1)
        var payload = ByteReader(bytes: bytes, position: position, end: position + length)
        let result = try body(&payload)
        guard payload.remaining == 0 else { throw payload.error(.sectionLengthMismatch(section)) }
        position = payload.end
        return result
    }

    mutating func instructions(codeStart: inout Int) throws(ProgramLoadError) -> [Instruction] {
        let count = try self.count(minimumElementSize: 4)
        codeStart = position
        var code: [Instruction] = []
        code.reserveCapacity(count)
        for index in 0..<count {
            let start = position
            let raw = try take(4)
            let operands = (raw[start + 1], raw[start + 2], raw[start + 3])
            guard Opcode(rawValue: raw[start]) != nil else {
                throw error(.unknownOpcode(raw[start], instruction: index), at: start)
            }
            guard let instruction = Instruction(opcode: raw[start], operands: operands) else {
                throw error(.invalidOperand(instruction: index), at: start)
            }
            guard instruction.operands == operands else {
                throw error(.nonCanonicalOperands(instruction: index), at: start)
            }
            code.append(instruction)
        }
        return code
    }

    mutating func component(_ fields: inout FieldResolver) throws(ProgramLoadError) -> KeyComponent {
        let start = position
        let tag = try byte()
        switch tag {
        case 0: return .key(try string())
        case 1: return .variable(try string())
        case 2:
            let typeName = try string()
            let slot = try varint()
            let key = try string()
            return try fields.resolve(typeName: typeName, slot: slot, key: key, at: start)
        default:
            throw error(.invalidKeyComponentTag(tag), at: start)
        }
    }

    /// A table index: a varint that fits the 16 bits instructions address.
    mutating func index16() throws(ProgramLoadError) -> UInt16 {
        let start = position
        let value = try varint()
        guard let index = UInt16(exactly: value) else { throw error(.numberOutOfRange(value), at: start) }
        return index
    }

    mutating func comparisonSite() throws(ProgramLoadError) -> ComparisonSite {
        let start = position
        let receiverCode = try varint()
        let receiver: ComparisonSite.Receiver
        if receiverCode == 0 {
            receiver = .evaluatedObject
        } else if let slot = UInt16(exactly: receiverCode - 1) {
            receiver = .variable(slot)
        } else {
            throw error(.numberOutOfRange(receiverCode), at: start)
        }
        let keyPath = try index16()
        let constant = try index16()
        let opStart = position
        let opCode = try byte()
        guard let op = ComparisonOperator(code: Int(opCode)) else {
            throw error(.invalidOperatorCode(opCode), at: opStart)
        }
        let options = ComparisonOptions(rawValue: try byte())
        let quantifierStart = position
        let quantifierCode = try byte()
        guard let quantifier = Quantifier(code: Int(quantifierCode)) else {
            throw error(.invalidOperatorCode(quantifierCode), at: quantifierStart)
        }
        return ComparisonSite(
            receiver: receiver, keyPath: keyPath, constant: constant, op: op, options: options, quantifier: quantifier,
            keyPathRange: try sourceRange())
    }

    mutating func sourceRange() throws(ProgramLoadError) -> SourceRange {
        let start = position
        let lower = try varint()
        let upper = try varint()
        guard upper >= lower else { throw error(.invalidSourceRange(lower: lower, upper: upper), at: start) }
        guard let lowerBound = Int(exactly: lower), let upperBound = Int(exactly: upper) else {
            throw error(.numberOutOfRange(upper), at: start)
        }
        return SourceRange(lowerBound, upperBound)
    }

    mutating func value(depth: Int) throws(ProgramLoadError) -> Value {
        let start = position
        guard depth < ProgramFormat.maximumConstantNesting else { throw error(.nestingTooDeep, at: start) }
        let rawTag = try byte()
        guard let tag = ValueTag(rawValue: rawTag) else { throw error(.invalidValueTag(rawTag), at: start) }
        switch tag {
        case .nil: return .nil
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int:
            let zigzag = try varint()
            return .int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
        case .uint: return .uint(try varint())
        case .double: return .double(Double(bitPattern: try fixed(width: 8)))
        case .decimal:
            let textStart = position
            let text = try string()
            // `Decimal` writes NaN as "NaN" but does not read it back.
            if text == Decimal.nan.description { return .decimal(.nan) }
            guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                number.description == text
            else { throw error(.invalidDecimal(text), at: textStart) }
            return .decimal(number)
        case .string: return .string(try string())
        case .date: return .date(secondsSinceReferenceDate: Double(bitPattern: try fixed(width: 8)))
        case .data: return .data(Array(try take(try count(minimumElementSize: 1))))
        case .array:
            return .array(
                try array(minimumElementSize: 1) { reader throws(ProgramLoadError) in
                    try reader.value(depth: depth + 1)
                })
        case .set:
            return .set(
                try array(minimumElementSize: 1) { reader throws(ProgramLoadError) in
                    try reader.value(depth: depth + 1)
                })
        case .dictionary:
            let count = try self.count(minimumElementSize: 2)
            var entries: [String: Value] = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let keyStart = position
                let key = try string()
                let element = try value(depth: depth + 1)
                guard entries.updateValue(element, forKey: key) == nil else {
                    throw error(.duplicateDictionaryKey(key), at: keyStart)
                }
            }
            return .dictionary(entries)
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib and PNG compute it): `checksum("123456789")` is
/// `0xCBF43926`.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
