import PredicateSemantics
import PredicateValue

extension SingleFieldTest {
    /// Writes the answer of a rule that is this test (`inverted` or not) for each of the `count`
    /// items from `base` to `answers`, and returns the others, in order: those of another schema
    /// than `schema`, and those ``decide(_:)`` leaves.
    ///
    /// What the test is (a scalar, a stored string, a field's value, and which substring kernel)
    /// is decided here, once per batch; each kind has a loop of its own (``ItemLoop/run(_:)``),
    /// compiled for the item type where it is called, with nothing in it but the item's schema,
    /// its field and the decision.
    @inlinable
    func answerEach<Item: KeyValueCoding>(
        _ base: UnsafePointer<Item>, count: Int, schema: ObjectIdentifier, sharedSchema: ObjectIdentifier?,
        inverted: Bool, into answers: UnsafeMutablePointer<Bool>
    ) -> [Int] {
        if let sharedSchema, sharedSchema != schema { return Array(0..<count) }
        // With no schema shared by the type's objects, each object answers for its own.
        let loop = ItemLoop(
            base: base, count: count, checksEach: sharedSchema == nil, schema: schema, inverted: inverted,
            answers: answers)
        guard let strings else {
            // Integer bounds (`BETWEEN`, `<`, `==` against integers): an integer operand, the
            // usual one, is decided by one comparison before the whole decision is looked at.
            if let integerBounds = IntegerFieldDecision<Item>(slot: slot, decision: decision) {
                // Integers by a loop compiled for the slot; the items it leaves (another schema,
                // another kind of value) by the whole decision.
                guard let scan = ConstantSlotReader<Item>.integerScan(atSlot: slot) else {
                    return loop.run(integerBounds)
                }
                let others = scan(
                    base, count,
                    IntegerBoundsScan(
                        integerBounds, checksEach: sharedSchema == nil, schema: schema, inverted: inverted,
                        answers: answers))
                return loop.run(integerBounds, listed: others)
            }
            return loop.run(ScalarFieldDecision<Item>(slot: slot, decision: decision))
        }
        // Strings are asked for ahead only past the size where that pays (see the constant).
        let asksAhead = count &* MemoryLayout<Item>.stride >= StringStorageHint.worthwhileBytes
        if let stored {
            let nilResult = decision.nilResult
            return matcher._withUnsafeGuaranteedRef { box in
                kernel.withType(
                    StoredStringLoop(
                        loop: loop, stored: stored, asksAhead: asksAhead, nilResult: nilResult, matcher: box.matcher,
                        strings: strings))
            }
        }
        let hint = StringStorageHint.learn(
            base: UnsafeRawPointer(base), stride: MemoryLayout<Item>.stride, size: MemoryLayout<Item>.size,
            count: count, worthwhile: asksAhead
        ) { [slot] index in
            guard loop.hasSchema(base + index), case .string(let text) = Item.value(atSlot: slot, of: base + index)
            else { return nil }
            return text
        }
        return matcher._withUnsafeGuaranteedRef { box in
            kernel.withType(ValueStringLoop(loop: loop, slot: slot, hint: hint, matcher: box.matcher, strings: strings))
        }
    }
}

extension SingleFieldTest.Kernel {
    /// What `body` does with the ``StringKernel`` type of this kernel: one loop per kernel.
    @inlinable @inline(__always)
    func withType<Body: KernelBody>(_ body: Body) -> Body.Result {
        switch self {
        case .equal: body.run(EqualKernel.self)
        case .notEqual: body.run(NotEqualKernel.self)
        case .prefix: body.run(PrefixKernel.self)
        case .suffix: body.run(SuffixKernel.self)
        case .contains: body.run(ContainsKernel.self)
        case .other: body.run(PreparedStringKernel.self)
        }
    }
}

/// Work generic over a ``StringKernel`` (``SingleFieldTest/Kernel/withType(_:)``).
@usableFromInline
protocol KernelBody {
    associatedtype Result
    func run<Kernel: StringKernel>(_: Kernel.Type) -> Result
}

/// The loop over strings stored in place, for a kernel.
@usableFromInline
struct StoredStringLoop<Item: KeyValueCoding>: KernelBody {
    @usableFromInline let loop: ItemLoop<Item>
    @usableFromInline let stored: StoredString
    @usableFromInline let asksAhead: Bool
    @usableFromInline let nilResult: Bool?
    @usableFromInline let matcher: StringMatcher
    @usableFromInline let strings: Unmanaged<PreparedComparison>

    @inlinable
    init(
        loop: ItemLoop<Item>, stored: StoredString, asksAhead: Bool, nilResult: Bool?, matcher: StringMatcher,
        strings: Unmanaged<PreparedComparison>
    ) {
        self.loop = loop
        self.stored = stored
        self.asksAhead = asksAhead
        self.nilResult = nilResult
        self.matcher = matcher
        self.strings = strings
    }

