import PredicateSyntax
import Testing

@testable import PredicateVM

/// The four-byte instruction encoding: every case survives encode and decode, and decoding is
/// defined for every byte pattern.
@Suite struct InstructionEncodingTests {
    /// One instance of every case, with operands at their extremes where they have any.
    static let everyCase: [Instruction] = [
        .pushConstant(0), .pushConstant(UInt16.max), .pushSelf, .loadVariable(1), .storeVariable(0x1234),
        .loadKeyPath(7), .loadSelfKeyPath(UInt16.max),
        .compare(op: ComparisonOperator.allCases[12], options: ComparisonOptions(rawValue: 0x1F), quantifier: .all),
        .callFunction(3, arity: 255), .invoke(0xABCD, arity: 0), .makeArray(UInt16.max), .indexSymbol(.size), .index,
        .cast, .setOperation(.intersection), .not, .test(UInt16.max), .testAnd(Int16.min, site: 255),
        .testOr(-3, site: 0),
        .jump(Int16.min), .jump(Int16.max), .jumpIfFalse(-1), .jumpIfFalseOrPop(2),
        .jumpIfTrueOrPop(-300), .jumpIfNil(0), .jumpIfFalse(0), .saveVariables, .restoreVariables,
        .subqueryBegin(exit: -2, variable: 255), .subqueryNext(9), .subqueryCollect(-5), .returnBool, .returnValue,
        .fail(4), .memoLoad(skip: -7, slot: 255), .memoStore(UInt16.max), .ruleEnd(3), .returnRules,
    ]

    @Test func encodedSizeIsFourBytes() throws {
        // The code section holds a one-byte count (fewer than 128 instructions here), then the
        // opcode and three operand bytes of each instruction.
        let program = Support.program(Self.everyCase)
        let code = Support.payload(.code, in: try program.serialized())
        #expect(code.count == 1 + 4 * Self.everyCase.count)
        #expect(program.codeSize == 4 * Self.everyCase.count)
        for (index, instruction) in Self.everyCase.enumerated() {
            let operands = instruction.operands
            #expect(
                Array(code[1 + 4 * index..<5 + 4 * index])
                    == [instruction.opcode.rawValue, operands.0, operands.1, operands.2])
        }
        // In memory too an instruction is four bytes (`subqueryBegin`, `memoLoad`, `testAnd` and `testOr`
        // declare their Int16 first so that their payloads pack).
        #expect(MemoryLayout<Instruction>.stride == 4, "stride \(MemoryLayout<Instruction>.stride)")
    }

    @Test func everyOpcodeIsCovered() {
        #expect(Set(Self.everyCase.map(\.opcode)) == Set(Opcode.allCases))
    }

    @Test(arguments: everyCase)
    func roundTrips(_ instruction: Instruction) {
        let operands = instruction.operands
        let decoded = Instruction(opcode: instruction.opcode.rawValue, operands: operands)
        #expect(decoded == instruction)
        #expect(decoded?.opcode == instruction.opcode)
        #expect(Opcode(rawValue: instruction.opcode.rawValue) == instruction.opcode)
    }

    @Test func unknownOpcodesDoNotDecode() {
        for raw in Opcode.allCases.count...Int(UInt8.max) {
            #expect(Instruction(opcode: UInt8(raw), operands: (0, 0, 0)) == nil)
        }
    }

    /// Any operand bytes either decode, and re-encoding gives canonical bytes that decode to the
    /// same instruction, or name no sub-code; only typed sub-codes (`CMP`'s operator and
    /// quantifier, `INDEX_SYM`, `SET_OP`) can refuse.
    @Test func decodingIsCanonical() {
        var generator = SeededGenerator(seed: 0x1E57)
        let typed: Set<OperandSpec.Kind> = [.comparisonOperator, .quantifier, .indexSymbol, .setOperator]
        for opcode in Opcode.allCases {
            var decodedAny = false
            for _ in 0..<2000 {
                let operands = (
                    UInt8.random(in: 0...255, using: &generator),
                    UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator)
                )
                guard let instruction = Instruction(opcode: opcode.rawValue, operands: operands) else {
                    #expect(opcode.facts.operands.contains { typed.contains($0.kind) }, "\(opcode) refused bytes")
                    continue
                }
                decodedAny = true
                #expect(instruction.opcode == opcode)
                #expect(Instruction(opcode: opcode.rawValue, operands: instruction.operands) == instruction)
            }
            #expect(decodedAny || opcode == .compare, "\(opcode) never decoded")
        }
    }
}
