import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A comparison site whose key path is one field, read directly: what decides it from the
/// field's ``Scalar``, as plain values (copied without any reference counting).
struct ScalarSite {
    /// Whether the site is one bound field read directly; the other fields mean nothing if not.
    let isPresent: Bool
    let schema: ObjectIdentifier
    let slot: Int
    /// The variable whose item the key path starts from, or -1 for `SELF`.
    let variable: Int
    /// What the instructions the site stands for charge on this path: the loads (2 from `SELF`,
    /// 3 from a variable) and ``EvaluationCost/comparison(_:_:)`` for a scalar left operand.
    let cost: Int
    let decision: ScalarDecision
    /// Whether the schema declares the field a string: its scalar is never one, so the field's
    /// value is read at once instead of after asking for a scalar (which, by the protocol's
    /// default, builds the same value).
    let readsValue: Bool

    init(schema: ObjectIdentifier, slot: Int, variable: Int, cost: Int, decision: ScalarDecision, readsValue: Bool) {
        isPresent = true
        self.schema = schema
        self.slot = slot
        self.variable = variable
        self.cost = cost
        self.decision = decision
        self.readsValue = readsValue
    }

    private init() {
        isPresent = false
        schema = ObjectIdentifier(ScalarSite.self)
        slot = -1
        variable = -1
        cost = 0
        decision = ScalarDecision.none
        readsValue = false
    }

    /// A site that the scalar path does not decide.
    static let absent = ScalarSite()
}

/// A comparison site decided from a field stored in items of the machine's host type: its
/// ``FieldTest`` (when the site is one such field and the test decides every value it can hold),
/// and what ``ScalarSite`` says of its receiver and cost, side by side so that one read through
/// a pointer has all the typed path needs.
struct StoredSite {
    let test: FieldTest?
    let variable: Int
    let cost: Int

    static let absent = StoredSite(test: nil, variable: -1, cost: 0)
}

/// A comparison site decided on a string field stored in items of the machine's host type
/// (``StoredString``), read where it lies: the field's place, the site's receiver and cost (as
/// ``ScalarSite`` has them), and its prepared comparison, borrowed (the program keeps it alive).
/// Plain data, read through one pointer.
struct StringSite {
    let field: StoredString?
    let variable: Int
    let cost: Int
    let prepared: Unmanaged<PreparedComparison>?

    static let absent = StringSite(field: nil, variable: -1, cost: 0, prepared: nil)
}

/// A comparison site whose key path is a dictionary field stored in items of the machine's host
/// type (``StoredDictionary``) and one key (`userInfo.rank`): the key is looked up in the
/// dictionary where it lies, and the value found decided as on the general path. The field's
/// place, the key (borrowed: ``VirtualMachine/dictionaryKeys`` keeps it), the receiver and the
/// loads the site stands for; plain data, read through one pointer.
struct DictionarySite {
    /// The key; `nil` when the site is not of this form.
    let key: Unmanaged<DictionaryKey>?
    /// The field's schema and slot: the site applies to receivers of that schema.
    let schema: ObjectIdentifier
    let slot: Int
    /// Where items of the host type store the field; `nil` when they do not (the field's value
    /// is then read, once, and the key looked up in it).
    let field: StoredDictionary?
    let variable: Int
    /// The steps of the loads and `PUSH_CONST` before the comparison (2 from `SELF`, 3 from a
    /// variable), as ``VirtualMachine/testInGeneral(_:_:)`` charges them.
    let loads: Int

    static let absent = DictionarySite(
        key: nil, schema: ObjectIdentifier(DictionaryKey.self), slot: -1, field: nil, variable: -1, loads: 0)
}

/// The key a ``DictionarySite`` looks up, held by the machine so that sites point at it
/// without reference counting.
final class DictionaryKey: Sendable {
    let lookup: DictionaryKeyLookup

    init(_ key: String) {
        lookup = DictionaryKeyLookup(key)
    }
}

/// What a ``StringSite`` makes of its field: an answer, a pattern to run, or the general path.
enum StringOutcome {
    case isFalse, isTrue, pattern, general
    /// The string cannot be ordered against the constant: the comparison's error.
    case cannotOrder

    init(_ answer: Bool?) {
        switch answer {
        case true?: self = .isTrue
        case false?: self = .isFalse
        case nil: self = .general
        }
    }
}