    @inlinable @inline(__always)
    func run<Kernel: StringKernel>(_: Kernel.Type) -> [Int] {
        loop.run(
            StoredStringDecision<Item, Kernel>(
                stored: stored, asksAhead: asksAhead, nilResult: nilResult, matcher: matcher, strings: strings))
    }
}

/// The loop over strings read as a field's value, for a kernel.
@usableFromInline
struct ValueStringLoop<Item: KeyValueCoding>: KernelBody {
    @usableFromInline let loop: ItemLoop<Item>
    @usableFromInline let slot: Int
    @usableFromInline let hint: StringStorageHint?
    @usableFromInline let matcher: StringMatcher
    @usableFromInline let strings: Unmanaged<PreparedComparison>

    @inlinable
    init(
        loop: ItemLoop<Item>, slot: Int, hint: StringStorageHint?, matcher: StringMatcher,
        strings: Unmanaged<PreparedComparison>
    ) {
        self.loop = loop
        self.slot = slot
        self.hint = hint
        self.matcher = matcher
        self.strings = strings
    }

    @inlinable @inline(__always)
    func run<Kernel: StringKernel>(_: Kernel.Type) -> [Int] {
        loop.run(ValueStringDecision<Item, Kernel>(slot: slot, hint: hint, matcher: matcher, strings: strings))
    }
}

/// The loop of ``SingleFieldTest/answerEach(_:count:schema:sharedSchema:inverted:into:)`` over a
/// batch of items.
@usableFromInline
struct ItemLoop<Item: KeyValueCoding> {
    @usableFromInline let base: UnsafePointer<Item>
    @usableFromInline let count: Int
    /// Whether each item's schema is asked for (the type's objects share none).
    @usableFromInline let checksEach: Bool
    @usableFromInline let schema: ObjectIdentifier
    @usableFromInline let inverted: Bool
    @usableFromInline let answers: UnsafeMutablePointer<Bool>

    @inlinable
    init(
        base: UnsafePointer<Item>, count: Int, checksEach: Bool, schema: ObjectIdentifier, inverted: Bool,
        answers: UnsafeMutablePointer<Bool>
    ) {
        self.base = base
        self.count = count
        self.checksEach = checksEach
        self.schema = schema
        self.inverted = inverted
        self.answers = answers
    }

    /// Decides the items at `indices` with `decision` as ``run(_:)`` does; returns those of
    /// another schema and those `decision` leaves.
    @inlinable @inline(never)
    func run<Decision: ItemDecision>(_ decision: Decision, listed indices: [Int]) -> [Int] where Decision.Item == Item {
        var undecided: [Int] = []
        for index in indices where index >= 0 && index < count {
            let item = base + index
            if hasSchema(item), let answer = decision.decide(item) {
                answers[index] = answer != inverted
            } else {
                undecided.append(index)
            }
        }
        return undecided
    }

    /// Whether the item at `item` has the schema the rule was bound to.
    @inlinable @inline(__always)
    func hasSchema(_ item: UnsafePointer<Item>) -> Bool {
        !checksEach || Item.schemaIdentity(of: item) == schema
    }

    /// Decides every item with `decision`, asking for what it reads of the item
    /// ``prefetchDistance`` items on; returns the items of another schema and those `decision`
    /// leaves. A function of its own per decision and item type, so that its state stays in
    /// registers.
    @inlinable @inline(never)
    func run<Decision: ItemDecision>(_ decision: Decision) -> [Int] where Decision.Item == Item {
        // One loop for each, so that the one without the schema asks nothing per item.
        checksEach ? run(decision, checkingEach: true) : run(decision, checkingEach: false)
    }

    @inlinable @inline(__always)
    func run<Decision: ItemDecision>(_ decision: Decision, checkingEach: Bool) -> [Int] where Decision.Item == Item {
        var undecided: [Int] = []
        let last = count - 1
        for index in 0..<count {
            let item = base + index
            decision.prefetch(UnsafeRawPointer(base + min(index &+ Self.prefetchDistance, last)))
            if checkingEach, _slowPath(Item.schemaIdentity(of: item) != schema) {
                undecided.append(index)
            } else if let answer = decision.decide(item) {
                answers[index] = answer != inverted
            } else {
                undecided.append(index)
            }
        }
        return undecided
    }

    /// How many items ahead ``run(_:)`` asks for a string's memory: far enough for a miss to
    /// arrive while the items between are decided.
    @inlinable
    static var prefetchDistance: Int { 16 }
}

/// How ``ItemLoop/run(_:)`` decides one item, `nil` leaving it to the general path.
@usableFromInline
protocol ItemDecision {
    associatedtype Item: KeyValueCoding
    func decide(_ item: UnsafePointer<Item>) -> Bool?
    /// Asks for the memory ``decide(_:)`` will read of the item at `item`.
    func prefetch(_ item: UnsafeRawPointer)
}

