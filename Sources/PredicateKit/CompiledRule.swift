import Foundation
import PredicateBatch
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// What every kind of compiled rule holds: the text, the program bound to its `SELF` type, and
/// the machines that run it.
struct CompiledRule: Sendable {
    let format: String
    let warnings: [Diagnostic]
    let program: Program
    let environment: EvaluationEnvironment
    let machines: MachinePool

    /// Parses `format` with `arguments`, substitutes `variables` (so that they are constants, as
    /// `%@` arguments are, and keep the engines' prepared tests and column kernels), binds it to
    /// `selfType` and compiles it.
    init(
        format: String, arguments: [Value], variables: [String: Value], selfType: ValueType,
        environment: EvaluationEnvironment, options: ParseOptions
    ) throws(Diagnostic) {
        let parsed = try PredicateParser.parsePredicate(format, arguments: arguments, options: options)
        let bound = Binder.bind(parsed.predicate.substituting(variables), selfType: selfType)
        do throws(CompileError) {
            program = try Compiler.compile(bound, source: format)
        } catch {
            throw Diagnostic(
                .evaluationFailed("the rule does not compile: \(error)"), range: SourceRange(0, format.utf8.count),
                source: format)
        }
        self.format = format
        warnings = parsed.warnings
        self.environment = environment
        machines = MachinePool(program: program, environment: environment)
    }
}

/// Idle machines for one program, so that a `Sendable` rule can be evaluated from many threads
/// at once without building a machine (which lowers the whole program) for every call.
final class MachinePool: @unchecked Sendable {
    // @unchecked: `idle` is only touched with `lock` held; the machines are Sendable values.
    private let lock = NSLock()
    private var idle: [VirtualMachine] = []
    private let program: Program
    private let environment: EvaluationEnvironment
    /// More idle machines than this are dropped: as many threads as a machine evaluates on at
    /// once is plenty.
    private static let maximumIdle = 64

    init(program: Program, environment: EvaluationEnvironment) {
        self.program = program
        self.environment = environment
    }

    /// Runs `body` with a machine no other thread is using.
    func withMachine<Result, Failure: Error>(
        _ body: (inout VirtualMachine) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        var machine = reused ?? VirtualMachine(program: program, environment: environment)
        defer {
            lock.lock()
            if idle.count < Self.maximumIdle { idle.append(machine) }
            lock.unlock()
        }
        return try body(&machine)
    }
}