/// What a dictionary site found where the dictionary lies (``VirtualMachine/decideStoredDictionary(_:_:)``).
enum DictionaryOutcome {
    case isFalse, isTrue
    /// A value the prepared comparison does not decide: the general comparison's.
    case general
    /// No value the look-up can answer: the general path's.
    case absent
}

extension VirtualMachine {
    /// Comparison site `index`: its key path read (in place when it is a field of the item that
    /// `SELF` or the site's variable stands for), then decided from the field's stored bits, or
    /// its scalar, and the prepared constant when they decide it, else by the prepared constant
    /// on the field's value, else by the general comparison, as `CMP` would. Charges what the
    /// instructions it stands for would.
    @inline(__always)
    mutating func test(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Bool {
        // The typed path, inlined into the loop: a field stored in the item, one typed load and
        // one test, with no `Value` or `Scalar` built. Everything else is out of line.
        var left = steps
        if let decided = decideStored(index, item, steps: &left) {
            steps = left
            return decided
        }
        return try testByScalar(index, item)
    }

    /// Site `index` decided by the ``FieldTest`` of a field stored in the receiver, its steps
    /// charged; `nil` when the test does not apply or the budget would run out (the slower
    /// paths then charge and fail as the instructions would).
    ///
    /// Transparent rather than `@inline(__always)`: the optimiser kept both this and ``test(_:_:)``
    /// as calls from the loop (about 60 instructions a site), so the loop's `TEST…` cases call
    /// this, then ``testByScalar(_:_:)``, themselves instead of going through ``test(_:_:)``.
    @_transparent
    mutating func decideStored(_ index: Int, _ item: ItemReader?, steps: inout Int) -> Bool? {
        guard index < storedSites.count else { return nil }
        let site = storedSites.base + index
        guard let test = site.pointee.test, steps >= site.pointee.cost,
            let receiver = site.pointee.variable < 0 ? item : boundItem(site.pointee.variable),
            ObjectIdentifier(receiver.type) == hostType, let decided = test.decide(receiver.address)
        else { return nil }
        steps -= site.pointee.cost
        return decided
    }

    /// Site `index` decided from the scalar the receiver's type answers for the field, when the
    /// site is one bound field read directly and the scalar decides it; when the type answers no
    /// scalar for the field, from the field's value, read once; else on the general path.
    @inline(never)
    mutating func testByScalar(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Bool {
        if let decided = try decideStoredString(index, item) { return decided }
        if let decided = try decideStoredDictionary(index, item) { return decided }
        if index < scalarSites.count {
            // Through the pointer: the site's fields are read where they are, not copied out.
            let site = scalarSites.base + index
            if site.pointee.isPresent,
                let receiver = site.pointee.variable < 0 ? item : boundItem(site.pointee.variable),
                receiver.schema == site.pointee.schema
            {
                let scalar = site.pointee.readsValue ? Scalar.other : receiver.scalar(atSlot: site.pointee.slot)
                if let decided = site.pointee.decision.decide(scalar) {
                    try charge(site.pointee.cost)
                    return decided
                }
                // A type that answers no scalars (the protocol's default) or a field that is not
                // one: the value ``testInGeneral(_:_:)`` would read, its loads charged as there
                // (reading one field of the receiver cannot fail), then its comparison.
                if scalar.kind == .other, index < comparisons.count, let reference = comparisons[index] {
                    let value = receiver.value(atSlot: site.pointee.slot)
                    steps -= site.pointee.variable < 0 ? 2 : 3
                    if steps < 0 { try charge(0) }
                    return try decide(index, reference, value)
                }
            }
        }
        return try testInGeneral(index, item)
    }

    /// Site `index` decided on a string field stored in the receiver (``StringSite``): the
    /// string is borrowed where it lies and given to the prepared test, a compiled pattern (within
    /// the budget, as ``testInGeneral(_:_:)`` runs it), or the nil answer; the steps charged are
    /// the general path's. `nil`, with nothing charged, when the site has no such field, the
    /// receiver is not an item of the host type, the budget might run out before the comparison
    /// (the general path then fails where the instructions would), or the value needs the
    /// general comparison.
    @inline(__always)
    mutating func decideStoredString(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Bool? {
        guard index < stringSites.count else { return nil }
        let site = stringSites.base + index
        guard let field = site.pointee.field, let reference = site.pointee.prepared, steps >= site.pointee.cost,
            let receiver = site.pointee.variable < 0 ? item : boundItem(site.pointee.variable),
            ObjectIdentifier(receiver.type) == hostType
        else { return nil }
        let cost = site.pointee.cost
        var unordered = ""
        let outcome = storedStringOutcome(index, field, reference, receiver, unordered: &unordered)
        switch outcome {
        case .isFalse, .isTrue:
            steps -= cost
            return outcome == .isTrue
        case .general:
            return nil
        case .cannotOrder:
            // What the general path charges (the loads and the comparison) and throws.
            steps -= cost
            throw EvaluationError.cannotOrder(
                string: unordered, against: reference.takeUnretainedValue().constantOperand)
        case .pattern:
            // `LIKE` and `MATCHES` spend steps as they match, so their cost is paid after the
            // loads' and the comparison's, as on the general path.
            let prepared = reference.takeUnretainedValue()
            guard let pattern = prepared.pattern else { return nil }
            steps -= cost
            var budget = steps
            defer { steps = budget }
            let environment = self.environment
            return try field.withString(
                in: receiver.address, whenNil: { () throws(EvaluationError) -> Bool in false },
                { (text: String) throws(EvaluationError) -> Bool in
                    try pattern.matches(text, environment: environment, steps: &budget)
                })
        }
    }

    /// Site `index` decided on the value of its key in a dictionary field of the receiver
    /// (``DictionarySite``), looked up where the dictionary lies when the receiver's type stores
    /// it, else in the field's value read once; charged and decided as ``testInGeneral(_:_:)``
    /// charges and decides the value it reads. `nil`, with nothing charged, when the site is not
    /// of this form, the receiver is not of the field's schema, the field holds something other
    /// than a dictionary or nil, or a dotted key is missing (the general path then tries its
    /// parts).
    @inline(__always)
    mutating func decideStoredDictionary(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Bool? {
        guard index < dictionarySites.count else { return nil }
        let site = dictionarySites.base + index
        guard let key = site.pointee.key, index < comparisons.count, let reference = comparisons[index],
            let receiver = site.pointee.variable < 0 ? item : boundItem(site.pointee.variable),
            receiver.schema == site.pointee.schema
        else { return nil }
        let value: Value?
        if site.pointee.field != nil, ObjectIdentifier(receiver.type) == hostType {
            // The value found, kept when the prepared comparison does not decide it: one
            // look-up either way.
            var found = Value.nil
            let outcome = storedDictionaryOutcome(index, receiver, keeping: &found)
            switch outcome {
            case .isTrue, .isFalse:
                // What ``decide(_:_:_:)`` charges after the loads.
                steps -= site.pointee.loads
                if steps < 0 { try charge(0) }
                try charge(reference.takeUnretainedValue().scalarCost)
                return outcome == .isTrue
            case .absent:
                return nil
            case .general:
                value = found
            }
        } else {
            value = readKey(key, of: site, receiver)
        }
        guard let value else { return nil }
        steps -= site.pointee.loads
        if steps < 0 { try charge(0) }
        return try decide(index, reference, value)
    }

    /// The value of `key` for `receiver`, whose type does not store the dictionary field of
    /// `site`: the field's value read once and the key looked up in it, or the field's nil;
    /// `nil` when the field holds anything else or only the general path can walk the key.
    @inline(__always)
    func readKey(
        _ key: Unmanaged<DictionaryKey>, of site: UnsafePointer<DictionarySite>, _ receiver: ItemReader
    )
        -> Value?
    {
        switch receiver.value(atSlot: site.pointee.slot) {
        case .dictionary(let entries): return key._withUnsafeGuaranteedRef { $0.lookup.value(in: entries) }
        case let head where head.isNil: return head
        default: return nil
        }
    }

    /// What site `index`'s prepared comparison makes of the string `field` of `receiver`, where
    /// it lies, nothing charged; `unordered` receives the string when it cannot be ordered
    /// against the constant.
    ///
    /// Changes nothing, but `mutating` so that its callers (all mutating) pass the machine by
    /// reference: as a non-mutating call the optimiser copied the whole machine onto the stack
    /// for each item a `SUBQUERY` counted.
    @inline(__always)
    mutating func storedStringOutcome(
        _ index: Int, _ field: StoredString, _ reference: Unmanaged<PreparedComparison>, _ receiver: ItemReader,
        unordered: inout String
    ) -> StringOutcome {
        let target = index < conformanceTargets.count ? conformanceTargets[index] : nil
        // Borrowed: the program holds the prepared comparison, and the item its string.
        return reference._withUnsafeGuaranteedRef { prepared -> StringOutcome in
            field.withString(in: receiver.address, whenNil: { StringOutcome(prepared.scalar.nilResult) }) { text in
                if let decided = prepared.decide(string: text) { return decided ? .isTrue : .isFalse }
                guard prepared.quantifier == .direct else { return .general }
                if prepared.stringsCannotBeOrdered {
                    unordered = text
                    return .cannotOrder
                }
                if prepared.hasPattern { return .pattern }
                // `UTI-CONFORMS-TO`: the type table's answer; the general comparison of two
                // strings charges what the site's cost counts.
                if let type = prepared.conformanceType {
                    let types = environment.uniformTypes
                    let conforms = conformanceMemo.answer(site: index, identifier: text) {
                        types.conforms(text, to: type, otherID: target)
                    }
                    return conforms ? .isTrue : .isFalse
                }
                return .general
            }
        }
    }

    /// Site `index` (a ``DictionarySite`` whose receivers store the dictionary) decided for
    /// `receiver` where the value lies, nothing charged: ``DictionaryOutcome/general`` when the
    /// prepared comparison does not decide the value, ``DictionaryOutcome/absent`` when the site
    /// does not apply or the look-up cannot answer.
    ///
    /// The value never leaves the dictionary: a `Value?` copied out goes through the runtime's
    /// generic `Optional` witnesses, about a hundred instructions an element.
    @inline(__always)
    func storedDictionaryOutcome(_ index: Int, _ receiver: ItemReader) -> DictionaryOutcome {
        var ignored = Value.nil
        return storedDictionaryOutcome(index, receiver, keeping: &ignored, keepsGeneral: false)
    }

    /// ``storedDictionaryOutcome(_:_:)``, with the value found copied to `general` when the
    /// outcome is ``DictionaryOutcome/general`` (and `keepsGeneral`): what the general
    /// comparison needs, without looking the key up again.
    @inline(__always)
    func storedDictionaryOutcome(
        _ index: Int, _ receiver: ItemReader, keeping general: inout Value, keepsGeneral: Bool = true
    ) -> DictionaryOutcome {
        guard index < dictionarySites.count, index < comparisons.count, let reference = comparisons[index] else {
            return .absent
        }
        let site = dictionarySites.base + index
        guard let key = site.pointee.key, let field = site.pointee.field, receiver.schema == site.pointee.schema,
            ObjectIdentifier(receiver.type) == hostType
        else { return .absent }
        return reference._withUnsafeGuaranteedRef { prepared -> DictionaryOutcome in
            func decided(_ value: Value) -> DictionaryOutcome {
                guard prepared.quantifier == .direct, let answer = prepared.decide(value) else {
                    if keepsGeneral { general = value }
                    return .general
                }
                return answer ? .isTrue : .isFalse
            }
            return field.withDictionary(in: receiver.address, whenNil: { decided(.nil) }) { entries in
                guard let found = key._withUnsafeGuaranteedRef({ $0.lookup.value(in: entries) }) else {
                    return .absent
                }
                return decided(found)
            }
        }
    }

    /// Comparison site `index` on the general path: the key path read as a value, then the
    /// prepared constant, a compiled pattern or the general comparison.
    mutating func testInGeneral(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Bool {
        guard index < program.comparisons.count, index < comparisons.count, let reference = comparisons[index] else {
            throw malformed("no comparison site \(index)")
        }
        if let decided = try decideOverSelection(index) { return decided }
        let site = program.comparisons[index]
        // Steps as the instructions the site stands for spend them, in their order, so that an
        // error reading the key path and the end of the budget come out as they would: the
        // site's own step stood for the first load; a variable's `KEYPATH` is charged before
        // the key path is read, `PUSH_CONST` and `CMP` after.
        let receiverItem: ItemReader?
        switch site.receiver {
        case .evaluatedObject:
            receiverItem = item
        case .variable(let slot):
            receiverItem = boundItem(Int(slot))
            steps -= 1
            if steps < 0 { try charge(0) }
        }
        let value: Value
        do {
            if let receiverItem, let read = try keyPath(Int(site.keyPath), of: receiverItem) {
                value = read
            } else {
                switch site.receiver {
                case .evaluatedObject:
                    value = try selfKeyPath(Int(site.keyPath), item)
                case .variable(let slot):
                    value = try keyPath(site.keyPath, from: try variable(Int(slot)))
                }
            }
        } catch {
            throw error.at(site.keyPathRange)
        }
        steps -= 2
        if steps < 0 { try charge(0) }
        return try decide(index, reference, value)
    }

    /// Site `index`'s comparison of `value`, its key path's value (read and charged for): the
    /// prepared constant, a compiled pattern, the type table or the general comparison.
    mutating func decide(
        _ index: Int, _ reference: Unmanaged<PreparedComparison>, _ value: Value
    ) throws(EvaluationError) -> Bool {
        let (decided, cost) = reference._withUnsafeGuaranteedRef { prepared in
            (prepared.quantifier == .direct ? prepared.decide(value) : nil, prepared.scalarCost)
        }
        if let decided {
            try charge(cost)
            return decided
        }
        let prepared = reference.takeUnretainedValue()
        if prepared.quantifier == .direct {
            if prepared.stringsCannotBeOrdered, case .string(let text) = value {
                // The general comparison's charge and error, without its machinery.
                try charge(prepared.scalarCost)
                throw EvaluationError.cannotOrder(string: text, against: prepared.constantOperand)
            }
            if let pattern = prepared.pattern, case .string(let text) = value {
                try charge(prepared.scalarCost)
                var budget = steps
                defer { steps = budget }
                return try pattern.matches(text, environment: environment, steps: &budget)
            }
            if let type = prepared.conformanceType, case .string(let identifier) = value {
                // What the general comparison charges and answers for two strings.
                try charge(EvaluationCost.comparison(value, prepared.constant))
                let target = index < conformanceTargets.count ? conformanceTargets[index] : nil
                let types = environment.uniformTypes
                return conformanceMemo.answer(site: index, identifier: identifier) {
                    types.conforms(identifier, to: type, otherID: target)
                }
            }
        }
        return try compare(prepared.op, value, prepared.constant, prepared.quantifier, prepared.options)
    }

    /// `CMP`: the general comparison, charging its cost first. Two numbers compared directly by
    /// a relational operator take the scalar comparison the prepared constants are derived
    /// from, without the general machinery.
    mutating func compare(
        _ op: ComparisonOperator, _ lhs: Value, _ rhs: Value, _ quantifier: Quantifier, _ options: ComparisonOptions
    ) throws(EvaluationError) -> Bool {
        if quantifier == .direct, lhs.isPlainNumber, rhs.isPlainNumber,
            let result = ComparisonOperators.scalar(op, lhs, rhs)
        {
            try charge(1)
            return result
        }
        try charge(EvaluationCost.comparison(lhs, rhs))
        var budget = steps
        let result: Bool
        do {
            result = try ComparisonOperators.evaluate(
                op, lhs, rhs, quantifier: quantifier, options: options, environment: environment, steps: &budget)
        } catch {
            // `LIKE`/`MATCHES` spent the rest of the budget: the rule's error, as in the interpreter.
            steps = budget
            if steps < 0 { try charge(0) }
            throw error
        }
        steps = budget
        return result
    }

    /// Spends `cost` steps, failing once the budget is gone. The error names the whole rule
    /// (the last instruction's range), where the interpreter reports it too.
    @inline(__always)
    mutating func charge(_ cost: Int) throws(EvaluationError) {
        steps = steps < cost ? -1 : steps - cost
        guard steps < 0 else { return }
        throw stepsExceeded()
    }

    @inline(never)
    func stepsExceeded() -> EvaluationError {
        let error = environment.limits.stepsExceeded()
        return program.sourceRanges.last.map { error.at($0) } ?? error
    }
}

extension Value {
    /// A Boolean, an integer or a double: what the scalar comparison orders by value.
    fileprivate var isPlainNumber: Bool {
        switch self {
        case .bool, .int, .uint, .double: return true
        default: return false
        }
    }
}