/// A field read as a ``Scalar`` through the type's own requirement.
@usableFromInline
struct ScalarFieldDecision<Item: KeyValueCoding>: ItemDecision {
    @usableFromInline let field: (UnsafePointer<Item>) -> Scalar
    @usableFromInline let decision: ScalarDecision

    @inlinable
    init(slot: Int, decision: ScalarDecision) {
        field = ConstantSlotReader<Item>.scalar(atSlot: slot)
        self.decision = decision
    }

    @inlinable @inline(__always)
    func decide(_ item: UnsafePointer<Item>) -> Bool? {
        decision.decide(field(item))
    }

    @inlinable @inline(__always)
    func prefetch(_ item: UnsafeRawPointer) {}
}

/// A field compared with integer bounds, read through the type's `value(atSlot:)`: an integer or
/// a Boolean is decided by the bounds alone (one unsigned comparison), any other kind by the whole
/// decision.
///
/// The value, not the ``Scalar`` the type may also answer (both mean the same): types that reach
/// this loop answer scalars for fields they do not store, mostly by the protocol's default, which
/// converts the value through a jump over all its kinds; testing the value's case instead took
/// `documentSize BETWEEN {…}` over the minimal conformance from 89 to 82 instructions an item
/// (5.5 to 5.2 ns). The bounds are kept as the loop uses them (``IntegerBounds``), so that an
/// integer costs a subtraction and a comparison.
@usableFromInline
struct IntegerFieldDecision<Item: KeyValueCoding>: ItemDecision {
    @usableFromInline let field: (UnsafePointer<Item>) -> Value
    @usableFromInline let bounds: IntegerBounds
    @usableFromInline let negated: Bool
    @usableFromInline let decision: ScalarDecision

    /// The decision of field `slot`, when `decision` has integer bounds (``ScalarDecision/integers``)
    /// that some integer is inside (`x BETWEEN {5, 2}` is left to ``ScalarFieldDecision``).
    @inlinable
    init?(slot: Int, decision: ScalarDecision) {
        guard let integers = decision.integers, !integers.isEmpty else { return nil }
        field = ConstantSlotReader<Item>.value(atSlot: slot)
        bounds = IntegerBounds(lower: integers.lower, upper: integers.upper)
        negated = integers.negated
        self.decision = decision
    }

    @inlinable @inline(__always)
    func decide(_ item: UnsafePointer<Item>) -> Bool? {
        let value = field(item)
        if let number = Self.integer(value) { return bounds.contains(number) != negated }
        return decision.decide(value)
    }

    /// The integer `value` is to integer bounds: an integer, or a Boolean as 0 or 1 (as
    /// ``ScalarDecision/decide(_:)-(Value)`` takes it); `nil` for any other kind.
    @inlinable @inline(__always)
    static func integer(_ value: Value) -> Int64? {
        switch value {
        case .int(let number): number
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }

    @inlinable @inline(__always)
    func prefetch(_ item: UnsafeRawPointer) {}
}

/// The integers from `lower` to `upper` (``IntegerTest`` of a test that holds for some integer),
/// kept as a loop tests them: an integer is inside when its distance above `lower`, unsigned, is
/// at most the span, one subtraction and one comparison.
@usableFromInline
struct IntegerBounds {
    @usableFromInline let lower: Int64
    @usableFromInline let span: UInt64

    @inlinable
    init(lower: Int64, upper: Int64) {
        self.lower = lower
        span = UInt64(bitPattern: upper &- lower)
    }

    @inlinable @inline(__always)
    func contains(_ number: Int64) -> Bool { UInt64(bitPattern: number &- lower) <= span }
}

/// The integers of an integer-bounds test (``IntegerFieldDecision``) decided in one pass, by a loop
/// compiled for the field's slot (``ConstantSlotReader/integerScan(atSlot:)``): the answer, inverted
/// or not, written for each item of the rule's schema whose field is an integer or a Boolean; the
/// others listed for the whole decision.
@usableFromInline
struct IntegerBoundsScan {
    @usableFromInline let bounds: IntegerBounds
    /// Whether an integer inside the bounds answers `false`: the test negated, or the rule.
    @usableFromInline let flip: Bool
    /// Whether each item's schema is asked for (the type's objects share none).
    @usableFromInline let checksEach: Bool
    @usableFromInline let schema: ObjectIdentifier
    @usableFromInline let answers: UnsafeMutablePointer<Bool>

    @inlinable
    init<Item>(
        _ decision: IntegerFieldDecision<Item>, checksEach: Bool, schema: ObjectIdentifier, inverted: Bool,
        answers: UnsafeMutablePointer<Bool>
    ) {
        bounds = decision.bounds
        flip = decision.negated != inverted
        self.checksEach = checksEach
        self.schema = schema
        self.answers = answers
    }

