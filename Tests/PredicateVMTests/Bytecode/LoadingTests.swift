import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// One damaged input and the exact reason loading it must give.
struct MalformedBytes: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    var schemas: [Schema] = RoundTripTests.schemas
    let expected: ProgramLoadError.Reason

    var testDescription: String { name }
}

/// Loading refuses every kind of damaged or hostile input with a precise error, and never
/// crashes: what loads, verifies and runs.
@Suite struct LoadingTests {
    /// A bound program with a SUBQUERY, fields of two schemas, variables and strings.
    static let rule = "SUBQUERY(editors, $e, $e.age > 30).@count > 0 AND name == 'Report.pdf'"
    static let base: [UInt8] = (try? Support.compile(rule, bound: true).serialized()) ?? []
    /// `self == 1`: starts with `PUSH_SELF`, which has no operands.
    static let selfBase: [UInt8] = (try? Support.compile("self == 1").serialized()) ?? []

    static func patched(_ bytes: [UInt8], at offset: Int, to value: UInt8) -> [UInt8] {
        var copy = bytes
        if copy.indices.contains(offset) { copy[offset] = value }
        return copy
    }

    static func patchedPayload(_ section: ProgramSection, at offset: Int, to value: UInt8) -> [UInt8] {
        Support.replacing(section, with: patched(Support.payload(section, in: base), at: offset, to: value), in: base)
    }

    /// A serialized program that decodes but does not verify.
    static func unverified(_ program: Program) -> [UInt8] { (try? program.serialized()) ?? [] }
    /// `SELF[FIRST]`-like code: byte 6 of the code payload is `INDEX_SYM`'s symbol.
    static let indexBase = unverified(Support.program([.pushSelf, .indexSymbol(.first), .returnBool]))
    /// Byte 10 of the code payload is `CMP`'s operator.
    static let compareBase = unverified(
        Support.program([.pushSelf, .pushSelf, .compare(op: .equal, options: [], quantifier: .direct), .returnBool]))

    static func failing(_ instruction: Int?, _ problem: VerificationError.Problem) -> ProgramLoadError.Reason {
        .verificationFailed(VerificationError(instruction: instruction, problem))
    }

    static let otherDocument = Schema(
        typeName: "Document", fields: [.init("title", .string), .init("length", .integer)])
    static let renamedDocument = Schema(
        typeName: "Document",
        fields: ["a", "b", "c", "d", "e", "f", "g", "h"].map { Schema.Field($0, .any) })

    static let checksumDamaged: MalformedBytes = {
        var bytes = base
        bytes[bytes.count - 1] ^= 0x01
        let stored = bytes[10..<14].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = CRC32.checksum(bytes[ProgramFormat.headerSize...])
        return MalformedBytes(
            name: "bad checksum", bytes: bytes, expected: .checksumMismatch(stored: stored, computed: computed))
    }()

