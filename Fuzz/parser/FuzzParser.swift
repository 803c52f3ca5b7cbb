import Foundation
import PredicateSyntax

/// libFuzzer entry point: any bytes, as a rule, must parse or give a diagnostic, never crash or
/// hang; what parses must print, and the printed text must parse to a tree that prints the same.
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
    let printed = parsed.predicate.format
    do {
        let again = try PredicateParser.parsePredicate(printed).predicate.format
        if again != printed { report("printing is not stable", text, printed, again) }
    } catch {
        // Printing adds parentheses, so a rule at the depth limit may print deeper than the limit.
        guard case .nestingTooDeep = error.kind else {
            report("printed rule does not parse", text, printed, "\(error)")
        }
    }
    return 0
}

private func report(_ problem: String, _ rule: String, _ printed: String, _ detail: String) -> Never {
    print(
        "\(problem)\n  rule:    \(rule.debugDescription)\n  printed: \(printed.debugDescription)\n  then:    \(detail)")
    abort()
}
