import PredicateValue

/// Field `slot` of an item read by a function compiled for that one slot, so that the item type's
/// own reader (the `switch slot` of a hand-written ``KeyValueCoding/value(atSlot:)``) is inlined
/// with the slot a constant and folds to the field's load.
///
/// Called with a slot known only at run time, `value(atSlot:)` takes the item as `self`: Swift
/// copies the whole item to the stack for the call (a 112-byte item is seven 16-byte stores),
/// then jumps on the slot and builds the value, which for a string means retaining it and
/// releasing it after the test. Made once per batch, the reader for one slot is a plain function
/// the loop calls per item, with none of that left; a string is tested inside it, borrowed from
/// the item; an integer-bounds test is the whole loop, compiled for the slot. Over the protocol's
/// minimal conformance (callgrind, the loop and what it calls): `documentSize BETWEEN {…}`
/// 82 → 25 instructions an item, `name ENDSWITH[c] '.pdf'` 246 → 166 with no retain or release
/// left. For a slot of ``count`` or beyond, the reader is a function that calls the requirement
/// with the slot (it captures it: made once per batch), so that a loop calls one function either
/// way, with no test of which; the integer loop has none (`nil`), and the general one-test loop
/// runs instead.
///
/// The readers of the table capture nothing but the item type, so in the loop, which is compiled
/// for that type, making one allocates nothing.
@usableFromInline
enum ConstantSlotReader<Item: KeyValueCoding> {
    /// The slots with a reader of their own: most schemas have fewer fields.
    @inlinable static var count: Int { 32 }

    /// ``KeyValueCoding/value(atSlot:of:)`` of field `slot`, compiled for that slot.
    @inlinable
    static func value(atSlot slot: Int) -> (UnsafePointer<Item>) -> Value {
        switch slot {
        case 0: { Item.value(atSlot: 0, of: $0) }
        case 1: { Item.value(atSlot: 1, of: $0) }
        case 2: { Item.value(atSlot: 2, of: $0) }
        case 3: { Item.value(atSlot: 3, of: $0) }
        case 4: { Item.value(atSlot: 4, of: $0) }
        case 5: { Item.value(atSlot: 5, of: $0) }
        case 6: { Item.value(atSlot: 6, of: $0) }
        case 7: { Item.value(atSlot: 7, of: $0) }
        case 8: { Item.value(atSlot: 8, of: $0) }
        case 9: { Item.value(atSlot: 9, of: $0) }
        case 10: { Item.value(atSlot: 10, of: $0) }
        case 11: { Item.value(atSlot: 11, of: $0) }
        case 12: { Item.value(atSlot: 12, of: $0) }
        case 13: { Item.value(atSlot: 13, of: $0) }
        case 14: { Item.value(atSlot: 14, of: $0) }
        case 15: { Item.value(atSlot: 15, of: $0) }
        case 16: { Item.value(atSlot: 16, of: $0) }
        case 17: { Item.value(atSlot: 17, of: $0) }
        case 18: { Item.value(atSlot: 18, of: $0) }
        case 19: { Item.value(atSlot: 19, of: $0) }
        case 20: { Item.value(atSlot: 20, of: $0) }
        case 21: { Item.value(atSlot: 21, of: $0) }
        case 22: { Item.value(atSlot: 22, of: $0) }
        case 23: { Item.value(atSlot: 23, of: $0) }
        case 24: { Item.value(atSlot: 24, of: $0) }
        case 25: { Item.value(atSlot: 25, of: $0) }
        case 26: { Item.value(atSlot: 26, of: $0) }
        case 27: { Item.value(atSlot: 27, of: $0) }
        case 28: { Item.value(atSlot: 28, of: $0) }
        case 29: { Item.value(atSlot: 29, of: $0) }
        case 30: { Item.value(atSlot: 30, of: $0) }
        case 31: { Item.value(atSlot: 31, of: $0) }
        default: { Item.value(atSlot: slot, of: $0) }
        }
    }

