import PredicateFileProvider
import PredicateSyntax
import PredicateValue

/// Greedy shrinking of a case on which the engines disagree: try one-step simplifications of the
/// rule (a subtree replaced by a child or a constant, an `AND`/`OR` operand dropped, a quantifier
/// or options removed), then of the object (keys, elements and item properties dropped, values
/// simplified) and of the bindings, and keep the first that still disagrees; repeat until none
/// does or the budget is spent.
struct Shrinker {
    let engines: Engines
    /// How many candidate evaluations the shrinker may spend.
    var budget = 4000

    /// The smallest disagreeing case found from `testCase`, with its verdict.
    mutating func shrink(_ testCase: DifferentialCase, _ verdict: Verdict) -> (DifferentialCase, Verdict) {
        var current = testCase
        current.rule = verdict.rule
        var currentVerdict = verdict
        var improved = true
        while improved && budget > 0 {
            improved = false
            for candidate in candidates(current) {
                budget -= 1
                if budget <= 0 { break }
                guard let next = engines.verdict(candidate), !next.agrees else { continue }
                current = candidate
                current.rule = next.rule
                currentVerdict = next
                improved = true
                break
            }
        }
        return (current, currentVerdict)
    }

    private func candidates(_ testCase: DifferentialCase) -> [DifferentialCase] {
        var result: [DifferentialCase] = []
        switch testCase.rule {
        case .predicate(let predicate):
            for variant in Shrinker.variants(predicate) {
                var copy = testCase
                copy.rule = .predicate(variant)
                result.append(copy)
            }
        case .expression(let expression):
            for variant in Shrinker.variants(expression) {
                var copy = testCase
                copy.rule = .expression(variant)
                result.append(copy)
            }
        }
        for key in testCase.variables.keys.sorted() {
            var copy = testCase
            copy.variables[key] = nil
            result.append(copy)
        }
        for variant in Shrinker.variants(testCase.object) {
            var copy = testCase
            copy.object = variant
            result.append(copy)
        }
        for key in testCase.variables.keys.sorted() {
            for variant in Shrinker.variants(testCase.variables[key] ?? .nil) {
                var copy = testCase
                copy.variables[key] = variant
                result.append(copy)
            }
        }
        return result
    }

    // MARK: - Rules

    static func variants(_ predicate: PredicateNode) -> [PredicateNode] {
        var result: [PredicateNode] = []
        switch predicate.kind {
        case .constant:
            break
        case .not(let operand):
            result.append(operand)
            result += variants(operand).map { PredicateNode(.not($0)) }
        case .and(let operands), .or(let operands):
            let isAnd: Bool
            if case .and = predicate.kind { isAnd = true } else { isAnd = false }
            func rebuilt(_ operands: [PredicateNode]) -> PredicateNode {
                PredicateNode(isAnd ? .and(operands) : .or(operands))
            }
            result += operands
            if operands.count > 2 {
                for index in operands.indices {
                    var fewer = operands
                    fewer.remove(at: index)
                    result.append(rebuilt(fewer))
                }
            }
            for index in operands.indices {
                for variant in variants(operands[index]) {
                    var changed = operands
                    changed[index] = variant
                    result.append(rebuilt(changed))
                }
            }
        case .comparison(let comparison):
            result.append(PredicateNode(.constant(true)))
            result.append(PredicateNode(.constant(false)))
            func rebuilt(_ change: (inout Comparison) -> Void) -> PredicateNode {
                var copy = comparison
                change(&copy)
                return PredicateNode(.comparison(copy))
            }
            if comparison.quantifier != .direct { result.append(rebuilt { $0.quantifier = .direct }) }
            if !comparison.options.isEmpty { result.append(rebuilt { $0.options = [] }) }
            for variant in variants(comparison.lhs) { result.append(rebuilt { $0.lhs = variant }) }
            for variant in variants(comparison.rhs) { result.append(rebuilt { $0.rhs = variant }) }
        }
        return result
    }

    private static func node(_ kind: ExpressionKind) -> ExpressionNode { ExpressionNode(kind) }

