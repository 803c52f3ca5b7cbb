import PredicateBatch
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// The batch engine against the scalar VM on File Provider items: how rules are planned, how
/// columns are stored, threads, errors, and SUBQUERY over a large selection.
@Suite struct BatchEngineTests {
    /// Rule, and the plan's node kinds in order (vector comparisons, SUBQUERY, scalar regions).
    static let plans: [(String, String)] = [
        ("isUploaded == NO", "COMPARE"),
        ("documentSize > 1e6 AND documentSize <= 5000000000", "AND COMPARE COMPARE"),
        ("(isShared == YES AND isUploaded == NO) OR NOT (favoriteRank != nil)", "OR AND COMPARE COMPARE NOT COMPARE"),
        ("5 < documentSize", "COMPARE"),
        ("filename ENDSWITH[c] '.pdf'", "COMPARE"),
        ("TRUEPREDICATE", "TRUE"),
        ("documentSize + 1 > 5 AND isUploaded == YES", "AND SCALAR COMPARE"),
        ("isUploaded == YES OR FUNCTION(filename, 'length') > 3", "OR COMPARE SCALAR"),
        ("TERNARY(isUploaded == YES, 1, 2) == 1", "SCALAR"),
        ("SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0", "SUBQUERY COMPARE"),
        (
            "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.documentSize + 1 > 2).@count == 1",
            "SUBQUERY AND COMPARE SCALAR"
        ),
    ]

