import PredicateValue
import Testing

@testable import PredicateVM

/// An item of 40 fields read through `value(atSlot:)` alone: field `fK` holds an integer, a
/// string, a Boolean or a date by `K % 4`, each made of the row and the slot, so that reading
/// another slot than the one asked gives another answer.
private struct WideItem: KeyValueCoding {
    var row: Int

    static let fieldCount = 40
    static let fixedSchema = Schema(
        typeName: "WideItem",
        fields: (0..<fieldCount).map { slot in
            .init("f\(slot)", [ValueType.integer, .string, .bool, .date][slot % 4])
        })
    var schema: Schema { Self.fixedSchema }

    func value(atSlot slot: Int) -> Value {
        switch slot % 4 {
        case 0: .int(Int64(row * 100 + slot))
        case 1: .string("r\(row)f\(slot)")
        case 2: .bool((row + slot) % 2 == 0)
        default: .date(secondsSinceReferenceDate: Double(slot * 1000 + row))
        }
    }

    static let items = (0..<6).map(WideItem.init)
}

/// An item of one of two schemas with the same fields in other slots: a rule bound to one must
/// not read the other's slots.
private struct TwoSchemaItem: KeyValueCoding {
    var swapped: Bool
    var size: Int64
    var other: Int64

    static let plain = Schema(typeName: "TwoSchemaItem", fields: [.init("bytes", .integer), .init("other", .integer)])
    static let swappedSchema = Schema(
        typeName: "TwoSchemaItem", fields: [.init("other", .integer), .init("bytes", .integer)])
    var schema: Schema { swapped ? Self.swappedSchema : Self.plain }

    func value(atSlot slot: Int) -> Value {
        switch (slot, swapped) {
        case (0, false), (1, true): .int(size)
        case (1, false), (0, true): .int(other)
        default: .nil
        }
    }

    static let items = [
        TwoSchemaItem(swapped: false, size: 15, other: 99), TwoSchemaItem(swapped: true, size: 15, other: 99),
        TwoSchemaItem(swapped: false, size: 99, other: 15), TwoSchemaItem(swapped: true, size: 99, other: 15),
    ]
}

/// The one-test loops read a field through a function compiled for its slot
/// (``ConstantSlotReader``) below ``ConstantSlotReader/count`` and through the requirement beyond:
/// every slot of both kinds answers each rule for each item as the item's own data says, and as
/// the general path does with the item boxed.
@Suite struct ConstantSlotReaderTests {
    /// Rules on field `slot` and the rows they hold for.
    static func rules(slot: Int) -> [(rule: String, rows: Set<Int>)] {
        switch slot % 4 {
        case 0:
            [
                ("f\(slot) BETWEEN {\(200 + slot), \(300 + slot)}", [2, 3]),
                ("f\(slot) < \(100 + slot).5", [0, 1]),
                ("f\(slot) != \(400 + slot)", [0, 1, 2, 3, 5]),
            ]
        case 1:
            [
                ("f\(slot) == 'r2f\(slot)'", [2]), ("f\(slot) ENDSWITH[c] '4F\(slot)'", [4]),
                ("f\(slot) BEGINSWITH 'r5'", [5]), ("f\(slot) CONTAINS 'f\(slot)'", [0, 1, 2, 3, 4, 5]),
                ("f\(slot) LIKE 'r?f\(slot)'", [0, 1, 2, 3, 4, 5]), ("f\(slot) != 'r0f\(slot)'", [1, 2, 3, 4, 5]),
            ]
        case 2:
            [("f\(slot) == YES", Set(WideItem.items.map(\.row).filter { ($0 + slot) % 2 == 0 }))]
        default:
            // A date is decided by the scalar the type answers (no integer bounds).
            [("f\(slot) > CAST(\(slot * 1000 + 2), 'NSDate')", [3, 4, 5])]
        }
    }

    @Test(arguments: 0..<WideItem.fieldCount)
    func everySlotReadsItsOwnField(_ slot: Int) throws {
        for (rule, rows) in Self.rules(slot: slot) {
            let (boxed, inPlace) = try SelfSiteTests.boxedAndInPlace(rule, schema: WideItem.fixedSchema, WideItem.items)
            #expect(inPlace == boxed, "\(rule)")
            #expect(inPlace == WideItem.items.map { rows.contains($0.row) ? "true" : "false" }, "\(rule)")
        }
    }

    /// Items whose schema is not the rule's are left to the general path, which reads the key by
    /// name: the loop compiled for the slot asks each item's schema.
    @Test(arguments: ["bytes BETWEEN {10, 20}", "bytes < 50", "NOT (bytes == 15)"])
    func itemsOfAnotherSchemaAreReadByName(_ rule: String) throws {
        let (boxed, inPlace) = try SelfSiteTests.boxedAndInPlace(rule, schema: TwoSchemaItem.plain, TwoSchemaItem.items)
        #expect(inPlace == boxed, "\(rule)")
        let inside = rule.hasPrefix("NOT") ? ["false", "false", "true", "true"] : ["true", "true", "false", "false"]
        #expect(inPlace == inside, "\(rule)")
    }

    /// The slots the table covers, and one beyond, are both exercised above.
    @Test func theTableEndsWithinTheItem() {
        #expect(ConstantSlotReader<WideItem>.count < WideItem.fieldCount)
        #expect(ConstantSlotReader<WideItem>.integerScan(atSlot: ConstantSlotReader<WideItem>.count) == nil)
        #expect(ConstantSlotReader<WideItem>.integerScan(atSlot: ConstantSlotReader<WideItem>.count - 1) != nil)
    }
}
