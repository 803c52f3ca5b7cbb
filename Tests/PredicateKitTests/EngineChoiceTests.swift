import Testing

@testable import PredicateKit

/// Large collections go to the engine that decides the rule's key paths faster: the VM in place
/// when every one is a Boolean or number the item stores; the batch engine otherwise (strings,
/// arrays, keys of a dictionary the item stores); both give the same answers and failures, in
/// order.
@Suite struct EngineChoiceTests {
    @Test(arguments: [
        ("isUploaded == NO", false), ("isUploaded == NO AND documentSize > 5 OR isTrashed == YES", false),
        ("TRUEPREDICATE", false), ("filename ENDSWITH[c] '.pdf'", true),
        ("contentType.identifier UTI-CONFORMS-TO 'public.image'", true), ("userInfo.rank >= 3", true),
        ("userInfo.rank >= 3 AND filename ENDSWITH 'x'", true),
        ("isUploaded == NO AND filename BEGINSWITH 'f1'", true), ("ANY userInfo.tags == 'red'", true),
        ("ANY tagData == 'x'", true),
    ])
    func columnsForAnythingButStoredScalars(format: String, prefersColumns: Bool) throws {
        #expect(try Rule<FileProviderItem>(format).prefersColumns == prefersColumns)
    }

    /// Above the threshold, on either engine: the failures are those of the items one by one.
    @Test(arguments: ["documentSize < 'a'", "documentSize < 'a' OR filename ENDSWITH 'x'"])
    func failuresOnAllCoresAreInOrder(format: String) throws {
        let items = sampleItems(Rule<FileProviderItem>.batchThreshold * 2 + 7)
        let rule = try Rule<FileProviderItem>(format)
        let expected = items.indices.filter { index in
            do {
                _ = try rule.evaluate(with: items[index])
                return false
            } catch {
                return true
            }
        }
        let (answers, failures) = rule.evaluate(items)
        #expect(failures.map(\.index) == expected)
        #expect(answers.allSatisfy { !$0 })
    }
}
