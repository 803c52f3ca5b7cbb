import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// The conformance suite again, with every rule first prepared against the type of its object
/// (fields read by slot): binding must never change an answer.
@Suite struct PreparedConformanceTests {
    @Test(arguments: ConformanceFiles.all)
    func preparedInterpreter(_ testCase: ConformanceCase) {
        testCase.check(PreparedConformanceTests.run(testCase), engine: "prepared interpreter")
    }

    static func run(_ testCase: ConformanceCase) -> ConformanceOutcome {
        let interpreter = Interpreter()
        let selfType = Binder.type(describing: testCase.object)
        let variableTypes = testCase.variables.mapValues { Binder.type(describing: $0) }
        return ConformanceOutcome.of {
            if testCase.isExpression {
                let parsed = try PredicateParser.parseExpression(testCase.rule, arguments: testCase.arguments)
                let bound = Binder.bind(parsed.expression, selfType: selfType, variables: variableTypes)
                return .value(try interpreter.evaluate(bound, on: testCase.object, variables: testCase.variables))
            }
            let parsed = try PredicateParser.parsePredicate(testCase.rule, arguments: testCase.arguments)
            let bound = Binder.bind(parsed.predicate, selfType: selfType, variables: variableTypes)
            return .result(try interpreter.evaluate(bound, on: testCase.object, variables: testCase.variables))
        }
    }

    /// Binding does resolve what it can: the File Provider idioms read item fields by slot.
    @Test(arguments: [
        ("SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0", 1),
        ("SUBQUERY(fileproviderItems, $i, $i.userInfo.rank != nil AND $i.uploaded == NO).@count > 0", 2),
        ("SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.image').@count > 0", 2),
        ("SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0", 0),
        ("fileproviderItems.@count == 1", 0),
    ])
    func bindingResolvesItemFields(_ rule: String, _ fields: Int) throws {
        let context = FileProviderContext.activation(selectedItems: [
            FileProviderItem(itemIdentifier: "1", parentItemIdentifier: "root", filename: "a.txt")
        ])
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: Binder.type(describing: context))
        #expect(Binder.boundFieldCount(bound) == fields)
        #expect(bound.format == parsed.format)
    }
}
