import Foundation
import PredicateActions
import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// One hostile or malformed input of the bad-input catalogue, and what each entry point that
/// reads it must answer: the exact error, rendered as one line, or the result.
struct HostileInput: CustomTestStringConvertibleShim, Sendable {
    /// What the input is, and so which entry point reads it.
    enum Input: Sendable {
        /// A rule, parsed (and, for evaluation, SELF given as JSON text).
        case rule(String, options: ParseOptions = ParseOptions())
        /// A rule evaluated by the interpreter and the VM on a JSON item; both must answer
        /// the same, under the given limits.
        case evaluation(String, item: String, limits: EvaluationLimits = EvaluationLimits())
        /// A JSON item, as `predicate eval` and the differential tests read it.
        case json([UInt8])
        /// An `Info.plist`, through ``FileProviderActionList``: the list's error, or the first
        /// action's problem for a selection of one item named forty `a`s and `!`.
        case propertyList([UInt8])
        /// A serialized program, through ``Program/init(bytes:schemas:limits:)``.
        case program([UInt8], limits: ProgramLimits = ProgramLimits())
    }

    let name: String
    let input: Input
    let expected: String

    init(_ name: String, _ input: Input, _ expected: String) {
        self.name = name
        self.input = input
        self.expected = expected
    }

    var testDescription: String { name }

    /// What the entry point answered, as one line.
    func outcome() -> String {
        switch input {
        case .rule(let source, let options):
            do {
                _ = try PredicateParser.parsePredicate(source, options: options)
                return "parsed"
            } catch {
                return "\(error.location): \(error.message)"
            }
        case .evaluation(let rule, let item, let limits):
            return Self.evaluate(rule, item, limits)
        case .json(let bytes):
            do {
                let json = try JSON.parse(bytes)
                do {
                    _ = try Value(json: json)
                    return "read"
                } catch {
                    return "conversion: \(error)"
                }
            } catch {
                return "\(error.line):\(error.column): \(error.message)"
            }
        case .propertyList(let bytes):
            do {
                let list = try FileProviderActionList(propertyListBytes: bytes)
                let item = FileProviderItem(
                    itemIdentifier: "1", parentItemIdentifier: "root", filename: String(repeating: "a", count: 40) + "!"
                )
                guard let first = list.outcomes(selectedItems: [item]).first else { return "no actions" }
                guard let problem = first.problem else { return first.isEnabled ? "shown" : "hidden" }
                return "\(problem.location): \(problem.message)"
            } catch {
                return error.message
            }
        case .program(let bytes, let limits):
            do {
                _ = try Program(bytes: bytes, schemas: [], limits: limits)
                return "loaded"
            } catch {
                return error.description
            }
        }
    }

    /// Both engines' answer when they agree, else both answers.
    private static func evaluate(_ rule: String, _ item: String, _ limits: EvaluationLimits) -> String {
        guard let json = try? JSON.parse(item), let object = try? Value(json: json) else { return "bad item" }
        let predicate: PredicateSyntax.PredicateNode
        do {
            predicate = try PredicateParser.parsePredicate(rule).predicate
        } catch {
            return "\(error.location): \(error.message)"
        }
        let environment = EvaluationEnvironment(limits: limits)
        let interpreted = describe { () throws(EvaluationError) in
            try Interpreter(environment: environment).evaluate(predicate, on: object)
        }
        let program: Program
        do {
            program = try Compiler.compile(predicate, source: rule)
        } catch {
            return "compile: \(error)"
        }
        var machine = VirtualMachine(program: program, environment: environment)
        let run = describe { () throws(EvaluationError) in try machine.evaluate(on: object) }
        return interpreted == run ? interpreted : "interpreter: \(interpreted) / VM: \(run)"
    }

    private static func describe(_ body: () throws(EvaluationError) -> Bool) -> String {
        do {
            return "\(try body())"
        } catch {
            return "\(error.kind) at \(error.range.map { "\($0)" } ?? "?"): \(error.message)"
        }
    }
}

/// Swift Testing's `CustomTestStringConvertible`, named here so the case type stays readable.
typealias CustomTestStringConvertibleShim = CustomTestStringConvertible
