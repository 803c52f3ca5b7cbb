import PredicateSemantics
import PredicateValue

/// One test of a ``SiteTable``: a field of `SELF` that the item type answers through its own
/// requirements (the protocol's minimal conformance, a computed property), or a string it stores
/// in place, compared with a constant (`documentSize BETWEEN {…}`, `name ENDSWITH[c] '.pdf'`),
/// with what decides it, taken out of the program once for a batch. Plain values only, so that
/// ``VirtualMachine/evaluate(items:variables:into:)`` runs it in a loop compiled for the item
/// type where it is called: each item costs its field and the decision, with calls into the type
/// that the compiler sees.
///
/// Decides what ``VirtualMachine/decideSelfScalar(_:_:unordered:patternSteps:)`` and
/// ``VirtualMachine/decideSelfString(_:_:unordered:patternSteps:)`` decide without the general
/// comparison, with the same answers; every other item (a value of another kind, a type error)
/// is left to those paths, and from there to the instructions.
@usableFromInline
struct SingleFieldTest: Sendable {
    /// The schema the rule was bound to; an item of another schema is left to the general path.
    @usableFromInline let schema: ObjectIdentifier
    @usableFromInline let slot: Int
    /// What decides a field read as a ``Scalar``; unused when ``strings`` is not `nil`.
    @usableFromInline let decision: ScalarDecision
    /// The comparison whose string test decides a string field; `nil` for a field read as a
    /// scalar.
    @usableFromInline let strings: Unmanaged<PreparedComparison>?
    /// Where the item's type stores the string field, when it does (``StoredString``): the string
    /// is then compared where it lies; `nil` when it is read as a value.
    @usableFromInline let stored: StoredString?
    /// The string test's operator, when it is one of the substring kernels, called directly on
    /// ``matcher`` (a switch on the test per item, and its copy of the matcher, cost a tenth of
    /// a short string's comparison).
    @usableFromInline let kernel: Kernel
    /// The kernel's matcher, held by the ``SiteTable`` (an unused one for ``Kernel/other``).
    /// Plain references, so that a test is copied out of the table with no reference counting.
    @usableFromInline let matcher: Unmanaged<KernelMatcher>

    /// A string test decided by one call of its matcher; `other` for a pattern.
    @usableFromInline
    enum Kernel: Sendable {
        case equal, notEqual, prefix, suffix, contains, other
    }

    init(schema: ObjectIdentifier, slot: Int, decision: ScalarDecision) {
        self.schema = schema
        self.slot = slot
        self.decision = decision
        strings = nil
        stored = nil
        kernel = .other
        matcher = Unmanaged.passUnretained(KernelMatcher.unused)
    }

    /// A string field's test, read where `stored` says when it is not `nil` (else as the field's
    /// value), its matcher kept alive by `matchers`.
    init(
        schema: ObjectIdentifier, slot: Int, stored: StoredString?, strings: Unmanaged<PreparedComparison>,
        matchers: inout [KernelMatcher]
    ) {
        self.schema = schema
        self.slot = slot
        // For a stored optional that is nil: the answer the general path gives `nil`.
        decision = strings._withUnsafeGuaranteedRef { $0.scalar }
        self.strings = strings
        self.stored = stored
        let (kernel, found) = strings._withUnsafeGuaranteedRef { prepared -> (Kernel, StringMatcher?) in
            switch prepared.strings {
            case .equal(let matcher, let negated)?: (negated ? .notEqual : .equal, matcher)
            case .prefix(let matcher)?: (.prefix, matcher)
            case .suffix(let matcher)?: (.suffix, matcher)
            case .contains(let matcher)?: (.contains, matcher)
            case .like?, .matches?, nil: (.other, nil)
            }
        }
        self.kernel = kernel
        if let found {
            let box = KernelMatcher(found)
            matchers.append(box)
            matcher = Unmanaged.passUnretained(box)
        } else {
            matcher = Unmanaged.passUnretained(KernelMatcher.unused)
        }
    }

