import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// Activation rules run on selected items in place (`evaluate(selection:key:)`) mean what they
/// mean on the activation context built as a value: every rule here runs on every selection
/// through the interpreter on the context, the VM on the context, and the VM on the items in
/// place, bound and unbound, and all agree on the result or on the error's kind, message and
/// range.
@Suite struct SelectionTests {
    static let items = FusedComparisonTests.items
    static let key = FileProviderContext.selectionKey
    static let contextType = ValueType.record([key: .array(.object(SchemaReference(FileProviderItem.schema)))])

    /// Selections as ranges of ``items``: empty, one item, several, all.
    static let selections: [Range<Int>] = [0..<0, 0..<1, 1..<2, 4..<5, 0..<3, 2..<6, 0..<6]

    static let rules = [
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count == fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank != nil).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count >= 1",
        "SUBQUERY(fileproviderItems, $i, $i.documentSize BETWEEN {1, 10}).@count == 2",
        "SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.pdf' OR $i.documentSize == nil).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count "
            + "== fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.favoriteRank > 5 AND NOT $i.isUploaded == YES).@count == 0",
        "SUBQUERY(fileproviderItems, $i, SUBQUERY(fileproviderItems, $j, $j.documentSize > $i.documentSize).@count > 0)"
            + ".@count > 1",
        "SUBQUERY(fileproviderItems, $i, $i == $i).@count == fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES)[SIZE] > 0",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count + 0 > 0",
        "SUBQUERY(fileproviderItems, $i, $i.nosuchkey == 1).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.filename > 5).@count > 0",
        "fileproviderItems.@count > 1", "fileproviderItems.@count == 0", "fileProviderItems.@count == 0",
        "fileproviderItems.@count.@count == 1", "@count == 1", "fileproviderItems[FIRST].isUploaded == YES",
        "ANY fileproviderItems.isUploaded == NO", "ALL fileproviderItems.documentSize > 1",
        "ALL fileproviderItems.isUploaded == YES", "NONE fileproviderItems.isTrashed == YES",
        "NOT ANY fileproviderItems.isDownloaded == NO", "ANY fileproviderItems.capabilities > 3",
        "ALL fileproviderItems.capabilities >= 0", "ANY fileproviderItems.capabilities BETWEEN {1, 8}",
        "ANY fileproviderItems.isUploaded IN {YES}", "ANY fileproviderItems.capabilities IN {1, 2, 3}",
        "ANY fileproviderItems.isUploaded == YES AND ALL fileproviderItems.isTrashed == NO",
        "ANY fileproviderItems.favoriteRank > 5", "ALL fileproviderItems.creationDate > CAST(0, 'NSDate')",
        "ANY missing.isUploaded == YES", "ALL missing.isUploaded == YES", "ANY fileproviderItems.nosuchkey == 1",
        "fileproviderItems.documentSize.@max > 100", "SELF.fileproviderItems.@count == 2",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0 AND fileproviderItems.@count < 4",
        "SUBQUERY(missing, $i, $i.isUploaded == YES).@count == nil",
    ]

    static let environment = EvaluationEnvironment()

    @Test(arguments: rules)
    func selectionMeansContext(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: Self.contextType)
        let interpreter = Interpreter(environment: Self.environment)
        var boundMachine = VirtualMachine(
            program: try Compiler.compile(bound, source: rule), environment: Self.environment)
        var unboundMachine = VirtualMachine(
            program: try Compiler.compile(parsed, source: rule), environment: Self.environment)
        for range in Self.selections {
            let selected = Array(Self.items[range])
            let context = FileProviderContext.activation(selectedItems: selected)
            let expected = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try interpreter.evaluate(bound, on: context)
            }
            let onContext = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try boundMachine.evaluate(on: context)
            }
            let inPlace = selected.withUnsafeBufferPointer { buffer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try boundMachine.evaluate(selection: buffer, key: Self.key)
                }
            }
            let byName = selected.withUnsafeBufferPointer { buffer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try unboundMachine.evaluate(selection: buffer, key: Self.key)
                }
            }
            let label = "\(rule) on items \(range)"
            #expect(onContext == expected, "\(label)")
            #expect(inPlace == expected, "\(label)")
            #expect(byName == expected, "\(label)")
        }
    }

    /// A quantified comparison or a counting `SUBQUERY` over the selected items, decided on the
    /// items in place (a stored field, a stored string or one of a struct the items store, or a
    /// key of a stored dictionary; the count, when it is the whole rule, without entering the
    /// instruction loop), spends the steps it spends on the context's array: at every budget,
    /// the same result or error (`rank >= 3` meets the string `"high"`, and `filename > 5`
    /// cannot order a string against a number: both left to the instructions).
    @Test(arguments: [
        "ANY fileproviderItems.isUploaded == NO", "ALL fileproviderItems.capabilities BETWEEN {0, 8}",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.capabilities BETWEEN {0, 8}).@count == 12",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank != nil).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank == 4).@count >= 1",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count >= 1",
        "SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.PDF').@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.filename > 5).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder').@count "
            + "== fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.data').@count > 2",
    ])
    func quantifiedBudgetIsSpentAlike(_ rule: String) throws {
        let bound = Binder.bind(try PredicateParser.parsePredicate(rule).predicate, selfType: Self.contextType)
        let program = try Compiler.compile(bound, source: rule)
        // Without the item whose `rank` is NaN, which the prepared comparisons leave to the
        // general path: the other keys are counted at once.
        let counted = Self.items.indices.filter { $0 != 2 }
        let selected = (0..<12).map { Self.items[counted[$0 % counted.count]] }
        let context = FileProviderContext.activation(selectedItems: selected)
        var outcomes: Set<String> = []
        for budget in 0...200 {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: budget))
            var machine = VirtualMachine(program: program, environment: environment)
            let onContext = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try machine.evaluate(on: context)
            }
            let inPlace = selected.withUnsafeBufferPointer { buffer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try machine.evaluate(selection: buffer, key: Self.key)
                }
            }
            #expect(inPlace == onContext, "\(rule) with \(budget) steps")
            outcomes.insert(onContext.hasPrefix("limitExceeded") ? "limitExceeded" : onContext)
        }
        // The budgets cover both sides of the limit.
        #expect(outcomes.count == 2)
    }

    /// The step budget runs out in place as it does on the context: a `SUBQUERY` nested in a
    /// `SUBQUERY` over a large selection stops with `limitExceeded` at the whole rule.
    /// `UTI-CONFORMS-TO` answers for short identifiers are remembered by the machine, per site:
    /// items of short, long, differently cased and unknown identifiers, each selected alone,
    /// three times over (the memory warm), answer as the interpreter does, and two sites of one
    /// rule keep their own answers.
    @Test func rememberedConformanceIsPerSiteAndIdentifier() throws {
        let identifiers = [
            "public.jpeg", "PUBLIC.JPEG", "public.folder", "com.adobe.pdf", "x.unknown", "public.jpe",
            "public.plain-text", "com.apple.quicktime-movie", "public.png", "",
        ]
        let items = identifiers.enumerated().map { index, identifier in
            var item = FileProviderItem(itemIdentifier: "i\(index)", parentItemIdentifier: "root", filename: "f")
            item.contentType = UniformType(identifier)
            return item
        }
        for rule in [
            "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.image').@count == 1",
            "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.image').@count == 1 "
                + "OR SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.folder')"
                + ".@count == 1",
            "SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.data').@count == 0",
        ] {
            let bound = Binder.bind(try PredicateParser.parsePredicate(rule).predicate, selfType: Self.contextType)
            let interpreter = Interpreter(environment: Self.environment)
            var machine = VirtualMachine(
                program: try Compiler.compile(bound, source: rule), environment: Self.environment)
            for _ in 0..<3 {
                for item in items {
                    let expected = FusedComparisonTests.outcome { () throws(EvaluationError) in
                        try interpreter.evaluate(bound, on: FileProviderContext.activation(selectedItems: [item]))
                    }
                    let inPlace = [item].withUnsafeBufferPointer { buffer in
                        FusedComparisonTests.outcome { () throws(EvaluationError) in
                            try machine.evaluate(selection: buffer, key: Self.key)
                        }
                    }
                    #expect(inPlace == expected, "\(rule) on \(item.contentType?.identifier ?? "nil")")
                }
            }
        }
    }

    @Test func budgetIsSpentAlike() throws {
        let rule =
            "SUBQUERY(fileproviderItems, $i, SUBQUERY(fileproviderItems, $j, $j.isUploaded == $i.isUploaded)"
            + ".@count > 0).@count > 0"
        let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: 5_000))
        let program = try Compiler.compile(
            Binder.bind(try PredicateParser.parsePredicate(rule).predicate, selfType: Self.contextType), source: rule)
        var machine = VirtualMachine(program: program, environment: environment)
        let selected = (0..<200).map { Self.items[$0 % Self.items.count] }
        let context = FileProviderContext.activation(selectedItems: selected)
        let onContext = FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(on: context) }
        let inPlace = selected.withUnsafeBufferPointer { buffer in
            FusedComparisonTests.outcome { () throws(EvaluationError) in
                try machine.evaluate(selection: buffer, key: Self.key)
            }
        }
        #expect(onContext.hasPrefix("limitExceeded"))
        #expect(inPlace == onContext)
    }
}

