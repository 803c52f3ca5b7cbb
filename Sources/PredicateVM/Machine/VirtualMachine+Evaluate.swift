import PredicateSemantics
import PredicateSyntax
import PredicateValue

extension VirtualMachine {
    /// Evaluates every rule of a rule-set program (``Compiler/compileRuleSet(_:)``) with
    /// `object` as `SELF`, in one pass.
    ///
    /// An error in one rule makes that rule false and is reported in the result's `errors`; the
    /// other rules carry on.
    public mutating func evaluateRules(
        on object: Value, variables: [String: Value] = [:]
    ) -> RuleSetResult {
        for index in ruleBits.indices { ruleBits[index] = 0 }
        if !ruleErrors.isEmpty { ruleErrors.removeAll(keepingCapacity: true) }
        do throws(EvaluationError) {
            guard program.kind == .ruleSet else { throw malformed("not a rule set") }
            try run(on: object, variables: variables)
        } catch {
            ruleErrors.append(RuleFailure(rule: -1, error: error))
        }
        return RuleSetResult(bits: ruleBits, errors: ruleErrors)
    }

    /// Evaluates the predicate program with `object` as `SELF`.
    ///
    /// - Throws: The interpreter's ``EvaluationError`` for the same rule and input, with the same
    ///   source range. A rule that spends the environment's ``EvaluationLimits/maximumSteps``
    ///   fails with `limitExceeded` at the range of the whole rule, as in the interpreter; the VM
    ///   charges one step per instruction executed (plus ``EvaluationCost``), the interpreter one
    ///   per node, so near the limit the two can differ on whether it was reached.
    public mutating func evaluate(on object: Value, variables: [String: Value] = [:]) throws(EvaluationError) -> Bool {
        try run(on: object, variables: variables)
        return try predicateResult()
    }

    /// Evaluates the predicate program with the item at `item` as `SELF`, reading its fields in
    /// place.
    ///
    /// This is the fast way to run one rule over many items held in memory (an array's
    /// `withUnsafeBufferPointer`): the item is neither copied nor boxed into a ``Value``, and a
    /// rule whose key paths are fields of the item's schema reads them through the pointer. The
    /// pointer must stay valid for the call. Results and errors are those of
    /// ``evaluate(on:variables:)`` with `.object(item.pointee)`.
    public mutating func evaluate<Item: KeyValueCoding>(
        item: UnsafePointer<Item>, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        prepare(variables: variables)
        let reader = reader(item)
        var pc = 0
        if !runStraight(UnsafeRawPointer(item), type: reader.type, schema: reader.schema, &pc) {
            defer { if hasSelfValue { dropSelfValue() } }
            try run(reader, from: pc)
        }
        return try predicateResult()
    }

    /// Evaluates the predicate program with each item of `items` in turn as `SELF`, read in
    /// place, writing item `i`'s answer to `answers[i]`; returns the items whose evaluation
    /// failed (their answer is `false`), in order.
    ///
    /// The way to run one rule over many items held in memory: each item's result and error are
    /// those of ``evaluate(item:variables:)``, but what every evaluation would set up again (the
    /// item type's tables, the variables) is set up once. Evaluates the first
    /// `min(items.count, answers.count)` items.
    @inlinable
    public mutating func evaluate<Item: KeyValueCoding>(
        items: UnsafeBufferPointer<Item>, variables: [String: Value] = [:],
        into answers: UnsafeMutableBufferPointer<Bool>
    ) -> ItemFailures {
        let count = min(items.count, answers.count)
        guard count > 0, let base = items.baseAddress, let out = answers.baseAddress else { return ItemFailures() }
        let schema = adopt(Item.self)
        var candidates: [Int]?
        if let table = siteTable {
            // Inlined where it is called, the table's loop is compiled for `Item`: the calls into
            // the type are direct, and its default implementations specialised and inlined.
            candidates = table.answer(base, count: count, sharedSchema: schema, into: out)
        }
        return evaluateItems(
            at: UnsafeRawPointer(base), stride: MemoryLayout<Item>.stride, count: count, type: Item.self,
            schema: schema, variables: variables, candidates: candidates, into: out)
    }

