import PredicateBatch
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A batch kept current by appending, replacing and removing rows answers every rule as a batch
/// built anew from the same rows, and as the scalar VM does.
@Suite struct ColumnBatchChangeTests {
    /// Every kind of column: Booleans, integers, doubles, dates, coded and borrowed strings, a
    /// struct's string, mixed `userInfo` values, lists and values.
    static let rules = [
        "isUploaded == NO AND documentSize > 4500", "favoriteRank == nil OR isShared == YES",
        "filename ENDSWITH[c] '.pdf'", "filename IN {'a', 'notes.txt'}", "itemIdentifier BEGINSWITH 'id1'",
        "userInfo.rank >= 3", "ANY userInfo.tags == 'red'", "creationDate > CAST(100, 'NSDate')",
        "contentType.identifier UTI-CONFORMS-TO 'public.image'", "documentSize BETWEEN {1000, 9000}",
    ]

    /// Items unlike the first ones: other names (many distinct, so strings are borrowed or
    /// coded anew), a rank that is a string, no content type.
    static func newItems(_ count: Int, from start: Int) -> [FileProviderItem] {
        (0..<count).map { offset in
            let index = start + offset
            var item = FileProviderItem(
                itemIdentifier: "id\(index)", parentItemIdentifier: "root", filename: "new \(index).PDF")
            item.isUploaded = index % 2 == 0
            item.documentSize = index % 5 == 0 ? nil : Int64(index * 3)
            item.userInfo = index % 4 == 0 ? ["rank": "high", "tags": ["red"]] : ["rank": .int(Int64(index % 7))]
            item.contentType = index % 3 == 0 ? UniformType("public.png") : nil
            return item
        }
    }

    private static func expectSameAnswers(
        _ batch: ColumnBatch, _ items: [FileProviderItem], _ keyPaths: [[KeyComponent]], _ context: String
    ) throws {
        for rule in rules {
            let program = try TestRules.program(rule)
            let batchProgram = BatchProgram(program)
            let expected = TestRules.scalar(program, items.map { Value.object($0) })
            #expect(batch.count == items.count, "\(context)")
            #expect(TestRules.outcomes(batchProgram.evaluate(batch)) == expected, "\(rule), \(context)")
            let fresh = ColumnBatch(items: items, keyPaths: keyPaths)
            #expect(TestRules.outcomes(batchProgram.evaluate(fresh)) == expected, "\(rule), \(context), built anew")
        }
    }

    @Test(arguments: [0, 30, 2500])
    func appendedReplacedAndRemovedRowsAnswerAsANewBatch(_ initial: Int) throws {
        var items = TestItems.make(initial)
        let keyPaths = try Self.rules.flatMap { try BatchProgram(TestRules.program($0)).columnKeyPaths }
        var batch = ColumnBatch(items: items, keyPaths: keyPaths)
        let more = Self.newItems(700, from: initial)
        let storage = keyPaths.map { batch.storage(of: $0) }
        try batch.append(contentsOf: more)
        items += more
        try Self.expectSameAnswers(batch, items, keyPaths, "appended")
        if initial == 2500 {
            // Typed and coded columns are joined, not read again into another kind.
            let kept = zip(storage, keyPaths.map { batch.storage(of: $0) }).filter { $0 == $1 }.compactMap(\.0)
            #expect(Set(["booleans", "integers", "coded strings", "dates"]).isSubset(of: Set(kept)), "\(kept)")
        }
        for row in [0, items.count / 2, items.count - 1] {
            var changed = Self.newItems(1, from: 9000 + row)[0]
            changed.filename = row % 2 == 0 ? "IMG_1.jpg" : "report.pdf"
            try batch.replaceRow(row, with: changed)
            items[row] = changed
        }
        try Self.expectSameAnswers(batch, items, keyPaths, "replaced")
        // Many rows at once, one of them twice (its last item stands).
        let rows = [1, items.count - 2, 1, items.count / 4]
        let replacements = Self.newItems(rows.count, from: 20_000)
        try batch.replaceRows(rows, with: replacements)
        for (row, item) in zip(rows, replacements) { items[row] = item }
        try Self.expectSameAnswers(batch, items, keyPaths, "replaced together")
        let removed = [0, 3, 3, items.count - 1, items.count / 3]
        try batch.removeRows(removed)
        for row in Set(removed).sorted(by: >) { items.remove(at: row) }
        try Self.expectSameAnswers(batch, items, keyPaths, "removed")
    }

    @Test func valueBatchesChangeToo() throws {
        let program = try TestRules.program("rank > 2 OR name ENDSWITH 'x'", selfType: nil)
        let batchProgram = BatchProgram(program)
        var rows: [Value] = (0..<50).map { ["rank": .int(Int64($0 % 5)), "name": .string("n\($0 % 3)")] }
        var batch = ColumnBatch(rows: rows, for: batchProgram)
        let more: [Value] = [["rank": "x", "name": "ax"], ["rank": 9], .nil]
        try batch.append(contentsOf: more)
        rows += more
        try batch.replaceRow(1, with: ["rank": 2.5, "name": "bx"])
        rows[1] = ["rank": 2.5, "name": "bx"]
        try batch.removeRows([0, 52])
        rows.remove(at: 52)
        rows.remove(at: 0)
        #expect(TestRules.outcomes(batchProgram.evaluate(batch)) == TestRules.scalar(program, rows))
    }

    @Test func changesThatCannotApplyAreRefusedAndChangeNothing() throws {
        let items = TestItems.make(10)
        var batch = ColumnBatch(items: items, keyPaths: [])
        #expect(throws: ColumnBatchChangeError.self) { try batch.append(contentsOf: [Value.int(1)]) }
        #expect(throws: ColumnBatchChangeError.self) { try batch.replaceRow(10, with: items[0]) }
        #expect(throws: ColumnBatchChangeError.self) { try batch.replaceRow(-1, with: items[0]) }
        #expect(throws: ColumnBatchChangeError.self) { try batch.removeRows([2, 10]) }
        #expect(throws: ColumnBatchChangeError.self) { try batch.replaceRows([1, 2], with: [items[0]]) }
        #expect(batch.count == 10)
        var values = ColumnBatch(rows: [.int(1)], keyPaths: [])
        #expect(throws: ColumnBatchChangeError.self) { try values.append(contentsOf: items) }
        do {
            try values.replaceRow(0, with: items[0])
        } catch {
            #expect(error.description.contains("host's objects") || error.description.contains("another type"))
        }
    }
}
