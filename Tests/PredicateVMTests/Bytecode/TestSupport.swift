import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue

@testable import PredicateVM

/// A person, the element type of documents' `owner` and `editors`: a second schema, so that
/// bound key paths cross from one schema into another.
struct Person: KeyValueCoding {
    static let schema = Schema(
        typeName: "Person",
        fields: [.init("name", .string), .init("age", .integer), .init("isAdmin", .bool)])

    var schema: Schema { Person.schema }
    let name: String
    let age: Int64
    let isAdmin: Bool

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(name)
        case 1: return .int(age)
        case 2: return .bool(isAdmin)
        default: return .nil
        }
    }
}

/// A document, the type of `SELF` in the bound rules.
struct Document: KeyValueCoding {
    static let schema = Schema(
        typeName: "Document",
        fields: [
            .init("name", .string), .init("byteCount", .integer), .init("isHidden", .bool),
            .init("tags", .array(.string)),
            .init("owner", .object(SchemaReference(Person.schema))),
            .init("editors", .array(.object(SchemaReference(Person.schema)))),
            .init("info", .dictionary(.any)), .init("modified", .date, aliases: ["modificationDate"]),
        ])

    var schema: Schema { Document.schema }
    let name: String
    let byteCount: Int64
    let isHidden: Bool
    let tags: [String]
    let owner: Person?
    let editors: [Person]
    let info: [String: Value]
    let modified: Double

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(name)
        case 1: return .int(byteCount)
        case 2: return .bool(isHidden)
        case 3: return .array(tags.map(Value.string))
        case 4: return owner.map { .object($0) } ?? .nil
        case 5: return .array(editors.map { .object($0) })
        case 6: return .dictionary(info)
        case 7: return .date(secondsSinceReferenceDate: modified)
        default: return .nil
        }
    }

    static let samples: [Value] = [
        .object(
            Document(
                name: "Report.pdf", byteCount: 120_000, isHidden: false, tags: ["work", "urgent"],
                owner: Person(name: "Ada", age: 36, isAdmin: true),
                editors: [Person(name: "Bob", age: 25, isAdmin: false), Person(name: "Cy", age: 61, isAdmin: true)],
                info: ["rank": .int(2), "label": .string("red")], modified: 700_000_000)),
        .object(
            Document(
                name: ".hidden", byteCount: 0, isHidden: true, tags: [], owner: nil, editors: [], info: [:],
                modified: 0)),
        .object(
            Document(
                name: "notes.txt", byteCount: 42, isHidden: false, tags: ["home"],
                owner: Person(name: "Bob", age: 25, isAdmin: false),
                editors: [Person(name: "Bob", age: 25, isAdmin: false)], info: ["rank": .int(9)],
                modified: -1)),
    ]

    static let selfType = ValueType.object(SchemaReference(Document.schema))
}

/// What one evaluation produced, comparable across engines and program copies.
enum Outcome: Hashable, CustomStringConvertible {
    case value(Value)
    case error(EvaluationError.Kind, String, SourceRange?)

    var description: String {
        switch self {
        case .value(let value): return "\(value)"
        case .error(let kind, let message, let range): return "error \(kind) \(message) at \(String(describing: range))"
        }
    }
}

/// Helpers shared by the suites.
enum Support {
    /// Compiles `rule` (an expression when it starts with `expr: `), bound to ``Document`` when
    /// `bound`.
    static func compile(_ rule: String, bound: Bool = false) throws -> Program {
        if rule.hasPrefix("expr: ") {
            let text = String(rule.dropFirst(6))
            var expression = try PredicateParser.parseExpression(text).expression
            if bound { expression = Binder.bind(expression, selfType: Document.selfType, variables: variableTypes) }
            return try Compiler.compile(expression, source: text)
        }
        var predicate = try PredicateParser.parsePredicate(rule).predicate
        if bound { predicate = Binder.bind(predicate, selfType: Document.selfType, variables: variableTypes) }
        return try Compiler.compile(predicate, source: rule)
    }

    static let variables: [String: Value] = ["limit": .int(100), "name": .string("Bob"), "key": .string("name")]
    static var variableTypes: [String: ValueType] { variables.mapValues { Binder.type(describing: $0) } }

