import PredicateSemantics
import PredicateValue

/// What a test of a site read from `SELF` answered in the straight loop, and the steps the
/// instructions it stands for charge on that path (besides the word's own and its jump's); or
/// that the comparison fails because the site's string cannot be ordered against the constant,
/// and the steps charged before it does; or that the general path must decide it. One integer,
/// returned in a register.
struct SiteAnswer {
    private let bits: Int

    /// Only the general path can decide the site.
    static let undecided = SiteAnswer(bits: -1)

    private init(bits: Int) { self.bits = bits }

    @inline(__always)
    init(_ answer: Bool, cost: Int) { bits = max(0, cost) << 1 | (answer ? 1 : 0) }

    /// The comparison's `cannotOrder` error, after `cost` steps.
    @inline(__always)
    static func cannotOrder(cost: Int) -> SiteAnswer { SiteAnswer(bits: -2 - max(0, cost)) }

    @inline(__always)
    var isDecided: Bool { bits >= 0 }
    @inline(__always)
    var answer: Bool { bits & 1 == 1 }
    /// The steps charged: to the answer when ``isDecided``, to the error when ``cannotBeOrdered``.
    @inline(__always)
    var cost: Int { bits >= 0 ? bits >> 1 : -2 - bits }
    @inline(__always)
    var cannotBeOrdered: Bool { bits <= -2 }
}

// The tests of sites read from `SELF` that the straight loop decides (`testSelfString`,
// `testSelfDictionary`, `testSelfScalar`): each decides as ``VirtualMachine/testByScalar(_:_:)``
// does when no general comparison is needed, and answers ``SiteAnswer/undecided`` when only the
// general path can decide (an error to throw, a value the prepared constant does not decide);
// the straight loop then stops before the word, and the instruction loop runs it as `TEST`.
//
// Two more things serve a program made of the one test, which reports them without running the
// instructions: the error of a string that cannot be ordered against the constant
// (`userInfo.rank >= 3` on `"high"`), its string left in `unordered` when one is given (the
// straight loop gives none, and so keeps no string); and, given `patternSteps` (the steps left
// after the word's own; -1 leaves patterns to the instructions), a `LIKE` or `MATCHES` pattern
// run within those steps, as ``decide(_:_:_:)`` runs it.
//
// None throws or charges: the caller charges ``SiteAnswer/cost`` once it knows the budget covers
// it, so that an item whose rule runs out of steps fails where the instructions would. They
// change nothing, but are `mutating` so that the loop passes the machine to them by reference:
// called as non-mutating methods from the mutating loop, the machine (over 500 bytes) was copied
// onto the stack for every call.
extension VirtualMachine {
    /// Site `index` of `item` decided the way `operation` (`testSelfString`, `testSelfDictionary`
    /// or `testSelfScalar`) names.
    @inline(__always)
    mutating func decideSelfSite(
        _ operation: MachineOperation, _ index: Int, _ item: ItemReader, unordered: UnsafeMutablePointer<String>?,
        patternSteps: Int
    ) -> SiteAnswer {
        switch operation {
        case .testSelfString: decideSelfString(index, item, unordered: unordered, patternSteps: patternSteps)
        case .testSelfDictionary: decideSelfDictionary(index, item, unordered: unordered, patternSteps: patternSteps)
        default: decideSelfScalar(index, item, unordered: unordered, patternSteps: patternSteps)
        }
    }

    /// Site `index`, a string stored in `item` (``StringSite``), where it lies.
    @inline(never)
    mutating func decideSelfString(
        _ index: Int, _ item: ItemReader, unordered: UnsafeMutablePointer<String>?, patternSteps: Int
    ) -> SiteAnswer {
        guard index < stringSites.count else { return .undecided }
        let site = stringSites.base + index
        guard let field = site.pointee.field, let reference = site.pointee.prepared, site.pointee.variable < 0,
            ObjectIdentifier(item.type) == hostType
        else { return .undecided }
        var text = ""
        switch storedStringOutcome(index, field, reference, item, unordered: &text) {
        case .isTrue: return SiteAnswer(true, cost: site.pointee.cost)
        case .isFalse: return SiteAnswer(false, cost: site.pointee.cost)
        case .cannotOrder:
            unordered?.pointee = text
            return .cannotOrder(cost: site.pointee.cost)
        case .pattern:
            // Not nil: the nil answer is decided without the pattern. The closure reads no part
            // of the machine: capturing it made the optimiser copy the whole machine per item.
            let limits = environment.limits
            return field.withString(
                in: item.address, whenNil: { SiteAnswer.undecided },
                { text in
                    Self.decidePattern(
                        text, reference, cost: site.pointee.cost, patternSteps: patternSteps, limits: limits)
                })
        case .general: return .undecided
        }
    }

