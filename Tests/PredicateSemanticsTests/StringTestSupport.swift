import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// A deterministic generator (SplitMix64), so generated cases are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Foundation's own answers, the reference the string operators must reproduce.
enum FoundationReference {
    /// `text` decomposed, then folded by `String.folding(options:locale:)` with width folding,
    /// as UTF-16 code units.
    static func folded(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> [UInt16] {
        var options: String.CompareOptions = [.widthInsensitive]
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return Array(text.decomposedStringWithCanonicalMapping.folding(options: options, locale: nil).utf16)
    }

    static func folded(_ text: String, _ options: ComparisonOptions) -> [UInt16] {
        folded(
            text, caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// Whether `needle` occurs in `haystack` as a run of code units (empty needles never do).
    static func contains(_ haystack: [UInt16], _ needle: [UInt16]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// UTF-16 code-unit order.
    static func order(_ lhs: [UInt16], _ rhs: [UInt16]) -> ComparisonResult {
        for (a, b) in zip(lhs, rhs) where a != b { return a < b ? .orderedAscending : .orderedDescending }
        return lhs.count == rhs.count ? .orderedSame : lhs.count < rhs.count ? .orderedAscending : .orderedDescending
    }
}

/// The scalars of a string, in hex, for readable failure messages.
func hex(_ text: String) -> String {
    text.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
}

/// Parses option letters as the parser does, for compact test tables: `"cd"` → `[c, d]`.
func options(_ letters: String) -> ComparisonOptions {
    var result: ComparisonOptions = []
    for (letter, option) in ComparisonOptions.letters where letters.contains(letter) { result.insert(option) }
    return result
}

/// One format-string vector of SPEC §8, evaluated with the string operators alone.
///
/// The format is parsed verbatim; it must be a single comparison between string constants,
/// `SELF` and bare keys. `SELF` and every key stand for ``object``.
struct StringVector: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable, Equatable {
        case yes
        case no
        case evaluationError(EvaluationError.Kind)
        case parseError
    }

    let format: String
    let arguments: [Value]
    let object: String?
    let expected: Outcome

    init(_ format: String, _ object: String?, _ expected: Outcome, arguments: [Value] = []) {
        self.format = format
        self.arguments = arguments
        self.object = object
        self.expected = expected
    }

    var testDescription: String { "\(format) with \(object.map { $0.debugDescription } ?? "nil")" }

    func check(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(outcome() == expected, sourceLocation: sourceLocation)
    }

    private func outcome() -> Outcome {
        let predicate: PredicateSyntax.PredicateNode
        do {
            predicate = try PredicateParser.parsePredicate(format, arguments: arguments).predicate
        } catch {
            return .parseError
        }
        guard case .comparison(let comparison) = predicate.kind else { return .parseError }
        guard let lhs = operand(comparison.lhs), let rhs = operand(comparison.rhs) else { return .no }
        do {
            return try Self.evaluate(lhs, comparison.op, rhs, options: comparison.options) ? .yes : .no
        } catch {
            return .evaluationError(error.kind)
        }
    }

    private func operand(_ expression: PredicateSyntax.ExpressionNode) -> String? {
        switch expression.kind {
        case .constant(.string(let text)): return text
        case .evaluatedObject, .keyPath: return object
        default: return nil
        }
    }

    static func evaluate(
        _ lhs: String, _ op: ComparisonOperator, _ rhs: String, options: ComparisonOptions
    ) throws(EvaluationError) -> Bool {
        switch op {
        case .equal: return StringOperators.equals(lhs, rhs, options: options)
        case .notEqual: return !StringOperators.equals(lhs, rhs, options: options)
        case .less: return StringOperators.compare(lhs, rhs, options: options) == .orderedAscending
        case .lessOrEqual: return StringOperators.compare(lhs, rhs, options: options) != .orderedDescending
        case .greater: return StringOperators.compare(lhs, rhs, options: options) == .orderedDescending
        case .greaterOrEqual: return StringOperators.compare(lhs, rhs, options: options) != .orderedAscending
        case .beginsWith: return StringOperators.hasPrefix(lhs, rhs, options: options)
        case .endsWith: return StringOperators.hasSuffix(lhs, rhs, options: options)
        case .contains: return StringOperators.contains(lhs, rhs, options: options)
        case .in: return StringOperators.contains(rhs, lhs, options: options)
        case .like: return try LikePattern(rhs, options: options).matches(lhs)
        case .matches: return try RegularExpressionMatcher(rhs, options: options).matches(lhs)
        default: throw EvaluationError(.unsupported, "not a string operator")
        }
    }
}