    /// Decides the integers of the `count` items from `base`, reading each item's field with
    /// `read`; returns the indices of the others, in order.
    @inlinable @inline(__always)
    func run<Item: KeyValueCoding>(
        _ base: UnsafePointer<Item>, count: Int, read: (UnsafePointer<Item>) -> Value
    ) -> [Int] {
        checksEach
            ? run(base, count: count, checkingEach: true, read) : run(base, count: count, checkingEach: false, read)
    }

    @inlinable @inline(__always)
    func run<Item: KeyValueCoding>(
        _ base: UnsafePointer<Item>, count: Int, checkingEach: Bool, _ read: (UnsafePointer<Item>) -> Value
    ) -> [Int] {
        var others: [Int] = []
        for index in 0..<count {
            let item = base + index
            if checkingEach, _slowPath(Item.schemaIdentity(of: item) != schema) {
                others.append(index)
            } else if let number = IntegerFieldDecision<Item>.integer(read(item)) {
                answers[index] = bounds.contains(number) != flip
            } else {
                others.append(index)
            }
        }
        return others
    }
}

/// A string the type stores in place (``StoredString``), compared where it lies.
@usableFromInline
struct StoredStringDecision<Item: KeyValueCoding, Kernel: StringKernel>: ItemDecision {
    @usableFromInline let stored: StoredString
    /// Whether the string is asked for ahead (a batch past ``StringStorageHint/worthwhileBytes``).
    @usableFromInline let asksAhead: Bool
    @usableFromInline let nilResult: Bool?
    @usableFromInline let matcher: StringMatcher
    @usableFromInline let strings: Unmanaged<PreparedComparison>

    @inlinable
    init(
        stored: StoredString, asksAhead: Bool, nilResult: Bool?, matcher: StringMatcher,
        strings: Unmanaged<PreparedComparison>
    ) {
        self.stored = stored
        self.asksAhead = asksAhead
        self.nilResult = nilResult
        self.matcher = matcher
        self.strings = strings
    }

    @inlinable @inline(__always)
    func decide(_ item: UnsafePointer<Item>) -> Bool? {
        stored.withString(
            in: UnsafeRawPointer(item), whenNil: { nilResult }, { Kernel.test(matcher, strings, $0) })
    }

    @inlinable @inline(__always)
    func prefetch(_ item: UnsafeRawPointer) { if asksAhead { stored.prefetch(in: item) } }
}

/// A field the type answers as a ``Value`` (the protocol's minimal conformance), decided when it
/// is a string; its memory asked for where the first items showed it to be
/// (``StringStorageHint``), when they did.
@usableFromInline
struct ValueStringDecision<Item: KeyValueCoding, Kernel: StringKernel>: ItemDecision {
    @usableFromInline let field: (UnsafePointer<Item>, (String) -> Bool?) -> Bool?
    @usableFromInline let hint: StringStorageHint?
    @usableFromInline let matcher: StringMatcher
    @usableFromInline let strings: Unmanaged<PreparedComparison>

    @inlinable
    init(slot: Int, hint: StringStorageHint?, matcher: StringMatcher, strings: Unmanaged<PreparedComparison>) {
        field = ConstantSlotReader<Item>.withString(atSlot: slot)
        self.hint = hint
        self.matcher = matcher
        self.strings = strings
    }

    @inlinable @inline(__always)
    func decide(_ item: UnsafePointer<Item>) -> Bool? {
        field(item) { Kernel.test(matcher, strings, $0) }
    }

    @inlinable @inline(__always)
    func prefetch(_ item: UnsafeRawPointer) { hint?.prefetch(in: item) }
}

/// A string test as a type, so that each loop calls its kernel directly.
@usableFromInline
protocol StringKernel {
    /// The test's answer for `text`; `nil` when the general path must decide.
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool?
}

@usableFromInline
enum EqualKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        matcher.equals(text)
    }
}

@usableFromInline
enum NotEqualKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        !matcher.equals(text)
    }
}

@usableFromInline
enum PrefixKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        matcher.isPrefix(of: text)
    }
}

@usableFromInline
enum SuffixKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        matcher.isSuffix(of: text)
    }
}

@usableFromInline
enum ContainsKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        matcher.isContained(in: text)
    }
}

/// Any other string test (`LIKE`, `MATCHES`), through the comparison's own strings.
@usableFromInline
enum PreparedStringKernel: StringKernel {
    @inlinable @inline(__always)
    static func test(_ matcher: StringMatcher, _ strings: Unmanaged<PreparedComparison>, _ text: String) -> Bool? {
        strings._withUnsafeGuaranteedRef { $0.strings?.holds(text) }
    }
}
