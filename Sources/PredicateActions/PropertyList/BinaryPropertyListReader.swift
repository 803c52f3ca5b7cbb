/// Why bytes that start as `bplist00` are not a binary property list, for a message.
struct BinaryPropertyListError: Error, Sendable {
    let message: String
}

/// This package's own reader of binary property lists (`bplist00`), in place of Foundation's.
///
/// swift-corelibs-foundation trusts a binary file's object table: the plist fuzzer found a file
/// of 1,100 bytes whose set of unhashable objects crashes its bridging in the runtime. Every
/// offset, count and reference here is checked against the file before it is read, objects may
/// not contain themselves, and a file whose shared references would unfold into far more values
/// or text than it holds is refused (see ``nodeLimit(objects:)`` and ``textLimit(bytes:)``), so a
/// few kilobytes cannot expand into gigabytes.
///
/// The format: an 8-byte magic, objects, an offset table, and a 32-byte trailer giving the size
/// of an offset and of an object reference, the object count, the top object and where the
/// offset table starts. An object starts with a marker byte: its kind in the high nibble, and a
/// size or count in the low one (`0xF` when a count in an integer object follows).
struct BinaryPropertyListReader {
    /// The values a file of `objects` objects may unfold into, counting every use of a shared
    /// object: Foundation's writer shares equal strings and numbers (every action repeats the same
    /// keys), so a real file unfolds into a few values an object; the floor serves small files,
    /// the ceiling bounds the memory any file can take.
    static func nodeLimit(objects: Int) -> Int { min(1 << 20, max(1 << 16, 8 * objects)) }
    /// The UTF-8 bytes of text (strings and keys) a file of `bytes` bytes may unfold into, for
    /// the same reasons.
    static func textLimit(bytes: Int) -> Int { min(64 << 20, max(1 << 20, 8 * bytes)) }

    private let bytes: [UInt8]
    private let offsetTable: Int
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let nodeLimit: Int
    private let textLimit: Int
    private var nodes = 0
    private var textBytes = 0
    /// The objects being read, outermost first: a reference to one of them is a cycle.
    private var open: Set<Int> = []

    /// Reads `bytes`, which start with `bplist`.
    static func read(_ bytes: [UInt8]) throws(BinaryPropertyListError) -> PropertyListNode {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else {
            throw BinaryPropertyListError(message: "shorter than a header and a trailer")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
            throw BinaryPropertyListError(message: "the trailer's offset or reference size is not 1, 2, 4 or 8")
        }
        let objectCount = bigEndian(bytes, at: trailer + 8, size: 8)
        let top = bigEndian(bytes, at: trailer + 16, size: 8)
        let offsetTable = bigEndian(bytes, at: trailer + 24, size: 8)
        // Each bound is checked alone first so that no product below can overflow.
        guard let objectCount, let top, let offsetTable, objectCount > 0, objectCount <= trailer,
            top < objectCount, offsetTable >= 8, offsetTable <= trailer,
            objectCount * offsetSize <= trailer - offsetTable
        else {
            throw BinaryPropertyListError(
                message: "the trailer's object count, top object or offset table is out of the file")
        }
        var reader = BinaryPropertyListReader(
            bytes: bytes, offsetTable: offsetTable, offsetSize: offsetSize, referenceSize: referenceSize,
            objectCount: objectCount, nodeLimit: nodeLimit(objects: objectCount),
            textLimit: textLimit(bytes: bytes.count))
        return try reader.object(top, depth: 0)
    }