/// `BETWEEN` with two numeric bounds is prepared as one integer interval, in either order of the
/// bounds; anything else is left to the general comparison.
@Suite struct PreparedBetweenTests {
    static let cases: [(constant: Value, value: Value, expected: Bool?)] = [
        (.array([.int(1), .int(10)]), .int(5), true),
        (.array([.int(1), .int(10)]), .int(10), true),
        (.array([.int(1), .int(10)]), .int(11), false),
        (.array([.int(10), .int(1)]), .int(1), true),
        (.array([.int(10), .int(1)]), .int(0), false),
        (.array([.double(1.5), .int(3)]), .int(1), false),
        (.array([.double(1.5), .int(3)]), .int(2), true),
        (.array([.int(1), .int(10)]), .bool(true), true),
        (.array([.int(1), .int(10)]), .nil, false),
        (.array([.int(1), .int(10)]), .double(2.5), nil),
        (.array([.string("a"), .string("b")]), .int(1), nil),
        (.array([.int(1), .int(2), .int(3)]), .int(1), nil),
    ]

    @Test(arguments: 0..<cases.count)
    func betweenIsAnInterval(_ index: Int) {
        let (constant, value, expected) = Self.cases[index]
        let prepared = PreparedComparison(op: .between, options: [], quantifier: .direct, constant: constant)
        #expect(prepared.decide(value) == expected, "\(value) BETWEEN \(constant)")
    }
}
