/// How large a program may be: checked by the ``Compiler`` on its output and by the ``Verifier``
/// (so by every load of serialized bytes), so that a hostile rule or byte string cannot make the
/// host hold an arbitrarily large program. Operands are 16 bits, so no table can pass 65,536
/// entries whatever the limits say.
public struct ProgramLimits: Hashable, Sendable {
    /// The most instructions a program may have.
    public var maximumInstructions: Int
    /// The most entries the constant pool may have.
    public var maximumConstants: Int

    /// The defaults: 65,536 instructions (256 KiB of code) and 65,536 constants.
    public init(maximumInstructions: Int = 65_536, maximumConstants: Int = 65_536) {
        self.maximumInstructions = maximumInstructions
        self.maximumConstants = maximumConstants
    }

    /// The first limit `program` exceeds, as the verifier reports it.
    func check(_ program: Program) throws(VerificationError) {
        if program.code.count > maximumInstructions {
            throw VerificationError(
                instruction: nil,
                .tooLarge(table: "instructions", count: program.code.count, limit: maximumInstructions))
        }
        if program.constants.count > maximumConstants {
            throw VerificationError(
                instruction: nil, .tooLarge(table: "constants", count: program.constants.count, limit: maximumConstants)
            )
        }
    }
}
