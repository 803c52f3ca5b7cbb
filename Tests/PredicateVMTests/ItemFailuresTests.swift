import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// An item with the minimal conformance and one dictionary, whose `rank` is often a string
/// that a numeric comparison cannot order.
private struct RankedItem: KeyValueCoding {
    var info: [String: Value]

    static let fixedSchema = Schema(typeName: "RankedItem", fields: [.init("info", .dictionary(.any))])
    var schema: Schema { Self.fixedSchema }

    func value(atSlot slot: Int) -> Value { slot == 0 ? .dictionary(info) : .nil }
}

/// The failures of one evaluation over many items are kept as an index and the index of an
/// error kept once when it repeats the one before; each item must read back its own error.
@Suite struct ItemFailuresTests {
    static func error(_ message: String) -> EvaluationError { EvaluationError(.typeMismatch, message) }

    @Test func keptErrorsReadBackPerItem() {
        var failures = ItemFailures()
        let high = failures.append(index: 2, error: Self.error("high"))
        failures.append(index: 3, keptAt: high)
        failures.append(index: 5, error: Self.error("low"))
        failures.append(index: 8, keptAt: high)
        #expect(failures.map(\.index) == [2, 3, 5, 8])
        #expect(failures.map(\.error.message) == ["high", "high", "low", "high"])
    }

    @Test func mergingKeepsItemOrderAndEachItemsError() {
        var early = ItemFailures()
        let first = early.append(index: 1, error: Self.error("a"))
        early.append(index: 4, keptAt: first)
        early.append(index: 9, error: Self.error("b"))
        var late = ItemFailures()
        let other = late.append(index: 0, error: Self.error("c"))
        late.append(index: 6, keptAt: other)
        late.append(index: 10, error: Self.error("d"))
        let merged = early.merged(with: late)
        #expect(merged.map(\.index) == [0, 1, 4, 6, 9, 10])
        #expect(merged.map(\.error.message) == ["c", "a", "a", "c", "b", "d"])
        #expect(ItemFailures().merged(with: late).map(\.index) == [0, 6, 10])
        #expect(early.merged(with: ItemFailures()).map(\.index) == [1, 4, 9])
    }

    /// Through the machine: ranks that repeat a string, change it, and fail on the general
    /// path between them (an array), against each item evaluated alone.
    @Test(arguments: ["info.rank >= 3", "info.rank < 2 OR info.rank == 7"])
    func inPlaceFailuresAreEachItemsOwn(_ rule: String) throws {
        let ranks: [Value] = [
            .string("high"), .string("high"), .int(4), .string("low"), .string("high"), .array([.int(1)]),
            .string("high"), .double(2.5), .string("mid"), .string("mid"),
        ]
        let items = (0..<500).map { RankedItem(info: $0 % 17 == 0 ? [:] : ["rank": ranks[($0 * 7 / 3) % ranks.count]]) }
        let program = try Compiler.compile(
            Binder.bind(
                PredicateParser.parsePredicate(rule).predicate,
                selfType: .object(SchemaReference(RankedItem.fixedSchema))),
            source: rule)
        var machine = VirtualMachine(program: program)
        let (answers, failures) = machine.evaluate(items: items)
        let errors = Dictionary(uniqueKeysWithValues: failures.map { ($0.index, $0.error.description) })
        var alone = VirtualMachine(program: program)
        for (index, item) in items.enumerated() {
            do throws(EvaluationError) {
                let answer = try withUnsafePointer(to: item) { (pointer) throws(EvaluationError) -> Bool in
                    try alone.evaluate(item: pointer)
                }
                #expect(errors[index] == nil && answers[index] == answer, "item \(index)")
            } catch {
                #expect(errors[index] == error.description && !answers[index], "item \(index)")
            }
        }
        #expect(!failures.isEmpty)
    }
}