    @Test(arguments: BatchEngineTests.plans)
    func plan(_ rule: String, _ shape: String) throws {
        let program = try TestRules.program(
            rule, selfType: rule.contains("fileproviderItems") ? nil : TestRules.itemType)
        let kinds = BatchProgram(program).planDescription.split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
        }
        #expect(kinds.joined(separator: " ") == shape, "\(BatchProgram(program).planDescription)")
    }

    static let rules = [
        "isUploaded == NO", "documentSize > 4500 AND documentSize <= 50000", "documentSize != nil",
        "favoriteRank == nil OR isShared == YES", "filename ENDSWITH[c] '.pdf'", "filename CONTAINS[cd] 'resume'",
        "filename LIKE[c] 'img_*'", "filename MATCHES '.*[.]txt'", "userInfo.rank >= 3", "userInfo.rank < 'z'",
        "creationDate > CAST(100, 'NSDate')", "NOT (isUploaded == YES AND documentSize > 1000)",
        "filename BEGINSWITH 'a' OR filename == 'notes.txt'", "documentSize BETWEEN {1000, 9000}",
        "filename IN {'a', 'notes.txt'}", "documentSize > 2.5e3", "documentSize < 9223372036854775807.0",
        "documentSize == 3000.0", "favoriteRank > 5", "uploadded == NO",
        "contentType.identifier UTI-CONFORMS-TO 'public.image'", "typeIdentifier UTI-EQUALS 'public.jpeg'",
        "contentType UTI-CONFORMS-TO 'public.data'",
    ]

    @Test(arguments: BatchEngineTests.rules)
    func agreesWithScalarMachine(_ rule: String) throws {
        let program = try TestRules.program(rule)
        let items = TestItems.make(2500)
        let rows = items.map { Value.object($0) }
        let expected = TestRules.scalar(program, rows)
        let batchProgram = BatchProgram(program)
        for threads in [1, 2, 3] {
            #expect(TestRules.outcomes(batchProgram.evaluate(rows, threads: threads)) == expected, "threads \(threads)")
        }
        let fromItems = batchProgram.evaluate(ColumnBatch(items: items, for: batchProgram))
        #expect(TestRules.outcomes(fromItems) == expected, "built from items")
        #expect(fromItems.matchingRows == expected.indices.filter { expected[$0] == "true" })
        #expect(fromItems.matchCount == expected.filter { $0 == "true" }.count)
    }

    /// Stored scalars of more rows than one thread loads are loaded in parts, on several threads
    /// where there are cores: the columns, and so the answers, are those of the scalar VM, and a
    /// field that is nil in every row still makes the builder's column of nils.
    @Test func largeBatchesLoadInParts() throws {
        var items = TestItems.make(140_000)
        let rules = [
            "isUploaded == NO", "documentSize > 4500", "creationDate > CAST(100, 'NSDate')", "documentSize == nil",
            "userInfo.rank > 2", "userInfo.\"rank.x\" == nil",
        ]
        func check(_ items: [FileProviderItem]) throws {
            let rows = items.map { Value.object($0) }
            for rule in rules {
                let program = try TestRules.program(rule)
                let batchProgram = BatchProgram(program)
                let batch = ColumnBatch(items: items, for: batchProgram)
                #expect(TestRules.outcomes(batchProgram.evaluate(batch)) == TestRules.scalar(program, rows), "\(rule)")
            }
        }
        try check(items)
        for index in items.indices { items[index].documentSize = nil }
        try check(items)
    }

    /// The stored fields one program reads are loaded together, block by block and in parts: the
    /// columns and answers are those of the boxed items, over a slice too.
    @Test func storedFieldsLoadTogether() throws {
        var items = TestItems.make(140_000)
        for index in items.indices where index % 5 == 0 { items[index].favoriteRank = UInt64(index) }
        let program = try TestRules.program(
            "(isShared == YES AND isSharedByCurrentUser == NO) OR (isTrashed == NO AND favoriteRank != nil) "
                + "OR documentSize > 4500 OR creationDate > CAST(100, 'NSDate')")
        let batchProgram = BatchProgram(program)
        let paths = batchProgram.columnKeyPaths
        for slice in [items[...], items[1_000..<70_500]] {
            let rows = slice.map { Value.object($0) }
            let inPlace = ColumnBatch(items: slice, keyPaths: paths)
            let boxed = ColumnBatch(rows: rows, keyPaths: paths)
            #expect(paths.map { inPlace.storage(of: $0) } == paths.map { boxed.storage(of: $0) })
            #expect(TestRules.outcomes(batchProgram.evaluate(inPlace)) == TestRules.scalar(program, rows))
        }
    }

    @Test func columnStorage() throws {
        let program = try TestRules.program(
            "isUploaded == NO AND documentSize > 1 AND filename == 'a' AND favoriteRank > 1 AND userInfo.rank > 1 AND creationDate > CAST(1, 'NSDate')"
        )
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: TestItems.make(100), for: batchProgram)
        let kinds = batchProgram.columnKeyPaths.map { batch.storage(of: $0) ?? "missing" }
        // 100 items of seven names: the names are coded.
        #expect(kinds == ["booleans", "integers", "coded strings", "values", "mixed scalars", "dates"])
    }

    /// Columns of stored fields are loaded in place by type, and fall back to the general column
    /// where typed storage would change the meaning (a NaN date, every row nil).
    @Test func storedFieldColumns() throws {
        var items = TestItems.make(50)
        let typed = try TestRules.program("creationDate > CAST(10, 'NSDate') AND isUploaded == NO AND documentSize > 1")
        let typedProgram = BatchProgram(typed)
        let typedBatch = ColumnBatch(items: items, for: typedProgram)
        #expect(
            typedProgram.columnKeyPaths.map { typedBatch.storage(of: $0) ?? "missing" } == [
                "dates", "booleans", "integers",
            ])
        items[3].creationDate = .nan
        for index in items.indices { items[index].documentSize = nil }
        let mixedBatch = ColumnBatch(items: items, for: typedProgram)
        #expect(
            typedProgram.columnKeyPaths.map { mixedBatch.storage(of: $0) ?? "missing" } == [
                "mixed scalars", "booleans", "values",
            ])
        let rows = items.map { Value.object($0) }
        #expect(TestRules.outcomes(typedProgram.evaluate(mixedBatch)) == TestRules.scalar(typed, rows))
    }

    /// Unsigned stored fields are loaded in place into the column of values the builder makes of
    /// them from boxed items: the same kind and the same answers, for values above `Int64.max`,
    /// nil rows and a column of nils only.
    @Test func unsignedFieldColumns() throws {
        var items = TestItems.make(70)
        for index in items.indices { items[index].favoriteRank = index % 3 == 0 ? nil : UInt64(index) << 57 }
        let rules = [
            "favoriteRank != nil", "favoriteRank > 3", "favoriteRank == 9223372036854775808",
            "favoriteRank CONTAINS 'a'",
        ]
        for allNil in [false, true] {
            if allNil { for index in items.indices { items[index].favoriteRank = nil } }
            let rows = items.map { Value.object($0) }
            for rule in rules {
                let program = try TestRules.program(rule)
                let batchProgram = BatchProgram(program)
                let inPlace = ColumnBatch(items: items, for: batchProgram)
                let boxed = ColumnBatch(rows: rows, for: batchProgram)
                let paths = batchProgram.columnKeyPaths
                #expect(paths.map { inPlace.storage(of: $0) } == paths.map { boxed.storage(of: $0) }, "\(rule)")
                #expect(paths.map { inPlace.storage(of: $0) } == ["values"], "\(rule)")
                #expect(
                    TestRules.outcomes(batchProgram.evaluate(inPlace)) == TestRules.scalar(program, rows), "\(rule)")
            }
        }
    }

    @Test func errorsKeepTheirPositions() throws {
        let rule = "isUploaded == YES AND userInfo.rank > 2"
        let program = try TestRules.program(rule)
        let rows = TestItems.make(300).map { Value.object($0) }
        let result = BatchProgram(program).evaluate(rows, threads: 2)
        #expect(!result.errors.isEmpty)
        #expect(result.errors.map(\.row) == result.errors.map(\.row).sorted())
        for failure in result.errors {
            #expect(failure.error.kind == .typeMismatch)
            let bytes = Array(rule.utf8)
            let text = failure.error.range.map { String(decoding: bytes[$0.lowerBound..<$0.upperBound], as: UTF8.self) }
            #expect(text == "userInfo.rank > 2")
        }
        #expect(TestRules.outcomes(result) == TestRules.scalar(program, rows))
    }

    @Test func subqueryOverALargeSelection() throws {
        let items = TestItems.make(8000)
        let context = FileProviderContext.activation(selectedItems: items)
        for rule in [
            "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.documentSize > 5000).@count > 100",
            "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count > 0",
            "SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.pdf').@count == 2286",
        ] {
            let program = try TestRules.program(rule, selfType: nil)
            let expected = TestRules.scalar(program, [context, .nil, .dictionary([:])])
            for threads in [1, 2] {
                let result = BatchProgram(program).evaluate([context, .nil, .dictionary([:])], threads: threads)
                #expect(TestRules.outcomes(result) == expected, "\(rule), threads \(threads)")
            }
        }
    }

    @Test func selectionOfEveryRow() throws {
        let items = TestItems.make(6000)
        let context = FileProviderContext.activation(selectedItems: items)
        for rule in [
            "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.documentSize > 5000).@count > 100",
            "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count > 0",
            "SUBQUERY(fileproviderItems, $i, $i.documentSize + 1 > 2).@count == 4499",
            "fileproviderItems.@count == 6000",
            "SUBQUERY(fileproviderItems, $i, $i.filename != nil).@count == fileproviderItems.@count",
        ] {
            let program = try TestRules.program(rule, selfType: nil)
            let expected = TestRules.scalar(program, [context])
            let batchProgram = BatchProgram(program)
            for threads in [1, 2] {
                let result = batchProgram.evaluateSelection(
                    ColumnBatch(items: items, keyPaths: batchProgram.selectionKeyPaths), threads: threads)
                let outcome: String
                switch result {
                case .success(let flag): outcome = String(flag)
                case .failure(let error): outcome = error.description
                }
                #expect([outcome] == expected, "\(rule), threads \(threads)")
            }
        }
    }

    @Test func emptyBatch() throws {
        let result = BatchProgram(try TestRules.program("isUploaded == NO")).evaluate([Value]())
        #expect(result.count == 0 && result.matchCount == 0 && result.errors.isEmpty && result.matchingRows.isEmpty)
    }
}

