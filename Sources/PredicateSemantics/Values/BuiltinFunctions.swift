import Foundation
import PredicateSyntax
import PredicateValue

/// What the built-in functions compute (SPEC §4.8). The parser has already checked names and
/// argument counts against ``BuiltinFunction``.
public enum BuiltinFunctions {
    /// Calls the built-in `selector` with evaluated `arguments`.
    ///
    /// - Throws: ``EvaluationError`` for arguments of the wrong kind, empty collections where a
    ///   function has no value, and functions that cannot run here.
    public static func call(_ selector: String, _ arguments: [Value]) throws(EvaluationError) -> Value {
        try call(selector, arguments[...])
    }

    /// The function on arguments that lie in a larger array, such as the top of an
    /// evaluation stack: no array is made for them.
    public static func call(_ selector: String, _ arguments: ArraySlice<Value>) throws(EvaluationError) -> Value {
        func argument(_ index: Int) -> Value {
            index < arguments.count ? arguments[arguments.startIndex + index] : .nil
        }
        switch selector {
        case "add:to:": return try Arithmetic.add(argument(0), argument(1))
        case "from:subtract:": return try Arithmetic.subtract(argument(0), argument(1))
        case "multiply:by:": return try Arithmetic.multiply(argument(0), argument(1))
        case "divide:by:": return try Arithmetic.divide(argument(0), argument(1))
        case "modulus:by:": return try Arithmetic.modulus(argument(0), argument(1))
        case "raise:toPower:": return try Arithmetic.power(argument(0), argument(1))
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            return try Arithmetic.bitwise(selector, argument(0), argument(1))
        case "onesComplement:": return .int(~(try Arithmetic.bits(argument(0), of: selector)))
        case "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:":
            return try aggregate(selector, argument(0))
        case "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:":
            return .double(math(selector, try Arithmetic.operand(argument(0), of: selector).doubleValue))
        case "abs:": return try absolute(argument(0))
        case "random": return .double(Double.random(in: 0..<1))
        case "randomn:":
            let bound = try Arithmetic.bits(argument(0), of: selector)
            guard bound > 0 else {
                throw EvaluationError(.invalidArgument, "randomn: needs a positive bound, got \(bound)")
            }
            return .int(Int64.random(in: 0..<bound))
        case "now": return .date(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
        case "uppercase:": return .string(try string(argument(0), of: selector).uppercased())
        case "lowercase:": return .string(try string(argument(0), of: selector).lowercased())
        case "length:": return .uint(UInt64(try string(argument(0), of: selector).utf16.count))
        case "canonical:":
            let text = try string(argument(0), of: selector)
            let folded = text.folding(
                options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            return .string(folded.precomposedStringWithCompatibilityMapping)
        case "noindex:": return argument(0)
        case "distanceToLocation:fromLocation:":
            throw EvaluationError(
                .unsupported, "distanceToLocation:fromLocation: needs Core Location, which is not available here")
        default:
            throw EvaluationError(.unsupported, "the function '\(selector)' is not available")
        }
    }

    private static func string(_ value: Value, of selector: String) throws(EvaluationError) -> String {
        guard case .string(let text) = value else {
            throw EvaluationError(.typeMismatch, "\(selector) needs a string, got \(ValueComparison.describe(value))")
        }
        return text
    }

    private static func math(_ selector: String, _ x: Double) -> Double {
        switch selector {
        case "sqrt:": return x.squareRoot()
        case "log:": return log10(x)
        case "ln:": return log(x)
        case "exp:": return exp(x)
        case "floor:": return x.rounded(.down)
        case "ceiling:": return x.rounded(.up)
        default: return x.rounded(.towardZero)
        }
    }

    private static func absolute(_ value: Value) throws(EvaluationError) -> Value {
        switch try Arithmetic.operand(value, of: "abs:") {
        case .unsigned(let number): return .uint(number)
        case .signed(let number): return .int(number < 0 ? 0 &- number : number)
        case .floating(let number): return .double(Swift.abs(number))
        }
    }

    // MARK: - Aggregates

    /// The elements of a collection argument.
    static func elements(of value: Value, for selector: String) throws(EvaluationError) -> [Value] {
        switch value {
        case .array(let elements), .set(let elements): return elements
        default:
            throw EvaluationError(
                .notACollection, "\(selector) needs an array or a set, got \(ValueComparison.describe(value))")
        }
    }

    private static func aggregate(_ selector: String, _ collection: Value) throws(EvaluationError) -> Value {
        let elements = try elements(of: collection, for: selector)
        if selector == "count:" { return .int(Int64(elements.count)) }
        var numbers: [Number] = []
        numbers.reserveCapacity(elements.count)
        for element in elements {
            guard element.isArithmeticNumber, let number = Number(element) else {
                throw EvaluationError(
                    .typeMismatch,
                    "\(selector) needs a collection of numbers; it holds \(ValueComparison.describe(element))")
            }
            numbers.append(number)
        }
        if selector == "sum:" { return sum(numbers) }
        guard !numbers.isEmpty else {
            throw EvaluationError(.emptyCollection, "\(selector) of an empty collection has no value")
        }
        let doubles = numbers.map(\.doubleValue)
        switch selector {
        case "min:", "max:":
            var best = numbers[0]
            for number in numbers.dropFirst() {
                let order = Number.compare(number, best)
                if (selector == "min:" && order == .ascending) || (selector == "max:" && order == .descending) {
                    best = number
                }
            }
            return value(best, inKindOf: numbers)
        case "average:":
            return .double(doubles.reduce(0, +) / Double(doubles.count))
        case "median:":
            let sorted = numbers.sorted { Number.compare($0, $1) == .ascending }
            let middle = sorted.count / 2
            if sorted.count % 2 == 1 { return value(sorted[middle], inKindOf: numbers) }
            return try Arithmetic.divide(
                Arithmetic.add(value(sorted[middle - 1], inKindOf: numbers), value(sorted[middle], inKindOf: numbers)),
                value(.signed(2), inKindOf: numbers))
        case "mode:":
            return mode(numbers)
        default:
            let mean = doubles.reduce(0, +) / Double(doubles.count)
            let variance = doubles.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(doubles.count)
            return .double(variance.squareRoot())
        }
    }

    /// `sum:`: signed if every element is signed, floating if any is floating, else unsigned.
    private static func sum(_ numbers: [Number]) -> Value {
        var total = Value.int(0)
        for number in numbers {
            total = (try? Arithmetic.add(total, value(number, inKindOf: [number]))) ?? total
        }
        return total
    }

    /// `number` expressed in the common kind of `numbers`.
    private static func value(_ number: Number, inKindOf numbers: [Number]) -> Value {
        let floating = numbers.contains { if case .floating = $0 { return true } else { return false } }
        let unsigned = numbers.contains { if case .unsigned = $0 { return true } else { return false } }
        switch number {
        case .floating(let double): return .double(double)
        case _ where floating: return .double(number.doubleValue)
        case .signed(let integer): return unsigned ? .uint(UInt64(bitPattern: integer)) : .int(integer)
        case .unsigned(let integer): return .uint(integer)
        }
    }

    /// `mode:`: the most frequent values, ascending; Apple's quirk keeps only the smallest value
    /// when every value occurs once (SPEC §4.8, §9 item 23).
    private static func mode(_ numbers: [Number]) -> Value {
        let sorted = numbers.sorted { Number.compare($0, $1) == .ascending }
        var runs: [(Number, Int)] = []
        for number in sorted {
            if let last = runs.last, Number.compare(last.0, number) == .same {
                runs[runs.count - 1].1 += 1
            } else {
                runs.append((number, 1))
            }
        }
        let highest = runs.map(\.1).max() ?? 0
        var modes = runs.filter { $0.1 == highest }.map(\.0)
        if highest == 1, let smallest = modes.first { modes = [smallest] }
        return .array(modes.map { value($0, inKindOf: numbers) })
    }
}
