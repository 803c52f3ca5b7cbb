import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateBatch

/// A key of a stored dictionary (`userInfo.rank`) is loaded on all cores straight into a kind
/// and a payload per row; the column must be the one the builder makes of the boxed items,
/// value for value (string codes in the same order), or the builder's own where the load
/// declines, and rules over it must answer as the scalar VM.
@Suite struct DictionaryKeyLoadTests {
    /// A case: the value of `userInfo.k` in item `i` (`nil`: the item has no `userInfo`), and
    /// the column kind both paths must give.
    static let cases: [(name: String, kind: String, value: @Sendable (Int) -> Value?)] = [
        ("integers", "integers", { $0 % 3 == 0 ? nil : .int(Int64($0 % 11)) }),
        ("doubles", "doubles", { $0 % 4 == 0 ? .nil : .double(Double($0 % 13) + 0.5) }),
        ("booleans", "booleans", { $0 % 5 == 0 ? nil : .bool($0 % 2 == 0) }),
        ("mixed", "mixed scalars", { [Value.int(Int64($0 % 9)), .double(2.5), .string("s\($0 % 7)"), .nil][$0 % 4] }),
        ("strings late", "mixed scalars", { $0 < 90 ? .int(1) : .string("s\($0 % 3)") }),
        ("only nil", "values", { $0 % 2 == 0 ? nil : .nil }),
        ("strings", "coded strings", { .string("s\($0 % 5)") }),
        ("Booleans and integers", "mixed scalars", { $0 % 2 == 0 ? .bool(true) : .int(3) }),
        ("a NaN", "mixed scalars", { $0 == 77 ? .double(.nan) : .int(Int64($0)) }),
        ("null", "mixed scalars", { $0 % 3 == 0 ? .null : .int(1) }),
        ("arrays", "string lists", { _ in .array([.string("red")]) }),
        ("a date", "mixed scalars", { $0 == 5 ? .date(secondsSinceReferenceDate: 9) : .int(2) }),
    ]

    @Test(arguments: cases.indices)
    func loadIsTheBuildersColumn(_ index: Int) throws {
        let (name, kind, value) = Self.cases[index]
        let program = try TestRules.program("userInfo.k > 2 OR userInfo.k == 's3' OR userInfo.k == nil")
        let path = try #require(BatchProgram(program).columnKeyPaths.first)
        for count in [100, 140_000] {
            var items = TestItems.make(count)
            for row in items.indices {
                items[row].userInfo = value(row).map { ["k": $0, "other": .int(1)] }
            }
            let boxed = items.map { Value.object($0) }
            let loaded = ColumnBatch(items: items[...], keyPaths: [path]).column(path)
            let built = ColumnBatch(rows: boxed, keyPaths: [path]).column(path)
            #expect(loaded.kindName == kind, "\(name), \(count) rows")
            #expect(built.kindName == kind, "\(name), \(count) rows")
            let differing = (0..<count).filter {
                String(describing: loaded.value(at: $0)) != String(describing: built.value(at: $0))
            }
            #expect(differing.isEmpty, "\(name), \(count) rows: \(differing.prefix(5))")
            if case .mixed(let fast, let fastNils) = loaded, case .mixed(let slow, let slowNils) = built {
                #expect(fast.tags == slow.tags && fast.strings == slow.strings && fastNils == slowNils, "\(name)")
                #expect(fast.payloads == slow.payloads, "\(name)")
            }
            // Answers on the short batch: the long one is there for the load's two parts.
            guard count < 1_000 else { continue }
            let batch = BatchProgram(program)
            #expect(
                TestRules.outcomes(batch.evaluate(ColumnBatch(items: items, for: batch)))
                    == TestRules.scalar(program, boxed), "\(name), \(count) rows")
        }
    }
}