    /// The test's answer for the item at `item`, or `nil` when the site's own path must decide.
    @inlinable @inline(__always)
    func decide<Item: KeyValueCoding>(_ item: UnsafePointer<Item>) -> Bool? {
        guard let strings else { return decision.decide(Item.scalar(atSlot: slot, of: item)) }
        if let stored {
            let nilResult = decision.nilResult
            return stored.withString(
                in: UnsafeRawPointer(item), whenNil: { nilResult }, { text in decide(text, strings) })
        }
        guard case .string(let text) = Item.value(atSlot: slot, of: item) else { return nil }
        return decide(text, strings)
    }

    /// The string test's answer for `text`.
    ///
    /// A switch of its own rather than ``Kernel/withType(_:)``: the site table calls this per
    /// item, and a ``KernelBody`` made per item copies the matcher, retaining what it holds
    /// (about 550 instructions an item more on `owner == 'me' OR name == 'notes 7.txt'`).
    @inlinable @inline(__always)
    func decide(_ text: String, _ strings: Unmanaged<PreparedComparison>) -> Bool? {
        switch kernel {
        case .equal: return matcher._withUnsafeGuaranteedRef { $0.matcher.equals(text) }
        case .notEqual: return matcher._withUnsafeGuaranteedRef { !$0.matcher.equals(text) }
        case .prefix: return matcher._withUnsafeGuaranteedRef { $0.matcher.isPrefix(of: text) }
        case .suffix: return matcher._withUnsafeGuaranteedRef { $0.matcher.isSuffix(of: text) }
        case .contains: return matcher._withUnsafeGuaranteedRef { $0.matcher.isContained(in: text) }
        case .other: break
        }
        return strings._withUnsafeGuaranteedRef { $0.strings?.holds(text) }
    }
}

/// A substring kernel's matcher, in a box of its own: called where it lies, through a plain
/// reference, it is neither copied nor retained for a call.
@usableFromInline
final class KernelMatcher: Sendable {
    @usableFromInline let matcher: StringMatcher

    init(_ matcher: StringMatcher) { self.matcher = matcher }

    /// The matcher of tests that use none.
    static let unused = KernelMatcher(StringMatcher("", options: []))
}

/// A rule made only of tests of fields of `SELF` that ``SingleFieldTest``s decide, `NOT`, `AND`
/// and `OR` (`(isShared == YES AND isTrashed == NO) OR documentSize < 5000000` over items of the
/// protocol's minimal conformance), decided from its tests' answers all at once as a
/// ``DecisionTable`` decides stored fields: the table says what the straight loop would answer
/// and charge on each combination of answers. ``VirtualMachine/evaluate(items:variables:into:)``
/// runs the tests in a loop compiled for the item type where it is called.
@usableFromInline
struct SiteTable: Sendable {
    /// The schema the rule was bound to: every test's.
    @usableFromInline let schema: ObjectIdentifier
    /// The tests, in the order of the program's test words: answer `i` is bit `i` of the index.
    @usableFromInline let tests: [SingleFieldTest]
    /// One outcome per combination of answers.
    @usableFromInline let outcomes: [DecisionTable.Outcome]
    /// The steps an evaluation may take.
    @usableFromInline let budget: Int
    /// What keeps the tests' matchers alive.
    let matchers: [KernelMatcher]
    /// The one test of a rule that is one (`documentSize BETWEEN {…}`, `NOT isShared`) when both
    /// its answers are decided within the budget: the rule's answer is the test's, inverted or
    /// not, with no table to look up.
    @usableFromInline let single: SingleFieldTest?
    @usableFromInline let singleInverted: Bool

    init(
        schema: ObjectIdentifier, tests: [SingleFieldTest], outcomes: [DecisionTable.Outcome], budget: Int,
        matchers: [KernelMatcher]
    ) {
        self.schema = schema
        self.tests = tests
        self.outcomes = outcomes
        self.budget = budget
        self.matchers = matchers
        if tests.count == 1, outcomes.count == 2,
            outcomes.allSatisfy({ $0.decided && budget >= Int($0.charge) }), outcomes[0].answer != outcomes[1].answer
        {
            single = tests[0]
            singleInverted = outcomes[1].answer == false
        } else {
            single = nil
            singleInverted = false
        }
    }