    /// Site `index`, a key of a dictionary field of `item` (``DictionarySite``): looked up where
    /// the dictionary lies when the item's type stores it, else in the field's value, read once.
    @inline(never)
    mutating func decideSelfDictionary(
        _ index: Int, _ item: ItemReader, unordered: UnsafeMutablePointer<String>?, patternSteps: Int
    ) -> SiteAnswer {
        guard index < dictionarySites.count, index < comparisons.count, let reference = comparisons[index] else {
            return .undecided
        }
        let site = dictionarySites.base + index
        guard let key = site.pointee.key, site.pointee.variable < 0, item.schema == site.pointee.schema else {
            return .undecided
        }
        let cost = site.pointee.loads + reference._withUnsafeGuaranteedRef { $0.scalarCost }
        if site.pointee.field != nil, ObjectIdentifier(item.type) == hostType {
            var found = Value.nil
            switch storedDictionaryOutcome(index, item, keeping: &found) {
            case .isTrue: return SiteAnswer(true, cost: cost)
            case .isFalse: return SiteAnswer(false, cost: cost)
            case .general:
                return undecided(found, reference, cost: cost, unordered: unordered, patternSteps: patternSteps)
            case .absent: return .undecided
            }
        }
        guard let found = readKey(key, of: site, item) else { return .undecided }
        let answer = reference._withUnsafeGuaranteedRef { prepared -> Bool? in
            prepared.quantifier == .direct ? prepared.decide(found) : nil
        }
        if let answer { return SiteAnswer(answer, cost: cost) }
        return undecided(found, reference, cost: cost, unordered: unordered, patternSteps: patternSteps)
    }

    /// A value the prepared comparison did not decide: the `cannotOrder` error when it is a string
    /// that cannot be ordered against the constant (as ``decide(_:_:_:)`` throws it, after the
    /// same steps), a pattern's answer when it is a string a pattern is run on, else the general
    /// path's.
    @inline(__always)
    private func undecided(
        _ value: Value, _ reference: Unmanaged<PreparedComparison>, cost: Int, unordered: UnsafeMutablePointer<String>?,
        patternSteps: Int
    ) -> SiteAnswer {
        // The comparison first: most neither throw this error nor run a pattern, and need not
        // look at the value.
        let (cannotOrder, pattern) = reference._withUnsafeGuaranteedRef { prepared in
            (
                prepared.quantifier == .direct && prepared.stringsCannotBeOrdered,
                prepared.quantifier == .direct && prepared.hasPattern
            )
        }
        guard cannotOrder || pattern, case .string(let text) = value else { return .undecided }
        if pattern {
            return Self.decidePattern(
                text, reference, cost: cost, patternSteps: patternSteps, limits: environment.limits)
        }
        unordered?.pointee = text
        return .cannotOrder(cost: cost)
    }

    /// Site `index`'s `LIKE` or `MATCHES` pattern run on `text` as ``decide(_:_:_:)`` runs it
    /// after charging `cost`: within what is left of `patternSteps` and the per-match limit, its
    /// answer charged with the steps it took. The general path's when patterns are left to it
    /// (`patternSteps` < 0), the pattern is longer than the limit, or the steps run out: the
    /// instructions then fail as they would.
    @inline(__always)
    private static func decidePattern(
        _ text: String, _ reference: Unmanaged<PreparedComparison>, cost: Int, patternSteps: Int,
        limits: EvaluationLimits
    ) -> SiteAnswer {
        let left = patternSteps - cost
        guard patternSteps >= 0, left >= 0 else { return .undecided }
        return reference._withUnsafeGuaranteedRef { prepared -> SiteAnswer in
            let allowed = min(limits.maximumPatternSteps, left)
            var budget = allowed
            guard
                case .some(.some(let answer)) = prepared.runPattern(
                    text, maximumLength: limits.maximumPatternLength, budget: &budget)
            else { return .undecided }
            return SiteAnswer(answer, cost: cost + (allowed - max(0, budget)))
        }
    }

    /// Site `index`, one field of `item` (``ScalarSite``): its scalar, or when the type answers
    /// none for it (or the schema declares it a string), its value.
    @inline(never)
    mutating func decideSelfScalar(
        _ index: Int, _ item: ItemReader, unordered: UnsafeMutablePointer<String>?, patternSteps: Int
    ) -> SiteAnswer {
        guard index < scalarSites.count else { return .undecided }
        let site = scalarSites.base + index
        guard site.pointee.isPresent, site.pointee.variable < 0, item.schema == site.pointee.schema else {
            return .undecided
        }
        if !site.pointee.readsValue {
            let scalar = item.scalar(atSlot: site.pointee.slot)
            if let decided = site.pointee.decision.decide(scalar) {
                return SiteAnswer(decided, cost: site.pointee.cost)
            }
            guard scalar.kind == .other else { return .undecided }
        }
        guard index < comparisons.count, let reference = comparisons[index] else { return .undecided }
        let value = item.value(atSlot: site.pointee.slot)
        let answer = reference._withUnsafeGuaranteedRef { prepared -> Bool? in
            prepared.quantifier == .direct ? prepared.decide(value) : nil
        }
        if let answer { return SiteAnswer(answer, cost: site.pointee.cost) }
        return undecided(value, reference, cost: site.pointee.cost, unordered: unordered, patternSteps: patternSteps)
    }
}