    static func variants(_ expression: ExpressionNode) -> [ExpressionNode] {
        var result: [ExpressionNode] = []
        switch expression.kind {
        case .constant, .evaluatedObject, .variable, .anyKey:
            break
        case .keyPath(let base, let components):
            if base.kind != .evaluatedObject {
                result.append(base)
                result.append(node(.keyPath(base: ExpressionNode(.evaluatedObject), components: components)))
            }
            if components.count > 1 {
                result.append(node(.keyPath(base: base, components: Array(components.dropLast()))))
                result.append(node(.keyPath(base: base, components: Array(components.dropFirst()))))
            }
            result += variants(base).map { node(.keyPath(base: $0, components: components)) }
        case .function(let selector, let arguments):
            result += arguments
            for index in arguments.indices {
                for variant in variants(arguments[index]) {
                    var changed = arguments
                    changed[index] = variant
                    result.append(node(.function(selector, changed)))
                }
            }
        case .invoke(let receiver, let selector, let arguments):
            result.append(receiver)
            result += arguments
            result += variants(receiver).map { node(.invoke(receiver: $0, selector: selector, arguments: arguments)) }
            for index in arguments.indices {
                for variant in variants(arguments[index]) {
                    var changed = arguments
                    changed[index] = variant
                    result.append(node(.invoke(receiver: receiver, selector: selector, arguments: changed)))
                }
            }
        case .aggregate(let elements):
            result += elements
            for index in elements.indices {
                var fewer = elements
                fewer.remove(at: index)
                result.append(node(.aggregate(fewer)))
            }
            for index in elements.indices {
                for variant in variants(elements[index]) {
                    var changed = elements
                    changed[index] = variant
                    result.append(node(.aggregate(changed)))
                }
            }
        case .index(let base, let spec):
            result.append(base)
            if case .expression(let index) = spec {
                result.append(index)
                result.append(node(.index(base, .first)))
                result += variants(index).map { node(.index(base, .expression($0))) }
            }
            result += variants(base).map { node(.index($0, spec)) }
        case .subquery(let collection, let variable, let predicate):
            result.append(collection)
            result += variants(collection).map {
                node(.subquery(collection: $0, variable: variable, predicate: predicate))
            }
            result += variants(predicate).map {
                node(.subquery(collection: collection, variable: variable, predicate: $0))
            }
        case .ternary(let condition, let whenTrue, let whenFalse):
            result += [whenTrue, whenFalse]
            result += variants(condition).map { node(.ternary($0, whenTrue, whenFalse)) }
            result += variants(whenTrue).map { node(.ternary(condition, $0, whenFalse)) }
            result += variants(whenFalse).map { node(.ternary(condition, whenTrue, $0)) }
        case .cast(let value, let type):
            result.append(value)
            result += variants(value).map { node(.cast($0, type)) }
            result += variants(type).map { node(.cast(value, $0)) }
        case .assignment(let variable, let value):
            result.append(value)
            result += variants(value).map { node(.assignment(variable: variable, $0)) }
        case .setOperation(let op, let lhs, let rhs):
            result += [lhs, rhs]
            result += variants(lhs).map { node(.setOperation(op, $0, rhs)) }
            result += variants(rhs).map { node(.setOperation(op, lhs, $0)) }
        }
        if case .constant(let value) = expression.kind {
            result += simpler(value).map { node(.constant($0)) }
        } else {
            result += [Value.nil, .int(0), .string("a")].map { node(.constant($0)) }
        }
        return result
    }

    private static func simpler(_ value: Value) -> [Value] {
        switch value {
        case .nil: return []
        case .int(0): return [.nil]
        case .int, .uint, .double, .bool: return [.nil, .int(0)]
        case .string(let text): return text.count > 1 ? [.nil, .string(String(text.prefix(1)))] : [.nil]
        default: return [.nil]
        }
    }

    // MARK: - Objects

    static func variants(_ value: Value) -> [Value] {
        switch value {
        case .dictionary(let entries):
            var result: [Value] = []
            let keys = entries.keys.sorted()
            for key in keys {
                var fewer = entries
                fewer[key] = nil
                result.append(.dictionary(fewer))
            }
            for key in keys {
                for variant in variants(entries[key] ?? .nil) {
                    var changed = entries
                    changed[key] = variant
                    result.append(.dictionary(changed))
                }
            }
            return result
        case .array(let elements), .set(let elements):
            let rebuild: ([Value]) -> Value
            if case .set = value { rebuild = Value.set } else { rebuild = Value.array }
            var result: [Value] = []
            for index in elements.indices {
                var fewer = elements
                fewer.remove(at: index)
                result.append(rebuild(fewer))
            }
            for index in elements.indices {
                for variant in variants(elements[index]) {
                    var changed = elements
                    changed[index] = variant
                    result.append(rebuild(changed))
                }
            }
            return result
        case .object(let object):
            guard let item = object as? FileProviderItem else { return [] }
            let properties = CaseText.properties(of: item)
            var result: [Value] = []
            let required: Set = ["filename", "itemIdentifier", "parentItemIdentifier"]
            for key in properties.keys.sorted() where !required.contains(key) {
                var fewer = properties
                fewer[key] = nil
                if let smaller = try? FileProviderItem(properties: fewer) { result.append(.object(smaller)) }
            }
            for key in properties.keys.sorted() {
                for variant in variants(properties[key] ?? .nil) {
                    var changed = properties
                    changed[key] = variant
                    if let smaller = try? FileProviderItem(properties: changed) { result.append(.object(smaller)) }
                }
            }
            return result
        default:
            return []
        }
    }
}
