import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Serialized programs to damage: a valid one, and the framing to wrap a crafted body in.
enum ProgramBytes {
    /// `count > 1`, compiled and serialized.
    static let valid: [UInt8] = {
        guard let predicate = try? PredicateParser.parsePredicate("count > 1").predicate,
            let bytes = try? Compiler.compile(predicate, source: "count > 1").serialized()
        else { return [] }
        return bytes
    }()

    /// `SELF` as an expression, hand-assembled so that byte offsets in it do not depend on the
    /// compiler.
    static let small = serialized([.pushSelf, .returnValue], kind: .expression)

    /// The header's size: magic, version, length, checksum.
    static let headerSize = ProgramFormat.headerSize

    /// `program` serialized without verification, for programs the compiler would never emit.
    static func serialized(
        _ code: [Instruction], constants: [Value] = [], kind: Program.Kind = .predicate, stack: Int = 1
    ) -> [UInt8] {
        let program = Program(
            kind: kind, code: code, constants: constants, keyPaths: [], variables: [],
            sourceRanges: Array(repeating: SourceRange(0, 1), count: code.count), maximumStackDepth: stack,
            maximumSubqueryDepth: 0, source: "x")
        return (try? program.serialized()) ?? []
    }

    /// `bytes` with the body edited by `edit` and the header's length and checksum made right
    /// again, so that the damage reaches the decoders behind the checksum.
    static func reframed(_ bytes: [UInt8], _ edit: (inout [UInt8]) -> Void) -> [UInt8] {
        var body = Array(bytes.dropFirst(headerSize))
        guard body.count > firstOpcode + 4 else { return framed(body) }
        edit(&body)
        return framed(body)
    }

    /// A header for `body`: magic, version, length and CRC-32.
    static func framed(_ body: [UInt8], version: UInt16 = ProgramFormat.version) -> [UInt8] {
        var bytes = ProgramFormat.magic
        bytes += [UInt8(version & 0xFF), UInt8(version >> 8)]
        bytes += littleEndian(UInt32(body.count)) + littleEndian(crc32(body))
        return bytes + body
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// CRC-32 (IEEE, reflected), as the header holds it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// ``small`` with its (empty) constant pool replaced by one array constant nested `depth`
    /// levels deep around `nil`.
    static func nestedConstant(depth: Int) -> [UInt8] {
        let payload: [UInt8] =
            [1] + Array(repeating: [ValueTag.array.rawValue, 1], count: depth).flatMap { $0 } + [ValueTag.nil.rawValue]
        return reframed(small) { body in
            // kind (3 bytes), code (id, length, count, two instructions: 11 bytes), then the
            // constants section: id, length 1, count 0.
            body.replaceSubrange(15...16, with: varint(payload.count) + payload)
        }
    }

    /// Unsigned LEB128, as the format writes counts and lengths.
    static func varint(_ value: Int) -> [UInt8] {
        var rest = UInt64(value)
        var bytes: [UInt8] = []
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
        return bytes
    }

    /// Body offset of the first instruction's opcode: kind section (id, length, byte), then the
    /// code section's id, length and count, each one byte for small programs.
    static let firstOpcode = 6
}
