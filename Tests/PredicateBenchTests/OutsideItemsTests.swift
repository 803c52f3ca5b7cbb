import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

@testable import predicate_bench

/// The outside-items stage's hand-written engines (tree-walker, closure compiler, native loop)
/// and the VM on the key-path-table items answer every rule as the interpreter does on the plain
/// items (an evaluation error counts as not matching, as every engine of the benchmark counts it).
@Test(arguments: OutsideRule.all.map(\.name))
func outsideEnginesAgreeWithTheInterpreter(rule name: String) throws {
    let rule = try #require(OutsideRule.all.first { $0.name == name })
    let items = OutsideItem.generate(300)
    let parsed = try PredicateParser.parsePredicate(rule.rule).predicate
    let bound = Binder.bind(parsed, selfType: .object(SchemaReference(OutsideItem.schema)))
    let tableProgram = try Compiler.compile(
        Binder.bind(parsed, selfType: .object(SchemaReference(OutsideKeyPathItem.queryKeyPaths.schema))))
    var tableMachine = VirtualMachine(program: tableProgram)
    let compiled = OutsideTree.compileTest(rule.tree)
    var matches = 0
    for (index, item) in items.enumerated() {
        let expected = (try? Interpreter().evaluate(bound, on: .object(item))) ?? false
        if expected { matches += 1 }
        let table = withUnsafePointer(to: OutsideKeyPathItem(item)) { (try? tableMachine.evaluate(item: $0)) ?? false }
        withUnsafePointer(to: item) { pointer in
            #expect(OutsideTree.test(rule.tree, pointer) == expected, "tree walker: \(name) on item \(index)")
            #expect(compiled(pointer) == expected, "closures: \(name) on item \(index)")
            #expect(rule.native.matches(pointer) == expected, "native: \(name) on item \(index)")
        }
        #expect(table == expected, "key-path table: \(name) on item \(index)")
    }
    // Both answers occur, so the agreement says something.
    #expect(matches > 0 && matches < items.count, "\(name): \(matches) of \(items.count)")
}