    static let cases: [MalformedBytes] = [
        MalformedBytes(name: "empty input", bytes: [], expected: .truncated),
        MalformedBytes(name: "wrong magic", bytes: patched(base, at: 0, to: UInt8(ascii: "X")), expected: .badMagic),
        MalformedBytes(name: "not a program at all", bytes: Array("{\"json\": true}".utf8), expected: .badMagic),
        MalformedBytes(name: "wrong version", bytes: patched(base, at: 4, to: 1), expected: .unsupportedVersion(1)),
        checksumDamaged,
        MalformedBytes(name: "trailing bytes after the body", bytes: base + [0], expected: .trailingBytes(count: 1)),
        MalformedBytes(
            name: "trailing bytes after the last section", bytes: Support.relengthed(base + [0, 0]),
            expected: .trailingBytes(count: 2)),
        MalformedBytes(
            name: "missing section", bytes: Support.assemble(Array(Support.sections(of: base).dropFirst())),
            expected: .unexpectedSection(expected: .kind, found: ProgramSection.code.rawValue)),
        MalformedBytes(
            name: "sections out of order",
            bytes: Support.assemble(
                {
                    var sections = Support.sections(of: base)
                    sections.swapAt(2, 3)
                    return sections
                }()), expected: .unexpectedSection(expected: .constants, found: ProgramSection.keyPaths.rawValue)),
        MalformedBytes(
            name: "section longer than its content", bytes: Support.replacing(.kind, with: [0, 0], in: base),
            expected: .sectionLengthMismatch(.kind)),
        MalformedBytes(
            name: "invalid kind", bytes: Support.replacing(.kind, with: [7], in: base), expected: .invalidKind(7)),
        MalformedBytes(
            name: "unknown opcode", bytes: patchedPayload(.code, at: 1, to: 0xEE),
            expected: .unknownOpcode(0xEE, instruction: 0)),
        MalformedBytes(
            name: "operand bytes on an instruction without operands",
            bytes: Support.replacing(
                .code, with: patched(Support.payload(.code, in: selfBase), at: 3, to: 1), in: selfBase),
            expected: .nonCanonicalOperands(instruction: 0)),
        MalformedBytes(
            name: "index symbol that names nothing",
            bytes: Support.replacing(
                .code, with: patched(Support.payload(.code, in: indexBase), at: 6, to: 3), in: indexBase),
            expected: .invalidOperand(instruction: 1)),
        MalformedBytes(
            name: "comparison operator that names nothing",
            bytes: Support.replacing(
                .code, with: patched(Support.payload(.code, in: compareBase), at: 10, to: 200), in: compareBase),
            expected: .invalidOperand(instruction: 2)),
        MalformedBytes(
            name: "lying section length", bytes: Support.sealed([ProgramSection.kind.rawValue, 0xFF, 0xFF, 0x03, 0]),
            expected: .lengthOutOfBounds(length: 65535, available: 1)),
        MalformedBytes(
            name: "lying instruction count", bytes: Support.replacing(.code, with: [100, 0, 0, 0, 0], in: base),
            expected: .lengthOutOfBounds(length: 100, available: 4)),
        MalformedBytes(
            name: "lying constant count",
            bytes: Support.replacing(.constants, with: Support.written { $0.varint(1_000_000_000) }, in: base),
            expected: .lengthOutOfBounds(length: 1_000_000_000, available: 0)),
        MalformedBytes(
            name: "lying string length",
            bytes: Support.replacing(.variables, with: [1, 50, UInt8(ascii: "e")], in: base),
            expected: .lengthOutOfBounds(length: 50, available: 1)),
        MalformedBytes(
            name: "lying data length",
            bytes: Support.replacing(
                .constants,
                with: Support.written {
                    $0.count(1)
                    $0.byte(ValueTag.data.rawValue)
                    $0.varint(UInt64(UInt32.max))
                }, in: base),
            expected: .lengthOutOfBounds(length: UInt64(UInt32.max), available: 0)),
        MalformedBytes(
            name: "varint longer than 64 bits",
            bytes: Support.replacing(
                .constants, with: [1, ValueTag.uint.rawValue] + Array(repeating: 0xFF, count: 10) + [1], in: base),
            expected: .invalidVarint),
        MalformedBytes(
            name: "invalid UTF-8 in a string constant",
            bytes: Support.replacing(.constants, with: [1, ValueTag.string.rawValue, 2, 0xC3, 0x28], in: base),
            expected: .invalidUTF8),
        MalformedBytes(
            name: "invalid UTF-8 in a variable name",
            bytes: Support.replacing(.variables, with: [1, 1, 0xFF], in: base), expected: .invalidUTF8),
        MalformedBytes(
            name: "invalid UTF-8 in the source",
            bytes: Support.replacing(.source, with: [0x61, 0xED, 0xA0, 0x80], in: base),
            expected: .invalidUTF8),
        MalformedBytes(
            name: "unknown constant tag", bytes: Support.replacing(.constants, with: [1, 99], in: base),
            expected: .invalidValueTag(99)),
        MalformedBytes(
            name: "invalid decimal",
            bytes: Support.replacing(
                .constants, with: [1, ValueTag.decimal.rawValue, 3] + Array("abc".utf8), in: base),
            expected: .invalidDecimal("abc")),
        MalformedBytes(
            name: "duplicate dictionary key",
            bytes: Support.replacing(
                .constants,
                with: Support.written {
                    $0.count(1)
                    $0.byte(ValueTag.dictionary.rawValue)
                    $0.count(2)
                    for _ in 0..<2 {
                        $0.string("k")
                        $0.byte(ValueTag.nil.rawValue)
                    }
                }, in: base),
            expected: .duplicateDictionaryKey("k")),
        MalformedBytes(
            name: "constants nested too deeply",
            bytes: Support.replacing(
                .constants,
                with: [1] + Array(repeating: [ValueTag.array.rawValue, 1], count: 600).flatMap { $0 } + [0], in: base),
            expected: .nestingTooDeep),
        MalformedBytes(
            name: "unknown key-path component tag", bytes: Support.replacing(.keyPaths, with: [1, 1, 9, 0], in: base),
            expected: .invalidKeyComponentTag(9)),
        MalformedBytes(
            name: "reversed source range", bytes: Support.replacing(.sourceRanges, with: [1, 5, 2], in: base),
            expected: .invalidSourceRange(lower: 5, upper: 2)),
        MalformedBytes(
            name: "depth above Int.max",
            bytes: Support.replacing(
                .limits,
                with: Support.written {
                    $0.varint(UInt64.max)
                    $0.varint(0)
                }, in: base),
            expected: .numberOutOfRange(UInt64.max)),
        MalformedBytes(
            name: "schema not supplied", bytes: base, schemas: [Person.schema],
            expected: .unknownSchema(typeName: "Document")),
        MalformedBytes(
            name: "schema with fewer fields", bytes: base, schemas: [otherDocument, Person.schema],
            expected: .fieldSlotOutOfRange(typeName: "Document", slot: 5, fieldCount: 2)),
        MalformedBytes(
            name: "schema whose slot has another key", bytes: base, schemas: [renamedDocument, Person.schema],
            expected: .fieldKeyMismatch(typeName: "Document", slot: 5, key: "editors")),
        MalformedBytes(
            name: "two schemas of one name", bytes: base, schemas: [Document.schema, Person.schema, otherDocument],
            expected: .ambiguousSchema(typeName: "Document")),
        MalformedBytes(
            name: "constant index out of range", bytes: unverified(Support.program([.pushConstant(9), .returnBool])),
            expected: failing(0, .constantOutOfRange(index: 9, count: 2))),
        MalformedBytes(
            name: "key-path index out of range",
            bytes: unverified(Support.program([.loadSelfKeyPath(3), .returnBool])),
            expected: failing(0, .keyPathOutOfRange(index: 3, count: 1))),
        MalformedBytes(
            name: "variable index out of range", bytes: unverified(Support.program([.loadVariable(1), .returnBool])),
            expected: failing(0, .variableOutOfRange(index: 1, count: 1))),
        MalformedBytes(
            name: "selector not a string",
            bytes: unverified(Support.program([.pushSelf, .invoke(0, arity: 0), .returnBool])),
            expected: failing(1, .notAStringConstant(index: 0))),
        MalformedBytes(
            name: "jump outside the code",
            bytes: unverified(Support.program([.pushConstant(0), .jumpIfFalse(40), .pushConstant(0), .returnBool])),
            expected: failing(1, .jumpOutOfRange(target: 42))),
        MalformedBytes(
            name: "jump into the middle of a SUBQUERY loop",
            bytes: unverified(
                Support.program([
                    .pushSelf, .jumpIfFalse(0), .jump(3), .pushSelf, .subqueryBegin(exit: 3, variable: 0),
                    .subqueryNext(2),
                    .pushConstant(0), .subqueryCollect(-3), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ])), expected: failing(7, .subqueryNotOpen)),
        MalformedBytes(
            name: "stack underflow", bytes: unverified(Support.program([.not, .returnBool])),
            expected: failing(0, .stackUnderflow(depth: 0, pops: 1))),
        MalformedBytes(
            name: "stack deeper than declared",
            bytes: unverified(
                Support.program(
                    [.pushSelf, .pushSelf, .compare(op: .equal, options: [], quantifier: .direct), .returnBool],
                    maximumStackDepth: 1)),
            expected: failing(1, .stackOverflow(depth: 2, maximum: 1))),
        MalformedBytes(
            name: "implausible declared stack",
            bytes: unverified(Support.program([.pushConstant(0), .returnBool], maximumStackDepth: 1 << 40)),
            expected: failing(nil, .implausibleMaximumStackDepth(1 << 40))),
        MalformedBytes(
            name: "SAVE_VARS without RESTORE_VARS",
            bytes: unverified(Support.program([.saveVariables, .pushConstant(0), .returnBool])),
            expected: failing(2, .unclosedScopeAtReturn)),
        MalformedBytes(
            name: "RESTORE_VARS without SAVE_VARS",
            bytes: unverified(Support.program([.pushConstant(0), .restoreVariables, .returnBool])),
            expected: failing(1, .restoreWithoutSave)),
        MalformedBytes(
            name: "SUBQUERY_NEXT without SUBQUERY_BEGIN",
            bytes: unverified(Support.program([.subqueryNext(0), .returnBool])),
            expected: failing(0, .subqueryNextWithoutBegin)),
        MalformedBytes(
            name: "endless loop", bytes: unverified(Support.program([.jump(-1)])),
            expected: failing(0, .backwardJump(target: 0))),
        MalformedBytes(
            name: "missing return", bytes: unverified(Support.program([.pushConstant(0), .not])),
            expected: failing(1, .missingReturn)),
        MalformedBytes(
            name: "return of the wrong kind",
            bytes: unverified(Support.program([.pushSelf, .returnBool], kind: .expression)),
            expected: failing(1, .wrongReturn(expected: .expression))),
        MalformedBytes(
            name: "source ranges do not match the code",
            bytes: Support.replacing(.sourceRanges, with: [0], in: base),
            expected: failing(nil, .sourceRangeCountMismatch(ranges: 0, instructions: 11))),
    ]