/// Activation rules for many single-item selections at once, against the scalar VM on the
/// context each item alone makes.
@Suite struct EachAloneTests {
    static let rules = [
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank != nil).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3).@count == 1",
        "SUBQUERY(fileproviderItems, $fileproviderItem, $fileproviderItem.filename ENDSWITH[c] '.pdf').@count == 0",
        "fileproviderItems.@count == 1 AND SUBQUERY(fileproviderItems, $i, $i.documentSize > 4000).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.isShared == YES OR $i.documentSize + 1 > 5000).@count > 0",
        "ALL fileproviderItems.isUploaded == YES",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count == fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank > 2).@count == fileproviderItems.@count",
        "SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count > 0",
    ]

    @Test(arguments: EachAloneTests.rules)
    func agreesWithScalarMachine(_ rule: String) throws {
        let program = try TestRules.program(rule, selfType: nil)
        let items = TestItems.make(2500)
        let contexts = items.map { FileProviderContext.activation(selectedItems: [$0]) }
        let expected = TestRules.scalar(program, contexts)
        let batchProgram = BatchProgram(program)
        for threads in [1, 2] {
            let fromValues = batchProgram.evaluateEachAlone(
                ColumnBatch(rows: items.map { .object($0) }, keyPaths: batchProgram.eachAloneKeyPaths),
                threads: threads)
            #expect(TestRules.outcomes(fromValues) == expected, "threads \(threads)")
        }
        let fromItems = batchProgram.evaluateEachAlone(
            ColumnBatch(items: items, keyPaths: batchProgram.eachAloneKeyPaths))
        #expect(TestRules.outcomes(fromItems) == expected)
    }

    /// Enough selections to be answered on several threads, some of them large or empty.
    @Test func manySelectionsOnSeveralThreads() throws {
        let program = try TestRules.program(
            "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.documentSize > 5000).@count > 0",
            selfType: nil)
        let items = TestItems.make(40_000)
        let ranges = (0..<40_000).map { index in
            index % 1_000 == 0 ? index..<min(40_000, index + 300) : index..<min(40_000, index + index % 4)
        }
        let expected = TestRules.scalar(
            program, ranges.map { FileProviderContext.activation(selectedItems: Array(items[$0])) })
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, keyPaths: batchProgram.selectionKeyPaths)
        for threads in [1, 2, 3] {
            let result = batchProgram.evaluateSelections(batch, ranges: ranges, threads: threads)
            #expect(TestRules.outcomes(result) == expected, "threads \(threads)")
        }
    }

    /// Every selection of up to seven items at every start, on a batch of whole words: the ones
    /// that cross a word are answered from two words, and the empty ones past the last row read
    /// none.
    @Test func smallSelectionsAtEveryStart() throws {
        let program = try TestRules.program(
            "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES).@count == 2", selfType: nil)
        let items = TestItems.make(128)
        let ranges = (0...128).flatMap { start in (0..<8).map { start..<min(128, start + $0) } }
        let expected = TestRules.scalar(
            program, ranges.map { FileProviderContext.activation(selectedItems: Array(items[$0])) })
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, keyPaths: batchProgram.selectionKeyPaths)
        for threads in [1, 2] {
            let result = batchProgram.evaluateSelections(batch, ranges: ranges, threads: threads)
            #expect(TestRules.outcomes(result) == expected, "threads \(threads)")
        }
    }

    @Test(arguments: EachAloneTests.rules)
    func smallSelections(_ rule: String) throws {
        let program = try TestRules.program(rule, selfType: nil)
        let items = TestItems.make(2500)
        // Mostly one to three items, some empty, some of 70 (across words, past the table of
        // small selections).
        let ranges = (0..<2500).map { index in
            index % 97 == 0
                ? index..<min(2500, index + 70)
                : index % 89 == 0 ? index..<index : index..<min(2500, index + 1 + index % 3)
        }
        let contexts = ranges.map { FileProviderContext.activation(selectedItems: Array(items[$0])) }
        let expected = TestRules.scalar(program, contexts)
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, keyPaths: batchProgram.selectionKeyPaths)
        for threads in [1, 2] {
            let result = batchProgram.evaluateSelections(batch, ranges: ranges, threads: threads)
            #expect(TestRules.outcomes(result) == expected, "threads \(threads)")
        }
    }
}
