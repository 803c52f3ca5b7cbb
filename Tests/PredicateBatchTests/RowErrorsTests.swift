import PredicateFileProvider
import PredicateSemantics
import PredicateValue
import Testing

@testable import PredicateBatch

/// A batch's failures are kept as a row and an index into the errors kept once each; whatever
/// the tables they come from, each row must read back its own error, rows ascending.
@Suite struct RowErrorsTests {
    static func error(_ message: String) -> EvaluationError { EvaluationError(.typeMismatch, message) }

    @Test func entriesOfTablesReadBackAsRecorded() {
        let first = (0..<10).map { Self.error("first \($0)") }
        let second = (0..<3).map { Self.error("second \($0)") }
        var errors = BatchResult.RowErrors()
        var expected: [(Int, String)] = []
        for row in 0..<200 {
            switch row % 7 {
            case 0:
                errors.append(row: row, error: Self.error("own \(row)"))
                expected.append((row, "own \(row)"))
            case 1, 2:
                errors.append(row: row, errorAt: row % 3, of: second)
                expected.append((row, "second \(row % 3)"))
            default:
                errors.append(row: row, errorAt: row % 10, of: first)
                expected.append((row, "first \(row % 10)"))
            }
        }
        #expect(errors.map(\.row) == expected.map(\.0))
        #expect(errors.map(\.error.message) == expected.map(\.1))
    }

    @Test func removingAndMergingKeepEachRowsError() {
        let table = (0..<4).map { Self.error("entry \($0)") }
        var low = BatchResult.RowErrors()
        var high = BatchResult.RowErrors()
        for row in 0..<8 { high.append(row: 100 + row, errorAt: row % 4, of: table) }
        for row in 0..<8 { low.append(row: row, errorAt: 3 - row % 4, of: table) }
        low.removeLast(of: 5)
        high.removeLast(of: 103)
        // Parts merged out of order, then sorted: a part's table indices move with it.
        high.append(contentsOf: low)
        high.sortByRow()
        let rows = [0, 1, 2, 3, 4, 6, 7, 100, 101, 102, 104, 105, 106, 107]
        #expect(high.map(\.row) == rows)
        #expect(high.map(\.error.message) == rows.map { "entry \($0 >= 100 ? ($0 - 100) % 4 : 3 - $0 % 4)" })
    }

    @Test func aTableLargerThanTheIndexIsCopiedPerRow() {
        let count = BatchResult.RowErrors.largestIndexedTable + 10
        let table = (0..<count).map { Self.error("entry \($0)") }
        var errors = BatchResult.RowErrors()
        for row in 0..<50 { errors.append(row: row, errorAt: (row * 997) % count, of: table) }
        #expect(errors.map(\.error.message) == (0..<50).map { "entry \(($0 * 997) % count)" })
    }

    /// Through the engine: a mixed column whose strings (each its own error) alternate with
    /// numbers, on one and several threads, and with more distinct strings than the index
    /// holds.
    @Test(arguments: [10, BatchResult.RowErrors.largestIndexedTable + 100])
    func mixedColumnErrorsAreTheScalarMachines(distinctStrings: Int) throws {
        let items = (0..<12_000).map { index in
            var item = FileProviderItem(itemIdentifier: "i\(index)", parentItemIdentifier: "root", filename: "f")
            let rank: Value = index % 3 == 0 ? .string("s\(index % distinctStrings)") : .int(Int64(index % 7))
            item.userInfo = index % 11 == 0 ? nil : ["rank": rank]
            return item
        }
        let program = try TestRules.program("userInfo.rank >= 3")
        let expected = TestRules.scalar(program, items.map { Value.object($0) })
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, keyPaths: batchProgram.columnKeyPaths)
        for threads in [1, 2, 3] {
            let result = batchProgram.evaluate(batch, threads: threads)
            #expect(TestRules.outcomes(result) == expected)
            #expect(result.errors.map(\.row) == result.errors.map(\.row).sorted())
        }
    }
}
