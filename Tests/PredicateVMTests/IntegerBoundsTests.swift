import Foundation
import PredicateValue
import Testing

@testable import PredicateVM

/// An item whose one field holds a value of any kind, read through `value(atSlot:)` alone.
private struct AnyKindItem: KeyValueCoding {
    var bytes: Value

    static let fixedSchema = Schema(typeName: "AnyKindItem", fields: [.init("bytes", .any)])
    var schema: Schema { Self.fixedSchema }

    func value(atSlot slot: Int) -> Value { slot == 0 ? bytes : .nil }

    static let items: [AnyKindItem] = [
        .int(3), .int(4), .int(2), .int(5), .int(6), .int(1), .int(-1), .int(0), .int(.min), .int(.max), .int(.max - 1),
        .double(2.5), .double(3), .double(.nan), .double(-0.0), .double(.infinity), .bool(true), .bool(false),
        .nil, .null, .string("4"), .uint(.max), .uint(3), .date(secondsSinceReferenceDate: 3),
        .decimal(Decimal(3)), .array([.int(3)]),
    ].map(AnyKindItem.init)
}

/// A field compared with integer bounds is decided in the one-test loop by the bounds for an
/// integer and by the whole prepared decision for any other kind: every kind answers, and fails,
/// as the general path does with the item boxed.
@Suite struct IntegerBoundsTests {
    @Test(arguments: [
        "bytes BETWEEN {2, 5}", "bytes < 3", "bytes == 1", "bytes != 4", "bytes >= -1", "bytes > 9223372036854775806",
        "NOT (bytes <= 3)", "bytes BETWEEN {5, 2}", "bytes <= 2.5",
    ])
    func integerBoundsAnswerAsTheGeneralPath(_ rule: String) throws {
        let items = AnyKindItem.items
        let (boxed, inPlace) = try SelfSiteTests.boxedAndInPlace(rule, schema: AnyKindItem.fixedSchema, items)
        for index in items.indices {
            #expect(inPlace[index] == boxed[index], "\(rule), \(items[index].bytes)")
        }
        // Integers take both answers, so the bounds themselves are exercised.
        let integerAnswers = Set(
            items.indices.filter { if case .int = items[$0].bytes { true } else { false } }.map { boxed[$0] })
        #expect(integerAnswers.isSuperset(of: ["true", "false"]), "\(rule)")
    }
}