    /// The unsigned big-endian integer of `size` bytes at `offset`, or `nil` when it is out of
    /// the file or does not fit an `Int`.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    private func fail(_ message: String) -> BinaryPropertyListError {
        BinaryPropertyListError(message: message)
    }

    /// Where object `index` starts, checked to lie among the objects.
    private func start(of index: Int) throws(BinaryPropertyListError) -> Int {
        guard index >= 0, index < objectCount,
            let offset = Self.bigEndian(bytes, at: offsetTable + index * offsetSize, size: offsetSize),
            offset >= 8, offset < offsetTable
        else { throw fail("object \(index) is outside the file") }
        return offset
    }

    /// `count` bytes from `offset`, checked to end before the offset table.
    private func range(_ offset: Int, _ count: Int) throws(BinaryPropertyListError) -> Range<Int> {
        guard count >= 0, offset <= offsetTable, count <= offsetTable - offset else {
            throw fail("an object at byte \(offset) runs past the objects")
        }
        return offset..<(offset + count)
    }

    /// The count in a marker's low nibble, or in the integer object after it; and where the
    /// object's contents start.
    private func count(marker: UInt8, at offset: Int) throws(BinaryPropertyListError) -> (count: Int, contents: Int) {
        let nibble = Int(marker & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        let integer = try range(offset + 1, 1)
        let intMarker = bytes[integer.lowerBound]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw fail("the count of the object at byte \(offset) is not an integer")
        }
        let size = 1 << Int(intMarker & 0x0F)
        let digits = try range(offset + 2, size)
        guard let count = Self.bigEndian(bytes, at: digits.lowerBound, size: size) else {
            throw fail("the count of the object at byte \(offset) is too large")
        }
        return (count, digits.upperBound)
    }

    /// The `position`th object reference of a container whose references start at `base`.
    private func reference(_ base: Int, _ position: Int) throws(BinaryPropertyListError) -> Int {
        let slot = try range(base + position * referenceSize, referenceSize)
        guard let reference = Self.bigEndian(bytes, at: slot.lowerBound, size: referenceSize) else {
            throw fail("a reference at byte \(slot.lowerBound) is too large")
        }
        return reference
    }

    private mutating func object(_ index: Int, depth: Int) throws(BinaryPropertyListError) -> PropertyListNode {
        nodes += 1
        guard nodes <= nodeLimit else {
            throw fail("its shared objects unfold into more than \(nodeLimit) values")
        }
        guard depth < XMLPropertyListReader.maximumDepth else {
            throw fail("values nest more than \(XMLPropertyListReader.maximumDepth) deep")
        }
        let offset = try start(of: index)
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return node(.boolean(false))
            case 0x09: return node(.boolean(true))
            default: throw fail("the object at byte \(offset) has the unknown marker \(hex(marker))")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16 else { throw fail("the integer at byte \(offset) has \(size) bytes") }
            let digits = try range(offset + 1, size)
            return node(.scalar(element: "integer", text: integerText(digits)))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            guard size == 4 || size == 8 else { throw fail("the real at byte \(offset) has \(size) bytes") }
            return node(.scalar(element: "real", text: "\(try real(at: offset + 1, size: size))"))
        case 0x3:
            guard marker == 0x33 else {
                throw fail("the object at byte \(offset) has the unknown marker \(hex(marker))")
            }
            return node(.scalar(element: "date", text: "\(try real(at: offset + 1, size: 8))"))
        case 0x4:
            let (count, contents) = try count(marker: marker, at: offset)
            _ = try range(contents, count)
            return node(.scalar(element: "data", text: ""))
        case 0x5, 0x6:
            return node(.string(try string(at: offset, marker: marker), fileOffsets: []))
        case 0x8:
            _ = try range(offset + 1, Int(marker & 0x0F) + 1)
            return node(.scalar(element: "uid", text: ""))
        case 0xA, 0xC:
            let (count, contents) = try count(marker: marker, at: offset)
            _ = try range(contents, try product(count, referenceSize, at: offset))
            try enter(index)
            var elements: [PropertyListNode] = []
            elements.reserveCapacity(min(count, 1024))
            for position in 0..<count {
                elements.append(try object(try reference(contents, position), depth: depth + 1))
            }
            open.remove(index)
            return node(.array(elements))
        case 0xD:
            let (count, contents) = try count(marker: marker, at: offset)
            let half = try product(count, referenceSize, at: offset)
            _ = try range(contents, try product(half, 2, at: offset))
            try enter(index)
            var entries: [PropertyListNode.Entry] = []
            entries.reserveCapacity(min(count, 1024))
            for position in 0..<count {
                let keyNode = try object(try reference(contents, position), depth: depth + 1)
                guard let key = keyNode.string else {
                    throw fail("a key of the dictionary at byte \(offset) is \(keyNode.kindName), not a string")
                }
                let value = try object(try reference(contents + half, position), depth: depth + 1)
                entries.append(PropertyListNode.Entry(key: key, keyOffset: nil, value: value))
            }
            open.remove(index)
            return node(.dictionary(entries))
        default:
            throw fail("the object at byte \(offset) has the unknown marker \(hex(marker))")
        }
    }

    private func node(_ content: PropertyListNode.Content) -> PropertyListNode {
        PropertyListNode(content: content, offset: nil)
    }

    private mutating func enter(_ index: Int) throws(BinaryPropertyListError) {
        guard open.insert(index).inserted else { throw fail("object \(index) contains itself") }
    }

    private func product(_ count: Int, _ size: Int, at offset: Int) throws(BinaryPropertyListError) -> Int {
        let (result, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow else { throw fail("the object at byte \(offset) has too many elements") }
        return result
    }

    private mutating func string(at offset: Int, marker: UInt8) throws(BinaryPropertyListError) -> String {
        let (count, contents) = try count(marker: marker, at: offset)
        let isUTF16 = marker >> 4 == 0x6
        let span = try range(contents, try product(count, isUTF16 ? 2 : 1, at: offset))
        let text: String
        if isUTF16 {
            var units: [UInt16] = []
            units.reserveCapacity(count)
            var index = span.lowerBound
            while index < span.upperBound {
                units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
                index += 2
            }
            text = String(decoding: units, as: UTF16.self)
        } else {
            guard bytes[span].allSatisfy({ $0 < 0x80 }) else {
                throw fail("the ASCII string at byte \(offset) holds a byte above 0x7F")
            }
            text = String(decoding: bytes[span], as: UTF8.self)
        }
        textBytes += text.utf8.count
        guard textBytes <= textLimit else {
            throw fail("its shared strings unfold into more than \(textLimit) bytes")
        }
        return text
    }

    /// The integer's decimal text: 1, 2 and 4 bytes are unsigned, 8 signed, and 16 the low 8 of
    /// a 128-bit value, as Apple's writer stores unsigned values above `Int64.max`.
    private func integerText(_ digits: Range<Int>) -> String {
        var value: UInt64 = 0
        for index in digits.suffix(8) { value = value << 8 | UInt64(bytes[index]) }
        switch digits.count {
        case 8: return "\(Int64(bitPattern: value))"
        default: return "\(value)"
        }
    }

    private func real(at offset: Int, size: Int) throws(BinaryPropertyListError) -> Double {
        let digits = try range(offset, size)
        var bits: UInt64 = 0
        for index in digits { bits = bits << 8 | UInt64(bytes[index]) }
        return size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
    }
}
