import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// The instruction table has every fact for every opcode, and the facts agree with each other;
/// every instruction built from its row alone survives encoding, decoding and disassembly.
@Suite struct InstructionTableTests {
    @Test func mnemonicsAreNamedAndDistinct() {
        let names = Opcode.allCases.map(\.facts.mnemonic)
        #expect(names.allSatisfy { !$0.isEmpty && $0 == $0.uppercased() })
        #expect(Set(names).count == names.count)
    }

    @Test(arguments: Opcode.allCases)
    func rowIsComplete(_ opcode: Opcode) {
        let facts = opcode.facts
        // Operands fit in three bytes without overlapping.
        var used: Set<Int> = []
        for operand in facts.operands {
            let bytes: [Int]
            switch operand.placement {
            case .wide: bytes = [0, 1]
            case .byte(let index): bytes = [index]
            }
            for byte in bytes {
                #expect((0...2).contains(byte), "\(opcode): operand byte \(byte)")
                #expect(used.insert(byte).inserted, "\(opcode): two operands share byte \(byte)")
            }
            if operand.kind == .jump { #expect(operand.placement == .wide, "\(opcode): a jump needs 16 bits") }
        }
        #expect(facts.operands.filter { $0.kind == .jump }.count <= 1)
        // A jump has a taken path, and nothing else does.
        let jumps = facts.position(of: .jump) != nil
        #expect(jumps == (facts.taken != nil), "\(opcode): jump operand and taken effect disagree")
        // An instruction that neither falls through nor jumps says how it ends, and only it does.
        #expect((!facts.fallsThrough && !jumps) == (facts.ends != nil), "\(opcode): termination")
        // Counted pops name their count.
        if facts.stack.popsOperand {
            #expect(facts.position(of: .count) != nil || facts.position(of: .arity) != nil)
        }
        // Loop roles: every part of a SUBQUERY loop jumps, and the scope facts match the role.
        switch facts.loopRole {
        case .begin: #expect(jumps && facts.scopes.fallThrough == .open(.subquery))
        case .next: #expect(jumps && facts.scopes.taken == .close(.subquery))
        case .collect: #expect(jumps && !facts.fallsThrough)
        case .none: #expect(facts.scopes.fallThrough != .open(.subquery))
        }
        // A comparison site reads SELF through its receiver.
        #expect((facts.position(of: .site) != nil) == (facts.readsSelf == .throughSite))
        // Returns and FAIL: a return never fails, FAIL always does.
        if case .returns = facts.ends { #expect(!facts.mayFail) }
        if facts.ends == .fails { #expect(facts.mayFail) }
    }

    /// An instruction of `opcode` with every operand at `extreme` of its range, built from the row.
    static func instruction(_ opcode: Opcode, extreme high: Bool) -> Instruction? {
        var values = OperandValues()
        for (position, operand) in opcode.facts.operands.enumerated() {
            let value: Int
            switch operand.kind {
            case .jump: value = high ? Int(Int16.max) : Int(Int16.min)
            case .comparisonOperator: value = high ? ComparisonOperator.allCases.count - 1 : 0
            case .quantifier: value = high ? Quantifier.allCases.count - 1 : 0
            case .setOperator: value = high ? SetOperator.allCases.count - 1 : 0
            case .indexSymbol: value = high ? IndexSymbol.allCases.count - 1 : 0
            case .comparisonOptions: value = high ? 0x1F : 0
            case .constant, .stringConstant, .keyPath, .variable, .site, .count, .arity, .memoSlot, .rule:
                switch operand.placement {
                case .wide: value = high ? Int(UInt16.max) : 0
                case .byte: value = high ? Int(UInt8.max) : 0
                }
            }
            values[position] = value
        }
        return Instruction(opcode: opcode, values: values)
    }

    @Test(arguments: Opcode.allCases, [false, true])
    func rowBuiltInstructionsRoundTrip(_ opcode: Opcode, high: Bool) {
        guard let instruction = Self.instruction(opcode, extreme: high) else {
            Issue.record("\(opcode): the row's extreme operands do not build an instruction")
            return
        }
        #expect(instruction.opcode == opcode)
        #expect(Instruction(opcode: opcode.rawValue, operands: instruction.operands) == instruction)
        // The operand values read back from the bytes are the ones the row placed there.
        let values = instruction.operandValues
        for (position, operand) in opcode.facts.operands.enumerated() {
            #expect(operand.read(instruction.operands) == values[position], "\(opcode) operand \(position)")
        }
        if let offset = instruction.jumpOffset {
            #expect(instruction.withJumpOffset(offset == 0 ? 1 : 0)?.jumpOffset == (offset == 0 ? 1 : 0))
        } else {
            #expect(instruction.withJumpOffset(0) == nil)
        }
        // The listing names the instruction and every operand it has.
        let program = Program(
            kind: .predicate, code: [instruction], constants: [], keyPaths: [], variables: [],
            sourceRanges: [SourceRange(0, 0)], maximumStackDepth: 0, maximumSubqueryDepth: 0, source: "")
        let line = Disassembler.listing(program).split(separator: "\n").last.map(String.init) ?? ""
        #expect(line.contains(opcode.facts.mnemonic), "\(line)")
        if !opcode.facts.operands.isEmpty {
            let (operands, _) = Disassembler.describe(instruction, at: 0, in: program)
            #expect(!operands.isEmpty, "\(opcode): operands not listed")
        }
    }
}