    /// Writes the rule's answer for each of the `count` items from `base` that the table decides
    /// to `answers`, and returns the others, in order: those of another schema than ``schema``,
    /// and those ``decide(_:_:_:)`` leaves.
    @inlinable @inline(never)
    func answer<Item: KeyValueCoding>(
        _ base: UnsafePointer<Item>, count: Int, sharedSchema: ObjectIdentifier?,
        into answers: UnsafeMutablePointer<Bool>
    ) -> [Int] {
        // A rule that is one test needs no table: its loops are the test's own, one per kind.
        if let single {
            return single.answerEach(
                base, count: count, schema: schema, sharedSchema: sharedSchema, inverted: singleInverted,
                into: answers)
        }
        var undecided: [Int] = []
        tests.withUnsafeBufferPointer { tests in
            outcomes.withUnsafeBufferPointer { outcomes in
                for index in 0..<count {
                    let item = base + index
                    if sharedSchema ?? Item.schemaIdentity(of: item) == schema,
                        let answer = decide(item, tests, outcomes)
                    {
                        answers[index] = answer
                    } else {
                        undecided.append(index)
                    }
                }
            }
        }
        return undecided
    }

    /// The rule's answer for the item at `item`, whose schema is ``schema``, or `nil` when the
    /// straight loop or the instructions must decide it (a test left undecided, a path that
    /// leaves the straight loop, a charge over the budget).
    @inlinable @inline(__always)
    func decide<Item: KeyValueCoding>(
        _ item: UnsafePointer<Item>, _ tests: UnsafeBufferPointer<SingleFieldTest>,
        _ outcomes: UnsafeBufferPointer<DecisionTable.Outcome>
    ) -> Bool? {
        var combination = 0
        for position in tests.indices {
            guard let answer = tests[position].decide(item) else { return nil }
            combination |= (answer ? 1 : 0) &<< position
        }
        let outcome = outcomes[combination & (outcomes.count - 1)]
        guard outcome.decided, budget >= Int(outcome.charge) else { return nil }
        return outcome.answer
    }
}

extension VirtualMachine {
    /// Site `index` as a ``SingleFieldTest``: a field of `SELF` (``ScalarSite``) whose test the
    /// field alone decides; `nil` otherwise.
    func singleFieldTest(_ index: Int, matchers: inout [KernelMatcher]) -> SingleFieldTest? {
        guard index < scalarSites.count else { return nil }
        let site = scalarSites.base[index]
        guard site.isPresent, site.variable < 0 else { return nil }
        guard site.readsValue else {
            return SingleFieldTest(schema: site.schema, slot: site.slot, decision: site.decision)
        }
        guard index < comparisons.count, let reference = comparisons[index],
            reference._withUnsafeGuaranteedRef({ $0.quantifier == .direct && $0.strings != nil })
        else { return nil }
        return SingleFieldTest(
            schema: site.schema, slot: site.slot, stored: nil, strings: reference, matchers: &matchers)
    }

    /// Site `index` as a ``SingleFieldTest`` of a string the adopted type stores (``StringSite``),
    /// compared where it lies by one of the substring kernels; `nil` otherwise.
    func storedStringTest(_ index: Int, matchers: inout [KernelMatcher]) -> SingleFieldTest? {
        guard let schema = hostSchema, index < stringSites.count else { return nil }
        let site = stringSites.base[index]
        guard let field = site.field, let reference = site.prepared, site.variable < 0,
            reference._withUnsafeGuaranteedRef({ $0.quantifier == .direct && $0.strings != nil })
        else { return nil }
        return SingleFieldTest(schema: schema, slot: -1, stored: field, strings: reference, matchers: &matchers)
    }
}