extension VirtualMachine {
    /// What a single-site program reads from each item's own allocation when the items are of
    /// the host type, so that a loop over many items can ask for it ahead
    /// (``StoredString/prefetch(in:)``, ``StoredDictionary/prefetch(in:)``).
    enum Prefetched {
        case none
        case string(StoredString)
        case dictionary(StoredDictionary)
    }

    /// The string or dictionary field a single-site program's `operation` on `site` reads where
    /// it lies, in items of `type`.
    private func prefetched(
        _ operation: MachineOperation, _ site: Int, _ type: any KeyValueCoding.Type
    ) -> Prefetched {
        guard ObjectIdentifier(type) == hostType else { return .none }
        switch operation {
        case .testSelfString:
            guard site < stringSites.count, let field = stringSites.base[site].field else { return .none }
            return .string(field)
        case .testSelfDictionary:
            guard site < dictionarySites.count, let field = dictionarySites.base[site].field else { return .none }
            return .dictionary(field)
        default:
            return .none
        }
    }

    /// Decides, item by item, a program that is one test of a site read from `SELF` and its
    /// `RETURN_BOOL` (`filename ENDSWITH[c] '.pdf'`, `userInfo.rank >= 3`: the commonest shape of
    /// a rule), as the straight loop would, without entering it: each item's answer is written
    /// to `answers` when the test decides it and the budget covers the test and the return;
    /// an item whose string cannot be ordered against the constant fails as the instructions
    /// would (its answer `false`, its error in `failures`, in order); the other items are
    /// listed in `undecided`, for the caller to evaluate one by one. Only the items listed in
    /// `candidates` when it is not `nil` (the others are answered already). `false`, with nothing
    /// written, when the program is not of this shape.
    mutating func decideSingleSite(
        at base: UnsafeRawPointer, stride: Int, count: Int, type: any KeyValueCoding.Type, schema: ObjectIdentifier?,
        candidates: [Int]?, into answers: UnsafeMutablePointer<Bool>, undecided: inout [Int],
        failures: inout ItemFailures
    ) -> Bool {
        guard machineCode.count == 2, !hasEvaluationState, program.kind == .predicate else { return false }
        let word = machineCode.base[0]
        let operation = word.operation
        guard operation == .testSelfString || operation == .testSelfDictionary || operation == .testSelfScalar,
            word.use.pushesAlways, machineCode.base[1].operation == .returnBool
        else { return false }
        let site = Int(word.site)
        // The test's own step and `RETURN_BOOL`'s, besides the site's cost. An item that fails
        // needs one step fewer, but one within a step of the limit is left to the instructions,
        // which tell the error from running out of steps.
        let budget = maximumSteps - 2
        // A pattern may spend every step after the word's own; an answer that leaves none for
        // `RETURN_BOOL` fails the budget check below and goes to the instructions.
        let patternSteps = maximumSteps - 1
        let constant = site < comparisons.count ? comparisons[site]?.takeUnretainedValue().constantOperand : nil
        let range = program.sourceRanges.first
        var unordered = ""
        var lastFailure: (string: String, kept: UInt32)?
        withUnsafeMutablePointer(to: &unordered) { unordered in
            // Each item decided by the site's test, as the straight loop would decide it.
            @inline(__always)
            func decideItem(_ index: Int, _ machine: inout VirtualMachine) {
                let address = base + index &* stride
                let item =
                    schema.map { ItemReader(address: address, type: type, schema: $0) }
                    ?? ItemReader(address: address, type: type)
                let answer = machine.decideSelfSite(
                    operation, site, item, unordered: unordered, patternSteps: patternSteps)
                if answer.isDecided, answer.cost <= budget {
                    answers[index] = answer.answer
                } else if answer.cannotBeOrdered, answer.cost <= budget, let constant {
                    answers[index] = false
                    // The same string as the failure before (most are one value, `"high"`):
                    // the same error, kept once.
                    if let last = lastFailure, last.string == unordered.pointee {
                        failures.append(index: index, keptAt: last.kept)
                    } else {
                        // As the instruction loop throws it and locates it at the word.
                        var error = EvaluationError.cannotOrder(string: unordered.pointee, against: constant)
                        if error.range == nil { error.range = range }
                        lastFailure = (unordered.pointee, failures.append(index: index, error: error))
                    }
                } else {
                    undecided.append(index)
                }
            }
            if let candidates {
                for index in candidates { decideItem(index, &self) }
            } else {
                // Each item decided while the memory of the one `prefetchDistance` ahead is asked for.
                @inline(__always)
                func decideAll(askingAhead ask: (UnsafeRawPointer) -> Void, _ machine: inout VirtualMachine) {
                    for index in 0..<count {
                        let ahead = index &+ Self.prefetchDistance
                        if ahead < count { ask(base + ahead &* stride) }
                        decideItem(index, &machine)
                    }
                }
                switch prefetched(operation, site, type) {
                case .string(let field): decideAll(askingAhead: { field.prefetch(in: $0) }, &self)
                case .dictionary(let field): decideAll(askingAhead: { field.prefetch(in: $0) }, &self)
                case .none: for index in 0..<count { decideItem(index, &self) }
                }
            }
        }
        return true
    }
}
