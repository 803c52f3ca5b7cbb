import Testing

@testable import PredicateValue

/// ``StringStorageHint`` finds where objects keep a string field from the strings they answer,
/// and only there: a field computed afresh, or answered from different places, gives no hint;
/// and asking for memory at whatever the hint's place holds never traps.
@Suite struct StringStorageHintTests {
    private struct Item {
        var flag: Bool
        var size: Int
        var name: String
        var other: String
    }

    private static func items(_ names: [String]) -> [Item] {
        names.enumerated().map { index, name in
            let other = "another string, long enough for the heap \(index)"
            return Item(flag: index % 2 == 0, size: index, name: name, other: other)
        }
    }

    private static func learn(_ items: [Item], _ field: (Item) -> String?) -> StringStorageHint? {
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return StringStorageHint.learn(
                base: UnsafeRawPointer(base), stride: MemoryLayout<Item>.stride,
                size: MemoryLayout<Item>.size, count: buffer.count
            ) { field(buffer[$0]) }
        }
    }

    private static let longNames = (0..<10).map { "a name long enough to be kept on the heap \($0).pdf" }

    @Test func learnsWhereAStoredFieldLies() {
        let items = Self.items(Self.longNames)
        #expect(Self.learn(items, \.name)?.offset == MemoryLayout<Item>.offset(of: \Item.name))
        #expect(Self.learn(items, \.other)?.offset == MemoryLayout<Item>.offset(of: \Item.other))
    }

    @Test func skipsStringsKeptInline() {
        // Short strings say nothing; the long ones after them do.
        let names = ["a", "b", "c"] + Self.longNames
        #expect(Self.learn(Self.items(names), \.name)?.offset == MemoryLayout<Item>.offset(of: \Item.name))
        #expect(Self.learn(Self.items(["a", "b", "short.pdf"]), \.name) == nil)
        #expect(Self.learn([], \.name) == nil)
    }

    @Test func givesNoHintForFieldsNotStoredAsAnswered() {
        let items = Self.items(Self.longNames)
        // A string made for each call is nowhere in the object.
        #expect(Self.learn(items) { $0.name + "!" } == nil)
        // A field answered from one place, then another: no place holds it for every object.
        #expect(Self.learn(items) { $0.flag ? $0.name : $0.other } == nil)
        // One object alone is not enough to tell a place from a coincidence.
        #expect(Self.learn(Array(items.prefix(1)), \.name) == nil)
        #expect(Self.learn(items) { _ in nil } == nil)
    }

    @Test func prefetchesWhateverThePlaceHolds() {
        // Integers, a Boolean and padding read as a string's words: only hints, never a trap.
        let items =
            Self.items(Self.longNames) + [
                Item(flag: true, size: -1, name: "", other: ""),
                Item(flag: false, size: Int.min, name: "x", other: "y"),
            ]
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for offset in Swift.stride(from: 0, through: MemoryLayout<Item>.size - 16, by: 8) {
                let hint = StringStorageHint(offset: offset)
                for index in buffer.indices {
                    hint.prefetch(in: UnsafeRawPointer(base + index))
                }
            }
        }
        #expect(items.count == 12)
    }
}
