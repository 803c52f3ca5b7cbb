import Foundation
import PredicateSyntax

/// libFuzzer entry point: any bytes, as a rule, must parse or give a diagnostic, never crash or
/// hang; what parses must print in both styles, the round-trip-safe text must parse to a tree
/// that prints the same, and Apple's text must parse (it may mean something else: `10.0` prints
/// `10`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? PredicateParser.parsePredicate(text, options: ParseOptions(strict: true))
    if let parsed = try? PredicateParser.parseExpression(text) { _ = parsed.expression.format }
    let parsed: ParsedPredicate
    do {
        parsed = try PredicateParser.parsePredicate(text)
    } catch {
        _ = error.rendered()
        return 0
    }
    let printed = parsed.predicate.format(.roundTripSafe)
    do {
        let again = try PredicateParser.parsePredicate(printed).predicate.format(.roundTripSafe)
        if again != printed { report("printing is not stable", text, printed, again) }
    } catch {
        // Printing adds parentheses, so a rule at the depth limit may print deeper than the limit.
        guard case .nestingTooDeep = error.kind else {
            report("printed rule does not parse", text, printed, "\(error)")
        }
    }
    let apple = parsed.predicate.format
    do {
        _ = try PredicateParser.parsePredicate(apple)
    } catch {
        guard case .nestingTooDeep = error.kind else {
            report("Apple's text of the rule does not parse", text, apple, "\(error)")
        }
    }
    return 0
}

private func report(_ problem: String, _ rule: String, _ printed: String, _ detail: String) -> Never {
    print(
        "\(problem)\n  rule:    \(rule.debugDescription)\n  printed: \(printed.debugDescription)\n  then:    \(detail)")
    abort()
}
