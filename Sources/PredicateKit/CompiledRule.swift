import Foundation
import PredicateBatch
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// What every kind of compiled rule holds: the text, the program bound to its `SELF` type, and
/// the machines that run it.
struct CompiledRule: Sendable {
    let format: String
    /// The tree as compiled (arguments and variables substituted, bound), for explanations.
    let predicate: PredicateNode
    let warnings: [Diagnostic]
    let program: Program
    let environment: EvaluationEnvironment
    let machines: MachinePool

    /// Parses `format` with `arguments`, substitutes `variables` (so that they are constants, as
    /// `%@` arguments are, and keep the engines' prepared tests and column kernels), binds it to
    /// `selfType` and compiles it.
    /// A key declared twice in `schema` (the items' schema) is an error: the rule could read
    /// the wrong field. A field named by a reserved word is a warning: rules reach it as `#name`.
    init(
        format: String, arguments: [Value], variables: [String: Value], selfType: ValueType, schema: Schema?,
        environment: EvaluationEnvironment, options: ParseOptions
    ) throws(Diagnostic) {
        let whole = SourceRange(0, format.utf8.count)
        var schemaWarnings: [Diagnostic] = []
        for problem in schema?.problems ?? [] {
            let diagnostic = Diagnostic(
                .ruleCheck(problem.description), severity: problem.kind == .duplicateKey ? .error : .warning,
                range: whole, source: format)
            guard problem.kind != .duplicateKey else { throw diagnostic }
            schemaWarnings.append(diagnostic)
        }
        let parsed = try PredicateParser.parsePredicate(format, arguments: arguments, options: options)
        let bound = Binder.bind(parsed.predicate.substituting(variables), selfType: selfType)
        do throws(CompileError) {
            program = try Compiler.compile(bound, source: format)
        } catch {
            throw Diagnostic(.evaluationFailed("the rule does not compile: \(error)"), range: whole, source: format)
        }
        self.format = format
        predicate = bound
        warnings = schemaWarnings + parsed.warnings
        self.environment = environment
        machines = MachinePool(program: program, environment: environment)
    }

    /// Why the rule gives its answer for `object`: each clause's value, what short-circuiting
    /// skipped, where an error arose (``Explanation/text(source:colored:)`` renders it).
    func explain(_ object: Value) -> Explanation {
        Interpreter(environment: environment).explain(predicate, on: object)
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
