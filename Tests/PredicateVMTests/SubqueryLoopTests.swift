import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A counting `SUBQUERY` whose body is one comparison of the loop's variable runs its loop
/// inside `SUBQUERY_NEXT`, without dispatching the body: it must give what the instructions
/// give, results, errors and their ranges, and spend the step budget exactly as they do, at
/// every budget.
@Suite struct SubqueryLoopTests {
    static let rules = [
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.documentSize > 10).@count == 2",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.PDF').@count == 5",
        "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank > 'a').@count > 0",
        "SUBQUERY(fileproviderItems, $i, SUBQUERY(fileproviderItems, $j, $j.isUploaded == NO).@count > 0).@count > 1",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count == fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.documentSize != nil).@count <= 4 AND fileproviderItems.@count > 1",
        "NOT SUBQUERY(fileproviderItems, $i, $i.isShared == NO).@count BETWEEN {1, 5}",
    ]

    static let items: [FileProviderItem] = (0..<5).map { index in
        var item = FileProviderItem(itemIdentifier: "\(index)", parentItemIdentifier: "root", filename: "f\(index).pdf")
        item.isUploaded = index % 2 == 0
        item.documentSize = index == 3 ? nil : Int64(index * 10)
        item.userInfo = index == 4 ? ["rank": .string("top")] : ["rank": .int(Int64(index))]
        return item
    }

    static func outcome(_ body: () throws(EvaluationError) -> Bool) -> String {
        FusedComparisonTests.outcome(body)
    }

    @Test(arguments: rules)
    func loopRunInPlaceMeansTheInstructions(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let context = FileProviderContext.activation(selectedItems: Self.items)
        let bound = Binder.bind(parsed, selfType: Binder.type(describing: context))
        let fused = try Compiler.compile(bound, source: rule)
        // Without `TEST`, no loop body is a single test: every instruction is dispatched.
        let plain = try Compiler.compile(bound, source: rule, fusing: false)
        for maximumSteps in 0...200 {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: maximumSteps))
            var fusedMachine = VirtualMachine(program: fused, environment: environment)
            var plainMachine = VirtualMachine(program: plain, environment: environment)
            let expected = Self.outcome { () throws(EvaluationError) in try plainMachine.evaluate(on: context) }
            let onValue = Self.outcome { () throws(EvaluationError) in try fusedMachine.evaluate(on: context) }
            let stepsLeft = plainMachine.remainingSteps
            let onSelection = Self.items.withUnsafeBufferPointer { items in
                Self.outcome { () throws(EvaluationError) in
                    try fusedMachine.evaluate(selection: items, key: FileProviderContext.selectionKey)
                }
            }
            #expect(onValue == expected, "\(rule) with \(maximumSteps) steps")
            #expect(onSelection == expected, "\(rule) with \(maximumSteps) steps")
            // What the batch engine charges a row for a clause it ran on the VM.
            #expect(fusedMachine.remainingSteps == stepsLeft, "\(rule) with \(maximumSteps) steps")
        }
    }
}
