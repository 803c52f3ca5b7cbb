import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// libFuzzer entry point: any bytes, as a serialized program, must load or be refused with a
/// ``ProgramLoadError``; a program that loads has verified, so it must run on the VM without
/// crashing or hanging, whatever it does.
///
/// Most random bytes fail the checksum, so the input is used twice: as it is, and as a body
/// wrapped in a valid header (magic, version, length, CRC-32), which gets past the framing to the
/// section decoders and the verifier.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let schemas = [FileProviderItem.schema]
    for candidate in [bytes, ProgramFuzzing.framed(bytes)] {
        guard let program = try? Program(bytes: candidate, schemas: schemas) else { continue }
        _ = try? program.serialized()
        let limits = EvaluationLimits(maximumSteps: 100_000, maximumPatternSteps: 1_000_000)
        var machine = VirtualMachine(program: program, environment: EvaluationEnvironment(limits: limits))
        let item = FileProviderItem(itemIdentifier: "1", parentItemIdentifier: "root", filename: "a.pdf")
        for object in [Value.nil, .dictionary(["a": .int(1), "b": .array([.string("x")])]), .object(item)] {
            if program.kind == .predicate {
                _ = try? machine.evaluate(on: object)
            } else {
                _ = try? machine.evaluateExpression(on: object)
            }
        }
    }
    return 0
}

/// Before fuzzing starts: when `FUZZ_SEED_DIR` is set, writes serialized programs of rules that
/// use every instruction there, so that mutation starts from programs that load.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzLoaderInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["FUZZ_SEED_DIR"] else { return 0 }
    let rules = [
        "documentSize > 1e6 AND filename ENDSWITH[c] '.pdf'",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0",
        "ANY tags IN {'a', 'b'} OR NOT (name LIKE[cd] 'x*?' OR name MATCHES '(a+)+b')",
        "TERNARY(size > 2, name, 'x') == CAST('1', 'NSNumber')",
        "($x := size + 1) > 2 AND $x < sum:({1, 2, size}) AND tags[FIRST] == tags[SIZE]",
        "FUNCTION(name, 'hasPrefix:', 'a') AND ({1, 2} UNION tags).@count == 3",
        "ALL tags.length BETWEEN {1, 3} AND modulus:by:(7, 2) == 1 AND $v == nil",
    ]
    var written = 0
    for rule in rules {
        guard let predicate = try? PredicateParser.parsePredicate(rule).predicate else { continue }
        let bound = Binder.bind(
            predicate, selfType: Binder.type(describing: FileProviderContext.activation(selectedItems: [])))
        for tree in [predicate, bound] {
            guard let bytes = try? Compiler.compile(tree, source: rule).serialized() else { continue }
            written += 1
            FileManager.default.createFile(atPath: "\(directory)/program-\(written)", contents: Data(bytes))
        }
    }
    return 0
}

/// Framing for arbitrary bodies, as ``ProgramFormat`` lays it out.
enum ProgramFuzzing {
    static func framed(_ body: [UInt8]) -> [UInt8] {
        var bytes = ProgramFormat.magic
        bytes += [UInt8(ProgramFormat.version & 0xFF), UInt8(ProgramFormat.version >> 8)]
        let length = UInt32(body.count)
        bytes += (0..<4).map { UInt8((length >> (8 * $0)) & 0xFF) }
        let crc = crc32(body)
        bytes += (0..<4).map { UInt8((crc >> (8 * $0)) & 0xFF) }
        return bytes + body
    }

    /// CRC-32 (IEEE, reflected), as the format's header holds it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