    /// The loop of ``evaluate(items:variables:into:)`` over `count` items of `type` from `base`,
    /// `stride` bytes apart: not generic, so that it is compiled (with the straight loop inlined
    /// into it) once, in this module, whatever the item type. Only the items listed in
    /// `candidates` when it is not `nil`: the others are answered by the ``SiteTable``.
    @usableFromInline
    mutating func evaluateItems(
        at base: UnsafeRawPointer, stride: Int, count: Int, type: any KeyValueCoding.Type, schema: ObjectIdentifier?,
        variables: [String: Value], candidates: [Int]?, into out: UnsafeMutablePointer<Bool>
    ) -> ItemFailures {
        var failures = ItemFailures()
        prepare(variables: variables)
        var first = true
        // Whether an item left undecided may still be decided by the straight loop: not when
        // the program is the one test that already left it (it would only repeat the test).
        var straight = true
        func evaluate(_ index: Int) {
            if !first { prepareAgain(variables: variables) }
            first = false
            let address = base + index &* stride
            do throws(EvaluationError) {
                var pc = 0
                if !straight || !runStraight(address, type: type, schema: schema, &pc) {
                    defer { if hasSelfValue { dropSelfValue() } }
                    let reader =
                        schema.map { ItemReader(address: address, type: type, schema: $0) }
                        ?? ItemReader(address: address, type: type)
                    try run(reader, from: pc)
                }
                out[index] = try predicateResult()
            } catch {
                out[index] = false
                failures.append(index: index, error: error)
            }
        }
        // Items the decision table, or the one test a program is made of, answers are written
        // by it; the others (all of them, without either) are evaluated one by one.
        var undecided: [Int] = []
        let decidedAtOnce: Bool
        if let candidates {
            // The site table's leftovers: the one test's own path when the program is that
            // test, else the loops.
            decidedAtOnce = true
            if decideSingleSite(
                at: base, stride: stride, count: count, type: type, schema: schema, candidates: candidates, into: out,
                undecided: &undecided, failures: &failures)
            {
                straight = false
            } else {
                undecided = candidates
            }
        } else if decideInColumns(at: base, stride: stride, count: count, into: out, undecided: &undecided) {
            decidedAtOnce = true
        } else {
            decidedAtOnce = decideSingleSite(
                at: base, stride: stride, count: count, type: type, schema: schema, candidates: nil, into: out,
                undecided: &undecided, failures: &failures)
            straight = !decidedAtOnce
        }
        if decidedAtOnce {
            // The one test's failures, then the undecided items', merged in order.
            let early = failures
            failures = ItemFailures()
            for index in undecided { evaluate(index) }
            failures = early.merged(with: failures)
            // As an evaluation that returned leaves it, when none ran one by one.
            if first { scratchInUse = false }
        } else {
            for index in 0..<count { evaluate(index) }
        }
        return failures
    }

    /// Evaluates the predicate program with each of `items` as `SELF`, in place: their answers,
    /// in order, and the items whose evaluation failed (``evaluate(items:variables:into:)``).
    public mutating func evaluate<Item: KeyValueCoding>(
        items: [Item], variables: [String: Value] = [:]
    ) -> (answers: [Bool], failures: ItemFailures) {
        var failures = ItemFailures()
        let answers = [Bool](unsafeUninitializedCapacity: items.count) { buffer, initialized in
            buffer.initialize(repeating: false)
            failures = items.withUnsafeBufferPointer { evaluate(items: $0, variables: variables, into: buffer) }
            initialized = items.count
        }
        return (answers, failures)
    }

    /// Evaluates the predicate program with `SELF` the activation context `{key: items}`: the
    /// selected items, read in place.
    ///
    /// This is how an activation rule runs on a selection the caller holds
    /// (`SUBQUERY(fileproviderItems, $i, …).@count > 0`, `fileproviderItems.@count`): no context
    /// dictionary is built and no item is boxed; a `SUBQUERY` over `key` binds its variable to
    /// each item in turn and reads fields through the item's pointer. Anything that needs the
    /// context or an item whole (a `SELF` comparison, an item returned by a key path) builds it
    /// then. The items must stay valid for the call. Results and errors are those of
    /// ``evaluate(on:variables:)`` with `.dictionary([key: .array(items.map { .object($0) })])`.
    public mutating func evaluate<Item: KeyValueCoding>(
        selection items: UnsafeBufferPointer<Item>, key: String, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Bool {
        prepare(variables: variables)
        let items = ItemSelection(items, schema: adopt(Item.self))
        if selectionName != key {
            selectionName = key
            selectionKey = selectionKeys.firstIndex(of: key) ?? -1
        }
        if let entry = wholeSelectionCount, countWholeSelection(entry, items) { return try predicateResult() }
        selection = items
        defer {
            selection = nil
            if hasSelfValue { dropSelfValue() }
        }
        try run(nil)
        return try predicateResult()
    }

    /// Evaluates the expression program with `object` as `SELF`.
    public mutating func evaluateExpression(
        on object: Value, variables: [String: Value] = [:]
    ) throws(EvaluationError) -> Value {
        try run(on: object, variables: variables)
        let result = pop()
        scratchInUse = false
        return result
    }

    /// The predicate's result, left on the stack by `RETURN_BOOL`.
    @inline(__always)
    mutating func predicateResult() throws(EvaluationError) -> Bool {
        if bitCount == 1, program.kind == .predicate {
            bitCount = 0
            scratchInUse = false
            return bits & 1 == 1
        }
        guard program.kind == .predicate else { throw malformed("a predicate program must end with a Boolean") }
        let result = try popBool()
        scratchInUse = false
        return result
    }

    mutating func run(on object: Value, variables: [String: Value]) throws(EvaluationError) {
        prepare(variables: variables)
        selfValue = object
        hasSelfValue = true
        defer { dropSelfValue() }
        // `SELF` as an object, opened once into a generic parameter: bound fields of its schema
        // are then read in place, without copying the value out of the enum at every key path.
        if case .object(let host) = object { return try run(opened: host) }
        try run(nil)
    }

    mutating func run<Host: KeyValueCoding>(opened host: Host) throws(EvaluationError) {
        try withUnsafePointer(to: host) { (pointer) throws(EvaluationError) in try run(reader(pointer)) }
    }
}

extension Program {
    /// Evaluates the predicate program once with a fresh machine (keep a ``VirtualMachine`` to
    /// evaluate many objects).
    public func evaluate(
        on object: Value, variables: [String: Value] = [:], environment: EvaluationEnvironment = EvaluationEnvironment()
    ) throws(EvaluationError) -> Bool {
        var machine = VirtualMachine(program: self, environment: environment)
        return try machine.evaluate(on: object, variables: variables)
    }
}