    /// `body` applied to field `slot` of an item when it is a string (else `nil`), compiled for
    /// that slot. The string is borrowed from the item, read in place
    /// (``KeyValueCoding/withObject(at:_:)``): neither retained nor released. Read through the
    /// instance requirement, which means what the static ``KeyValueCoding/value(atSlot:of:)``
    /// means: a value returned from that would own its string.
    @inlinable
    static func withString(atSlot slot: Int) -> (UnsafePointer<Item>, (String) -> Bool?) -> Bool? {
        switch slot {
        case 0: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 0), body) } }
        case 1: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 1), body) } }
        case 2: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 2), body) } }
        case 3: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 3), body) } }
        case 4: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 4), body) } }
        case 5: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 5), body) } }
        case 6: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 6), body) } }
        case 7: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 7), body) } }
        case 8: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 8), body) } }
        case 9: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 9), body) } }
        case 10: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 10), body) } }
        case 11: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 11), body) } }
        case 12: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 12), body) } }
        case 13: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 13), body) } }
        case 14: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 14), body) } }
        case 15: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 15), body) } }
        case 16: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 16), body) } }
        case 17: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 17), body) } }
        case 18: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 18), body) } }
        case 19: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 19), body) } }
        case 20: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 20), body) } }
        case 21: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 21), body) } }
        case 22: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 22), body) } }
        case 23: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 23), body) } }
        case 24: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 24), body) } }
        case 25: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 25), body) } }
        case 26: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 26), body) } }
        case 27: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 27), body) } }
        case 28: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 28), body) } }
        case 29: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 29), body) } }
        case 30: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 30), body) } }
        case 31: { item, body in Item.withObject(at: item) { Self.string($0.value(atSlot: 31), body) } }
        default: { item, body in string(Item.value(atSlot: slot, of: item), body) }
        }
    }

    /// `body` applied to the string `value` holds, if it is one.
    @inlinable @inline(__always)
    static func string(_ value: Value, _ body: (String) -> Bool?) -> Bool? {
        guard case .string(let text) = value else { return nil }
        return body(text)
    }

    /// The loop of an integer-bounds test of field `slot` (``IntegerBoundsScan``), compiled for
    /// that slot: with the field's read inlined, an item costs its schema, a load and a
    /// comparison, with no call for the field.
    @inlinable
    static func integerScan(atSlot slot: Int) -> ((UnsafePointer<Item>, Int, IntegerBoundsScan) -> [Int])? {
        switch slot {
        case 0: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 0, of: $0) } }
        case 1: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 1, of: $0) } }
        case 2: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 2, of: $0) } }
        case 3: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 3, of: $0) } }
        case 4: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 4, of: $0) } }
        case 5: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 5, of: $0) } }
        case 6: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 6, of: $0) } }
        case 7: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 7, of: $0) } }
        case 8: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 8, of: $0) } }
        case 9: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 9, of: $0) } }
        case 10: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 10, of: $0) } }
        case 11: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 11, of: $0) } }
        case 12: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 12, of: $0) } }
        case 13: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 13, of: $0) } }
        case 14: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 14, of: $0) } }
        case 15: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 15, of: $0) } }
        case 16: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 16, of: $0) } }
        case 17: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 17, of: $0) } }
        case 18: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 18, of: $0) } }
        case 19: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 19, of: $0) } }
        case 20: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 20, of: $0) } }
        case 21: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 21, of: $0) } }
        case 22: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 22, of: $0) } }
        case 23: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 23, of: $0) } }
        case 24: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 24, of: $0) } }
        case 25: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 25, of: $0) } }
        case 26: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 26, of: $0) } }
        case 27: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 27, of: $0) } }
        case 28: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 28, of: $0) } }
        case 29: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 29, of: $0) } }
        case 30: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 30, of: $0) } }
        case 31: { base, count, scan in scan.run(base, count: count) { Item.value(atSlot: 31, of: $0) } }
        default: nil
        }
    }

    /// ``KeyValueCoding/scalar(atSlot:of:)`` of field `slot`, compiled for that slot.
    @inlinable
    static func scalar(atSlot slot: Int) -> (UnsafePointer<Item>) -> Scalar {
        switch slot {
        case 0: { Item.scalar(atSlot: 0, of: $0) }
        case 1: { Item.scalar(atSlot: 1, of: $0) }
        case 2: { Item.scalar(atSlot: 2, of: $0) }
        case 3: { Item.scalar(atSlot: 3, of: $0) }
        case 4: { Item.scalar(atSlot: 4, of: $0) }
        case 5: { Item.scalar(atSlot: 5, of: $0) }
        case 6: { Item.scalar(atSlot: 6, of: $0) }
        case 7: { Item.scalar(atSlot: 7, of: $0) }
        case 8: { Item.scalar(atSlot: 8, of: $0) }
        case 9: { Item.scalar(atSlot: 9, of: $0) }
        case 10: { Item.scalar(atSlot: 10, of: $0) }
        case 11: { Item.scalar(atSlot: 11, of: $0) }
        case 12: { Item.scalar(atSlot: 12, of: $0) }
        case 13: { Item.scalar(atSlot: 13, of: $0) }
        case 14: { Item.scalar(atSlot: 14, of: $0) }
        case 15: { Item.scalar(atSlot: 15, of: $0) }
        case 16: { Item.scalar(atSlot: 16, of: $0) }
        case 17: { Item.scalar(atSlot: 17, of: $0) }
        case 18: { Item.scalar(atSlot: 18, of: $0) }
        case 19: { Item.scalar(atSlot: 19, of: $0) }
        case 20: { Item.scalar(atSlot: 20, of: $0) }
        case 21: { Item.scalar(atSlot: 21, of: $0) }
        case 22: { Item.scalar(atSlot: 22, of: $0) }
        case 23: { Item.scalar(atSlot: 23, of: $0) }
        case 24: { Item.scalar(atSlot: 24, of: $0) }
        case 25: { Item.scalar(atSlot: 25, of: $0) }
        case 26: { Item.scalar(atSlot: 26, of: $0) }
        case 27: { Item.scalar(atSlot: 27, of: $0) }
        case 28: { Item.scalar(atSlot: 28, of: $0) }
        case 29: { Item.scalar(atSlot: 29, of: $0) }
        case 30: { Item.scalar(atSlot: 30, of: $0) }
        case 31: { Item.scalar(atSlot: 31, of: $0) }
        default: { Item.scalar(atSlot: slot, of: $0) }
        }
    }
}
