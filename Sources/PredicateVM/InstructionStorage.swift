import PredicateBytecode

/// A copy of a program's instructions that the instruction loop reads through a plain pointer:
/// reading an array held by the machine would retain and release its buffer on every
/// evaluation, an atomic operation on memory that every thread running the program shares.
///
/// Immutable after initialisation, so sharing it between machines and threads is safe.
final class InstructionStorage: @unchecked Sendable {
    let base: UnsafeMutablePointer<Instruction>
    let count: Int

    init(_ code: [Instruction]) {
        count = code.count
        base = .allocate(capacity: max(1, code.count))
        // Instructions are plain data: no initialisation or destruction of their own.
        code.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
        }
    }

    deinit { base.deallocate() }
}
