import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// Serialize → load → evaluate gives what the original program gives.
@Suite struct RoundTripTests {
    /// Rules over ``Document``, covering every instruction the compiler emits.
    static let rules: [String] = [
        "name == 'Report.pdf'",
        "byteCount > 1000 AND NOT isHidden == YES",
        "isHidden == YES OR byteCount == 0",
        "hidden == NO",
        "name BEGINSWITH[c] 'rep'",
        "name ENDSWITH '.txt' OR name CONTAINS[cd] 'NOTE'",
        "name LIKE '*.pdf'",
        "name MATCHES '.*pdf'",
        "ANY tags == 'work'",
        "ALL tags IN {'work', 'urgent'}",
        "NOT ANY tags == 'home'",
        "owner.name == $name",
        "owner.age BETWEEN {20, 40}",
        "owner.isAdmin == YES",
        "ANY editors.name == 'Bob'",
        "SUBQUERY(editors, $e, $e.age > 30).@count > 0",
        "SUBQUERY(editors, $e, $e.isAdmin == YES AND SUBQUERY(tags, $t, $t == 'work').@count > 0).@count == 1",
        "SUBQUERY(tags, $t, $t BEGINSWITH 'u').@count >= 1",
        "TERNARY(isHidden == YES, 'h', 'v') == 'v'",
        "expr: TERNARY(byteCount > $limit, 'big', 'small')",
        "FUNCTION(name, 'uppercaseString') == 'REPORT.PDF'",
        "expr: FUNCTION(owner.name, 'hasPrefix:', 'A')",
        "$x := byteCount * 2 == $x",
        "expr: $y := byteCount + 1",
        "byteCount + 1 > 10 * 2 - 3",
        "expr: byteCount * 2 + byteCount / 4",
        "expr: {1, 2, byteCount}",
        "tags[FIRST] == 'work'",
        "tags[LAST] == 'urgent'",
        "tags[SIZE] == 2",
        "expr: tags[0]",
        "info.rank == 2",
        "info['label'] == 'red'",
        "modified > CAST(0, 'NSDate')",
        "modificationDate < now()",
        "expr: tags UNION {'x'}",
        "expr: tags INTERSECTION {'work'}",
        "expr: tags MINUS {'work'}",
        "expr: sum({byteCount, 1, 2})",
        "expr: SUBQUERY(editors, $e, $e.age < 50).name",
        "self.name == name",
        "FALSEPREDICATE OR byteCount IN {0, 42}",
        "$key == 'name'",
        "editors.@count == 2",
        "editors.@avg.age > 30",
        "expr: owner.name",
        "byteCount == $undefined",
        "name < 5",
        "expr: {1.5, -2, 'é', nil, {TRUE, FALSE}}",
        "ANYKEY == 1",
        "owner.$key == 'Ada'",
    ]

    static let schemas = [Document.schema, Person.schema]

    static let objects: [Value] =
        Document.samples + [
            .nil, .dictionary(["name": .string("x"), "byteCount": .int(3), "tags": .array([.string("work")])]),
        ]

    @Test(arguments: rules)
    func serializeLoadEvaluate(_ rule: String) throws {
        for bound in [false, true] {
            let program = try Support.compile(rule, bound: bound)
            let bytes = try program.serialized()
            let loaded = try Program(bytes: bytes, schemas: Self.schemas)
            #expect(loaded == program, "\(rule) (bound: \(bound))")
            #expect(try loaded.serialized() == bytes, "re-serializing differs: \(rule)")
            for object in Self.objects {
                #expect(
                    Support.run(loaded, on: object) == Support.run(program, on: object),
                    "\(rule) (bound: \(bound)) on \(object)")
            }
        }
    }

    /// The bound rules do reach fields by slot, so the schema path of the format is exercised.
    @Test func boundRulesUseFields() throws {
        var fields = 0
        for rule in Self.rules {
            for path in try Support.compile(rule, bound: true).keyPaths {
                fields += path.filter { if case .field = $0 { true } else { false } }.count
            }
        }
        #expect(fields > 30)
    }

    @Test func conformanceRulesRoundTrip() throws {
        for rule in VerifierTests.conformanceRules {
            guard let program = try? Support.compile(rule) else { continue }
            let bytes: [UInt8]
            do {
                bytes = try program.serialized()
            } catch {
                Issue.record("\(rule): \(error)")
                continue
            }
            #expect(try Program(bytes: bytes) == program, "\(rule)")
        }
    }

    @Test func everyValueKindRoundTrips() throws {
        let values: [Value] = [
            .nil, .null, .bool(false), .bool(true), .int(0), .int(-1), .int(Int64.min), .int(Int64.max), .uint(0),
            .uint(UInt64.max), .double(-0.0), .double(.nan), .double(.infinity), .double(.leastNonzeroMagnitude),
            .decimal(Decimal(string: "-12.5") ?? 0), .decimal(.nan), .decimal(Decimal.greatestFiniteMagnitude),
            .string(""), .string("naïve 🧪"), .date(secondsSinceReferenceDate: -1.5), .data([]), .data([0, 255, 7]),
            .array([]), .array([.int(1), .array([.null])]), .set([.string("a"), .int(2)]),
            .dictionary([:]), .dictionary(["b": .int(1), "a": .dictionary(["é": .set([])])]),
        ]
        let program = Support.program([.pushConstant(0), .returnBool], constants: [.bool(true)] + values)
        let loaded = try Program(bytes: try program.serialized())
        #expect(loaded.constants == program.constants)
        #expect(loaded == program)
        // -0.0 == 0.0, so check the sign survives separately.
        guard case .double(let zero) = loaded.constants[11] else {
            Issue.record("constant 11 is not a double")
            return
        }
        #expect(zero.sign == .minus)
    }

    @Test func encodingIsDeterministic() throws {
        var forward: [String: Value] = [:]
        var backward: [String: Value] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { forward[key] = .string(key) }
        for key in keys.reversed() { backward[key] = .string(key) }
        let first = Support.program([.pushConstant(0), .returnBool], constants: [.bool(true), .dictionary(forward)])
        let second = Support.program([.pushConstant(0), .returnBool], constants: [.bool(true), .dictionary(backward)])
        #expect(try first.serialized() == second.serialized())
        let rule = try Support.compile(RoundTripTests.rules[16], bound: true)
        #expect(try rule.serialized() == rule.serialized())
    }

    @Test func objectConstantsAreRefused() {
        let person = Value.object(Person(name: "a", age: 1, isAdmin: false))
        let program = Support.program([.pushConstant(0), .returnBool], constants: [.bool(true), .array([person])])
        #expect(throws: ProgramEncodingError.objectConstant(index: 1)) { try program.serialized() }
        var deep = Value.int(1)
        for _ in 0..<ProgramFormat.maximumConstantNesting { deep = .array([deep]) }
        let tooDeep = Support.program([.pushConstant(0), .returnBool], constants: [.bool(true), deep])
        #expect(throws: ProgramEncodingError.constantTooDeep(index: 1)) { try tooDeep.serialized() }
    }

    @Test func headerLayout() throws {
        let bytes = try Support.compile("name == 'x'").serialized()
        #expect(Array(bytes[0..<4]) == Array("PRED".utf8))
        #expect(bytes[4] == 2 && bytes[5] == 0)
        let length = bytes[6..<10].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(length == bytes.count - ProgramFormat.headerSize)
        #expect(Support.sections(of: bytes).map(\.0) == ProgramSection.allCases.map(\.rawValue))
    }

    @Test func checksumIsCRC32() {
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        #expect(CRC32.checksum([][...]) == 0)
    }
}
