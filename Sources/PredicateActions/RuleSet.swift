import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Many rules compiled into one program that answers all of them in one pass: what a sync
/// engine evaluates per item, or an extension per selection.
///
/// Work the rules share is done once per evaluation (each key path loaded once, each common
/// sub-expression computed once), yet every rule answers exactly what it would alone: an error
/// makes only its own rule false, and is reported.
///
/// ```swift
/// let rules = RuleSet(rules: ["isUploaded == NO", "documentSize > 1e6 AND isUploaded == NO"])
/// var evaluator = rules.makeEvaluator()
/// let answer = evaluator.evaluate(on: .object(item))
/// // answer.isSatisfied(1), answer.mask, answer.problems
/// ```
public struct RuleSet: Sendable {
    /// The rules' texts, in order: rule `r` is bit `r`.
    public let rules: [String]
    /// The one program for all the rules (a rule that did not parse stands there as `FALSEPREDICATE`).
    public let program: Program
    /// Why a rule can never be true: it did not parse (by rule index).
    public let problems: [Int: Diagnostic]
    /// The key paths each rule reads (see ``Footprint``).
    public let footprints: [[String]]
    private let layout: RuleSetSource

    /// The key paths any rule reads: an item change that touches none of them cannot change any
    /// answer.
    public var footprint: [String] { Array(Set(footprints.joined())).sorted() }

    /// Parses, prepares (against `selfType`, when given) and compiles `rules`.
    ///
    /// - Throws: ``CompileError`` when the rules together exceed what one program can address.
    public init(rules: [String], selfType: ValueType? = nil) throws(CompileError) {
        var compiled: [(predicate: PredicateNode, source: String)] = []
        var problems: [Int: Diagnostic] = [:]
        var footprints: [[String]] = []
        for (index, rule) in rules.enumerated() {
            do throws(Diagnostic) {
                var predicate = try PredicateParser.parsePredicate(rule).predicate
                footprints.append(Footprint.keyPaths(of: predicate))
                if let selfType { predicate = Binder.bind(predicate, selfType: selfType) }
                compiled.append((predicate, rule))
            } catch {
                problems[index] = error
                footprints.append([])
                compiled.append((PredicateNode(.constant(false)), rule))
            }
        }
        self.rules = rules
        self.problems = problems
        self.footprints = footprints
        layout = RuleSetSource(sources: rules)
        program = try Compiler.compileRuleSet(compiled)
    }

    /// A rule set from its parts, as ``init(serialized:schemas:limits:)`` loads them.
    init(rules: [String], program: Program, problems: [Int: Diagnostic], footprints: [[String]]) {
        self.rules = rules
        self.program = program
        self.problems = problems
        self.footprints = footprints
        layout = RuleSetSource(sources: rules)
    }

    /// A machine for this rule set; keep one per thread and reuse it.
    public func makeEvaluator(environment: EvaluationEnvironment = EvaluationEnvironment()) -> Evaluator {
        Evaluator(ruleSet: self, machine: VirtualMachine(program: program, environment: environment))
    }

    /// Evaluates the rule set for one input, with a fresh machine (keep an ``Evaluator`` to
    /// evaluate many).
    public func evaluate(on object: Value, variables: [String: Value] = [:]) -> RuleSetAnswer {
        var evaluator = makeEvaluator()
        return evaluator.evaluate(on: object, variables: variables)
    }

    /// Evaluates a rule set input after input, reusing its machine's scratch space.
    public struct Evaluator: Sendable {
        let ruleSet: RuleSet
        var machine: VirtualMachine

        /// Every rule's answer for each input of a batch (items, or selections), one pass each.
        public mutating func evaluate(batch inputs: [Value], variables: [String: Value] = [:]) -> [RuleSetAnswer] {
            inputs.map { evaluate(on: $0, variables: variables) }
        }

        /// Every rule's answer for `object` as `SELF`, in one pass.
        ///
        /// A rule that fails costs its error (kind, range, message) and nothing more: the
        /// answer keeps the errors as the machine reported them and builds a ``Diagnostic`` only
        /// when ``RuleSetAnswer/problems`` is read, so that rules failing on every item do not
        /// slow the hot path (issue 18).
        public mutating func evaluate(on object: Value, variables: [String: Value] = [:]) -> RuleSetAnswer {
            let result = machine.evaluateRules(on: object, variables: variables)
            return RuleSetAnswer(bits: result.bits, errors: result.errors, ruleSet: ruleSet)
        }
    }

    /// An evaluation error as a diagnostic against its own rule's text.
    func diagnostic(for error: EvaluationError, rule: Int) -> Diagnostic {
        guard rule >= 0, rule < rules.count else {
            return Diagnostic(.evaluationFailed(error.message), range: SourceRange(0, 0), source: "")
        }
        let start = layout.starts[rule]
        var local = error
        local.range = error.range.map { SourceRange(max(0, $0.lowerBound - start), max(0, $0.upperBound - start)) }
        return local.diagnostic(source: rules[rule])
    }
}
