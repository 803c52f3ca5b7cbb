import PredicateBatch
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// A rule under test: a predicate, or a standalone expression.
enum Rule: Hashable {
    case predicate(PredicateNode)
    case expression(ExpressionNode)

    /// The rule as a format string (`expr: ` marks an expression, as in the conformance files).
    var format: String {
        switch self {
        case .predicate(let predicate): return predicate.format(.roundTripSafe)
        case .expression(let expression): return expression.format(.roundTripSafe)
        }
    }

    var isExpression: Bool {
        if case .expression = self { return true }
        return false
    }
}

/// One case: a rule, the object it runs on, and the bindings.
struct DifferentialCase {
    var rule: Rule
    var object: Value
    var variables: [String: Value]
}

/// What an engine answered.
enum Outcome: Equatable, CustomStringConvertible {
    case result(Bool)
    case value(Value)
    /// Kind, message and source range; engines must agree on all three.
    case error(EvaluationError)
    case compileError(String)

    var description: String {
        switch self {
        case .result(let flag): return "\(flag)"
        case .value(let value): return "= \(value)"
        case .error(let error):
            return "error \(error.kind) at \(error.range.map(\.description) ?? "?"): \(error.message)"
        case .compileError(let message): return "compile error: \(message)"
        }
    }

    /// The outcome as a bucket of the run's statistics.
    var category: String {
        switch self {
        case .result(let flag): return "\(flag)"
        case .value: return "value"
        case .error(let error): return "error \(error.kind)"
        case .compileError: return "compile error"
        }
    }
}

/// The ways of evaluating a rule that must agree.
struct Verdict {
    /// The rule as parsed from its format string (so that source ranges are real).
    let rule: Rule
    /// The format string.
    let source: String
    let outcomes: [(engine: String, outcome: Outcome)]

    var agrees: Bool {
        guard let first = outcomes.first?.outcome else { return true }
        return outcomes.allSatisfy { $0.outcome == first }
    }

    var reference: Outcome? { outcomes.first?.outcome }
}

/// The reference interpreter, the VM on the compiled rule, the VM on the rule bound to the
/// object's type (with and without `TEST` superinstructions, and reading an object in place
/// through a pointer), the interpreter on the bound rule and the batch engine; one environment (and so one pattern
/// cache) for all of them.
struct Engines {
    let environment: EvaluationEnvironment
    let interpreter: Interpreter

    init(limits: EvaluationLimits = EvaluationLimits()) {
        environment = EvaluationEnvironment(limits: limits)
        interpreter = Interpreter(environment: environment)
    }

    /// Parses `source` and evaluates it every way; `nil` when it does not parse.
    func verdict(_ source: String, isExpression: Bool, object: Value, variables: [String: Value]) -> Verdict? {
        let rule: Rule
        do {
            if isExpression {
                rule = .expression(try PredicateParser.parseExpression(source).expression)
            } else {
                rule = .predicate(try PredicateParser.parsePredicate(source).predicate)
            }
        } catch {
            return nil
        }
        let selfType = Binder.type(describing: object)
        let variableTypes = variables.mapValues { Binder.type(describing: $0) }
        let bound: Rule
        switch rule {
        case .predicate(let predicate):
            bound = .predicate(Binder.bind(predicate, selfType: selfType, variables: variableTypes))
        case .expression(let expression):
            bound = .expression(Binder.bind(expression, selfType: selfType, variables: variableTypes))
        }
        var outcomes = [
            ("interpreter", interpret(rule, object, variables)),
            ("vm", runMachine(rule, source, object, variables)),
            ("vm (bound)", runMachine(bound, source, object, variables)),
            ("vm (bound, unfused)", runMachine(bound, source, object, variables, fusing: false)),
            ("interpreter (bound)", interpret(bound, object, variables)),
        ]
        if !rule.isExpression, case .object(let item) = object {
            outcomes.append(("vm (bound, item pointer)", runMachine(bound, source, item, variables)))
        }
        if !rule.isExpression {
            outcomes.append(("batch", runBatch(rule, source, object, variables)))
            outcomes.append(("batch (bound)", runBatch(bound, source, object, variables)))
        }
        return Verdict(rule: rule, source: source, outcomes: outcomes)
    }

    /// Prints `testCase`'s rule, reparses it and evaluates it every way.
    func verdict(_ testCase: DifferentialCase) -> Verdict? {
        verdict(
            testCase.rule.format, isExpression: testCase.rule.isExpression, object: testCase.object,
            variables: testCase.variables)
    }

    private func interpret(_ rule: Rule, _ object: Value, _ variables: [String: Value]) -> Outcome {
        do throws(EvaluationError) {
            switch rule {
            case .predicate(let predicate):
                return .result(try interpreter.evaluate(predicate, on: object, variables: variables))
            case .expression(let expression):
                return .value(try interpreter.evaluate(expression, on: object, variables: variables))
            }
        } catch {
            return .error(error)
        }
    }

    /// The batch engine on a batch of seven rows, the object in rows 0, 3 and 6 and nil or an
    /// empty dictionary in the others (so every column has nils); the object's rows must agree.
    private func runBatch(_ rule: Rule, _ source: String, _ object: Value, _ variables: [String: Value]) -> Outcome {
        guard case .predicate(let predicate) = rule else { return .compileError("not a predicate") }
        let program: Program
        do throws(CompileError) {
            program = try Compiler.compile(predicate, source: source)
        } catch {
            return .compileError(error.message)
        }
        let rows: [Value] = [object, .nil, .dictionary([:]), object, .nil, .dictionary([:]), object]
        let result = BatchProgram(program, environment: environment).evaluate(rows, variables: variables)
        let outcomes = [0, 3, 6].map { row -> Outcome in
            if let failure = result.errors.first(where: { $0.row == row }) { return .error(failure.error) }
            return .result(result.matches(row))
        }
        return outcomes.allSatisfy { $0 == outcomes[0] }
            ? outcomes[0] : .compileError("rows of the same object differ: \(outcomes)")
    }

    /// The VM reading the object in place through a pointer (``VirtualMachine/evaluate(item:variables:)``).
    private func runMachine<Item: KeyValueCoding>(
        _ rule: Rule, _ source: String, _ item: Item, _ variables: [String: Value]
    ) -> Outcome {
        guard case .predicate(let predicate) = rule else { return .compileError("not a predicate") }
        let program: Program
        do throws(CompileError) {
            program = try Compiler.compile(predicate, source: source)
        } catch {
            return .compileError(error.message)
        }
        var machine = VirtualMachine(program: program, environment: environment)
        return withUnsafePointer(to: item) { pointer in
            do throws(EvaluationError) {
                return .result(try machine.evaluate(item: pointer, variables: variables))
            } catch {
                return .error(error)
            }
        }
    }

    private func runMachine(
        _ rule: Rule, _ source: String, _ object: Value, _ variables: [String: Value], fusing: Bool = true
    ) -> Outcome {
        let program: Program
        do throws(CompileError) {
            switch rule {
            case .predicate(let predicate): program = try Compiler.compile(predicate, source: source, fusing: fusing)
            case .expression(let expression):
                program = try Compiler.compile(expression, source: source, fusing: fusing)
            }
        } catch {
            return .compileError(error.message)
        }
        var machine = VirtualMachine(program: program, environment: environment)
        do throws(EvaluationError) {
            if rule.isExpression {
                return .value(try machine.evaluateExpression(on: object, variables: variables))
            }
            return .result(try machine.evaluate(on: object, variables: variables))
        } catch {
            return .error(error)
        }
    }
}
