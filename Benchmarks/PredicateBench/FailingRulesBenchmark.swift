import Foundation
import PredicateActions
import PredicateFileProvider
import PredicateSemantics
import PredicateValue

/// A rule set whose failing rules must cost no more than false ones (issue 18): four ordinary
/// rules plus three that are false on every item, against the same four plus three that fail
/// on every item (a type mismatch each), both through ``RuleSet/Evaluator``, the public path a
/// host takes. Diagnostics used to be built on every evaluation, which made the second about
/// seven times slower; they are now built only when an answer's problems are read.
///
/// The false rules are the cheapest there are (a field against a constant); the failing ones
/// are not all of that shape (arithmetic runs the general path whether or not it fails), so a
/// third set holds false rules of the failing ones' shapes: failing over it is what failing
/// itself costs.
enum FailingRulesBenchmark {
    /// Nanoseconds per item for each of the two rule sets, and their ratio.
    struct Result: Encodable {
        let items: Int
        let falseRulesNanosecondsPerItem: Double
        let failingRulesNanosecondsPerItem: Double
        /// False rules of the failing rules' shapes.
        let sameShapeFalseNanosecondsPerItem: Double
        /// The failing set again, reading every answer's diagnostics: what each evaluation cost
        /// before they were built lazily.
        let diagnosticsReadNanosecondsPerItem: Double

        enum CodingKeys: String, CodingKey {
            case items
            case falseRulesNanosecondsPerItem = "false_rules_ns_per_item"
            case failingRulesNanosecondsPerItem = "failing_rules_ns_per_item"
            case diagnosticsReadNanosecondsPerItem = "diagnostics_read_ns_per_item"
            case ratio = "failing_over_false"
            case sameShapeFalseNanosecondsPerItem = "same_shape_false_ns_per_item"
            case sameShapeRatio = "failing_over_same_shape_false"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(items, forKey: .items)
            try container.encode(falseRulesNanosecondsPerItem, forKey: .falseRulesNanosecondsPerItem)
            try container.encode(failingRulesNanosecondsPerItem, forKey: .failingRulesNanosecondsPerItem)
            try container.encode(diagnosticsReadNanosecondsPerItem, forKey: .diagnosticsReadNanosecondsPerItem)
            try container.encode(failingRulesNanosecondsPerItem / falseRulesNanosecondsPerItem, forKey: .ratio)
            try container.encode(sameShapeFalseNanosecondsPerItem, forKey: .sameShapeFalseNanosecondsPerItem)
            try container.encode(
                failingRulesNanosecondsPerItem / sameShapeFalseNanosecondsPerItem, forKey: .sameShapeRatio)
        }
    }

    static let ordinaryRules = Array(RuleSetBenchmark.itemRules.prefix(4))
    /// False on every item, and cheap: what a failing rule should cost.
    static let falseRules = ["filename == 'none'", "documentSize < -1", "isUploaded == YES AND isUploaded == NO"]
    /// A type mismatch on every item (ordering a string against a number, arithmetic on a bool).
    static let failingRules = ["filename > 5", "filename < 5", "isUploaded + 1 == 2"]
    /// False on every item, each of the shape of the failing rule at its place: a string field
    /// ordered against a constant, and arithmetic on a field compared with a constant.
    static let sameShapeFalseRules = ["filename < ''", "'' > filename", "capabilities + 1 == -5"]

    /// Measures both rule sets over the first of `dataset`'s items (as many as the sampled engines get) and prints one line each.
    static func run(options: BenchmarkOptions, dataset: Dataset) -> Result {
        let inputs = dataset.items.prefix(dataset.sampleLimit).map { Value.object($0) }
        let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))
        let falseSet = ruleSet(ordinaryRules + falseRules, itemType)
        let failingSet = ruleSet(ordinaryRules + failingRules, itemType)
        let sameShapeSet = ruleSet(ordinaryRules + sameShapeFalseRules, itemType)
        // The premise, checked before anything is timed: the failing rules fail on every item
        // and the others answer as in the false set.
        var falseEvaluator = falseSet.makeEvaluator()
        var failingEvaluator = failingSet.makeEvaluator()
        var sameShapeEvaluator = sameShapeSet.makeEvaluator()
        for input in inputs {
            let expected = falseEvaluator.evaluate(on: input)
            let answer = failingEvaluator.evaluate(on: input)
            let sameShape = sameShapeEvaluator.evaluate(on: input)
            guard answer.errors.count == failingRules.count, answer.mask == expected.mask, !expected.hasProblems,
                sameShape.mask == expected.mask, !sameShape.hasProblems
            else { fail("the failing rules do not fail on every item, or the others disagree") }
        }
        let falseTime = nanosecondsPerItem(options, inputs.count) {
            inputs.reduce(0) { $0 + falseEvaluator.evaluate(on: $1).mask.nonzeroBitCount }
        }
        let failingTime = nanosecondsPerItem(options, inputs.count) {
            inputs.reduce(0) { $0 + failingEvaluator.evaluate(on: $1).mask.nonzeroBitCount }
        }
        let sameShapeTime = nanosecondsPerItem(options, inputs.count) {
            inputs.reduce(0) { $0 + sameShapeEvaluator.evaluate(on: $1).mask.nonzeroBitCount }
        }
        let readTime = nanosecondsPerItem(options, inputs.count) {
            inputs.reduce(0) { $0 + failingEvaluator.evaluate(on: $1).problems.count }
        }
        let result = Result(
            items: inputs.count, falseRulesNanosecondsPerItem: falseTime, failingRulesNanosecondsPerItem: failingTime,
            sameShapeFalseNanosecondsPerItem: sameShapeTime, diagnosticsReadNanosecondsPerItem: readTime)
        print("\nRule set with failing rules (4 rules + 3 false, or + 3 failing on every item; ns per item)")
        print(
            String(
                format:
                    "  false rules %.0f   failing rules %.0f (ratio %.2f)   false rules of their shapes %.0f (ratio %.2f)"
                    + "   failing, diagnostics read %.0f",
                falseTime, failingTime, failingTime / falseTime, sameShapeTime, failingTime / sameShapeTime, readTime))
        return result
    }

    private static func ruleSet(_ rules: [String], _ selfType: ValueType) -> RuleSet {
        do {
            let set = try RuleSet(rules: rules, selfType: selfType)
            guard set.problems.isEmpty else { fail("a rule does not parse: \(set.problems)") }
            return set
        } catch {
            fail("\(error)")
        }
    }

    /// The median over the configured runs (after a warm-up) of nanoseconds per item.
    private static func nanosecondsPerItem(_ options: BenchmarkOptions, _ units: Int, _ body: () -> Int) -> Double {
        Timing.onePassPerRun(runs: options.runs, units: units, body).median
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("predicate-bench: failing rules: \(message)\n".utf8))
        exit(1)
    }
}
