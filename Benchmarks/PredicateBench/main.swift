import PredicateSyntax
import PredicateValue

for rule in CommandLine.arguments.dropFirst() {
    do {
        let parsed = try PredicateParser.parsePredicate(rule, arguments: [.string("a.b"), .int(1), .string("x")])
        print(parsed.predicate.format)
        for warning in parsed.warnings { print(warning.rendered()) }
    } catch {
        print(error.rendered())
    }
}