    @Test func baseProgramsLoad() throws {
        #expect(!Self.base.isEmpty)
        _ = try Program(bytes: Self.base, schemas: RoundTripTests.schemas)
        _ = try Program(bytes: Self.selfBase)
        #expect(try Support.compile(Self.rule, bound: true).code.count == 11)
    }

    @Test(arguments: cases)
    func refusesMalformedBytes(_ testCase: MalformedBytes) {
        #expect(throws: ProgramLoadError.self) { try Program(bytes: testCase.bytes, schemas: testCase.schemas) }
        do {
            _ = try Program(bytes: testCase.bytes, schemas: testCase.schemas)
        } catch {
            #expect(error.reason == testCase.expected, "\(testCase.name): \(error)")
            #expect(!error.description.isEmpty)
        }
    }

    @Test func truncatedAtEveryLength() {
        for length in 0..<Self.base.count {
            let prefix = Array(Self.base.prefix(length))
            #expect(throws: ProgramLoadError.self) { try Program(bytes: prefix, schemas: RoundTripTests.schemas) }
            do {
                _ = try Program(bytes: prefix, schemas: RoundTripTests.schemas)
            } catch {
                #expect(error.reason == .truncated, "length \(length): \(error)")
            }
        }
    }

    @Test func errorOffsetsPointAtTheProblem() {
        let opcode = Self.patchedPayload(.code, at: 1, to: 0xEE)
        // Header, kind section (id, length, byte), code section (id, length, count): then four
        // bytes an instruction.
        let codeStart = ProgramFormat.headerSize + 3 + 3
        do {
            _ = try Program(bytes: opcode, schemas: RoundTripTests.schemas)
        } catch {
            #expect(error.offset == codeStart)
        }
        let underflow = Self.unverified(Support.program([.pushConstant(0), .jumpIfFalse(0), .not, .returnBool]))
        do {
            _ = try Program(bytes: underflow)
        } catch {
            #expect(error.reason == Self.failing(2, .stackUnderflow(depth: 0, pops: 1)))
            #expect(error.offset == codeStart + 2 * 4)
        }
    }