    /// Runs `program` on `object` and captures the result or the error.
    static func run(_ program: Program, on object: Value, variables: [String: Value] = Support.variables) -> Outcome {
        var machine = VirtualMachine(program: program)
        do {
            switch program.kind {
            case .predicate: return .value(.bool(try machine.evaluate(on: object, variables: variables)))
            case .expression: return .value(try machine.evaluateExpression(on: object, variables: variables))
            case .ruleSet:
                return .value(.array(machine.evaluateRules(on: object, variables: variables).bits.map(Value.uint)))
            }
        } catch {
            return .error(error.kind, error.message, error.range)
        }
    }

    /// `bytes` with the header's checksum recomputed, so that a deliberately damaged body
    /// reaches the structural checks instead of stopping at the checksum.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= ProgramFormat.headerSize else { return bytes }
        var copy = bytes
        let crc = CRC32.checksum(copy[ProgramFormat.headerSize...])
        for index in 0..<4 { copy[10 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return copy
    }

    /// `bytes` with the header's body length set to what follows the header, then resealed.
    static func relengthed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= ProgramFormat.headerSize else { return bytes }
        var copy = bytes
        let length = UInt32(truncatingIfNeeded: bytes.count - ProgramFormat.headerSize)
        for index in 0..<4 { copy[6 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        return resealed(copy)
    }

    /// A program with defaults for everything but the code, for hand-written verifier cases.
    static func program(
        _ code: [Instruction], kind: Program.Kind = .predicate, constants: [Value] = [.bool(true), .string("s")],
        keyPaths: [[KeyComponent]] = [[.key("a")]], variables: [String] = ["v"], maximumStackDepth: Int? = nil,
        maximumSubqueryDepth: Int? = nil
    ) -> Program {
        Program(
            kind: kind, code: code, constants: constants, keyPaths: keyPaths, variables: variables,
            sourceRanges: Array(repeating: SourceRange(0, 0), count: code.count),
            maximumStackDepth: maximumStackDepth ?? min(code.count, 4),
            maximumSubqueryDepth: maximumSubqueryDepth ?? min(code.count, 2), source: "")
    }
}

/// SplitMix64: a small seeded generator, so that a failing fuzz case can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension Support {
    /// The sections of a serialized program, as (id, payload) pairs, for tests that rebuild a
    /// program with one section replaced.
    static func sections(of bytes: [UInt8]) -> [(UInt8, [UInt8])] {
        var reader = ByteReader(bytes: bytes, position: ProgramFormat.headerSize, end: bytes.count)
        var sections: [(UInt8, [UInt8])] = []
        while reader.remaining > 0 {
            guard let id = try? reader.byte(), let length = try? reader.count(minimumElementSize: 1),
                let payload = try? reader.take(length)
            else { break }
            sections.append((id, Array(payload)))
        }
        return sections
    }

    /// A serialized program made of `sections`, with a correct header unless told otherwise.
    static func assemble(_ sections: [(UInt8, [UInt8])]) -> [UInt8] {
        var body = ByteWriter()
        for (id, payload) in sections {
            body.byte(id)
            body.count(payload.count)
            body.bytes(payload)
        }
        return sealed(body.bytes)
    }

    /// `body` behind a correct header.
    static func sealed(_ body: [UInt8]) -> [UInt8] {
        var output = ByteWriter()
        output.bytes(ProgramFormat.magic)
        output.fixed(UInt64(ProgramFormat.version), width: 2)
        output.fixed(UInt64(body.count), width: 4)
        output.fixed(UInt64(CRC32.checksum(body[...])), width: 4)
        output.bytes(body)
        return output.bytes
    }

    /// Bytes written with the format's own primitives.
    static func written(_ write: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter()
        write(&writer)
        return writer.bytes
    }

    /// `bytes` with section `id`'s payload replaced by `payload`.
    static func replacing(_ id: ProgramSection, with payload: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        assemble(sections(of: bytes).map { $0.0 == id.rawValue ? ($0.0, payload) : $0 })
    }

    /// The payload of section `id`.
    static func payload(_ id: ProgramSection, in bytes: [UInt8]) -> [UInt8] {
        sections(of: bytes).first { $0.0 == id.rawValue }?.1 ?? []
    }
}