    // MARK: - Fuzzing

    static let seeds: [[UInt8]] = RoundTripTests.rules.flatMap { rule in
        [false, true].compactMap { bound in try? Support.compile(rule, bound: bound).serialized() }
    }

    /// Mutates `bytes` in one of the ways real damage and hostile edits look.
    static func mutate(_ bytes: inout [UInt8], _ generator: inout SeededGenerator) {
        guard bytes.count > ProgramFormat.headerSize + 1 else { return }
        let body = ProgramFormat.headerSize..<bytes.count
        let position = Int.random(in: body, using: &generator)
        let interesting: [UInt8] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0xFE, 0x40]
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
        case 1: bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case 2: bytes[position] = interesting[Int.random(in: interesting.indices, using: &generator)]
        case 3: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
        case 4: bytes.remove(at: position)
        case 5: bytes.removeLast(Int.random(in: 0...(bytes.count - position), using: &generator))
        case 6:
            let end = min(bytes.count, position + Int.random(in: 1...16, using: &generator))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        default:
            // Operand bytes of the code are where the verifier matters most.
            let index = Int.random(in: 0..<4, using: &generator)
            if position + index < bytes.count { bytes[position + index] = UInt8.random(in: 0...8, using: &generator) }
        }
    }

    /// Thousands of byte-level mutations of valid programs: loading never crashes, and what
    /// loads has verified, runs in the VM without crashing, and serializes back to itself.
    @Test func randomBytesNeverCrash() throws {
        var generator = SeededGenerator(seed: 0x5EED_F00D)
        var loaded = 0
        for _ in 0..<20000 {
            var bytes = Self.seeds[Int.random(in: Self.seeds.indices, using: &generator)]
            for _ in 0..<Int.random(in: 1...3, using: &generator) { Self.mutate(&bytes, &generator) }
            if Int.random(in: 0..<10, using: &generator) != 0 { bytes = Support.relengthed(bytes) }
            guard let program = try? Program(bytes: bytes, schemas: RoundTripTests.schemas) else { continue }
            loaded += 1
            try Verifier.verify(program)
            for object in RoundTripTests.objects { _ = Support.run(program, on: object) }
            #expect(try Program(bytes: try program.serialized(), schemas: RoundTripTests.schemas) == program)
        }
        #expect(loaded > 800, "only \(loaded) of 20000 mutations loaded")
    }

    /// Instruction-level mutations of compiled programs, re-serialized: most no longer verify;
    /// every one that does runs without crashing.
    @Test func randomInstructionsNeverCrash() throws {
        var generator = SeededGenerator(seed: 0xC0DE)
        let programs = try RoundTripTests.rules.map { try Support.compile($0, bound: true) }
        var verified = 0
        for _ in 0..<10000 {
            let original = programs[Int.random(in: programs.indices, using: &generator)]
            var code = original.code
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let index = Int.random(in: code.indices, using: &generator)
                let opcode = Opcode.allCases[Int.random(in: Opcode.allCases.indices, using: &generator)]
                let small = { (generator: inout SeededGenerator) in UInt8.random(in: 0...5, using: &generator) }
                let offset = UInt8(bitPattern: Int8.random(in: -4...4, using: &generator))
                let operands = (
                    opcode.hasJump ? offset : small(&generator), opcode.hasJump ? (offset >> 7) * 0xFF : 0,
                    small(&generator)
                )
                if let instruction = Instruction(opcode: opcode.rawValue, operands: operands) {
                    code[index] = instruction
                }
            }
            let mutated = Program(
                kind: original.kind, code: code, constants: original.constants, keyPaths: original.keyPaths,
                variables: original.variables, sourceRanges: original.sourceRanges,
                maximumStackDepth: original.maximumStackDepth, maximumSubqueryDepth: original.maximumSubqueryDepth,
                source: original.source)
            guard let program = try? Program(bytes: try mutated.serialized(), schemas: RoundTripTests.schemas) else {
                continue
            }
            verified += 1
            for object in RoundTripTests.objects { _ = Support.run(program, on: object) }
        }
        #expect(verified > 300, "only \(verified) of 10000 mutations verified")
    }
}

extension Opcode {
    /// Whether the first two operand bytes are a jump offset, for the mutation fuzzer.
    fileprivate var hasJump: Bool {
        Instruction(opcode: rawValue, operands: (0, 0, 0))?.jumpOffset != nil
    }
}
