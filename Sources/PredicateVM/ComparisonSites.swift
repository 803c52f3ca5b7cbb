import PredicateBytecode
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A comparison site whose key path is one field, read directly: what decides it from the
/// field's ``Scalar``, as plain values (copied without any reference counting).
struct ScalarSite {
    let schema: ObjectIdentifier
    let slot: Int
    /// What ``EvaluationCost/comparison(_:_:)`` charges for a scalar left operand.
    let cost: Int
    let decision: ScalarDecision
}

extension VirtualMachine {
    /// Comparison site `index`: its key path read (in place when it is a field of the item that
    /// `SELF` or the site's variable stands for), then decided from the field's scalar and the
    /// prepared constant when they decide it, else by the prepared constant on the field's value,
    /// else by the general comparison, as `CMP` would. Charges what the instructions it stands
    /// for would.
    @inline(__always)
    mutating func test(_ index: Int, _ item: ItemReader?, _ boxed: inout Value?) throws(EvaluationError) -> Bool {
        guard index < program.comparisons.count, index < comparisons.count, let reference = comparisons[index] else {
            throw malformed("no comparison site \(index)")
        }
        let site = program.comparisons[index]
        let receiverItem: ItemReader?
        let receiverCost: Int
        switch site.receiver {
        case .evaluatedObject:
            (receiverItem, receiverCost) = (item, 2)
        case .variable(let slot):
            (receiverItem, receiverCost) = (boundItem(Int(slot)), 3)
        }
        steps -= receiverCost
        if let receiverItem, index < scalarSites.count, let scalar = scalarSites[index],
            receiverItem.schema == scalar.schema
        {
            if let decided = scalar.decision.decide(receiverItem.scalar(atSlot: scalar.slot)) {
                try charge(scalar.cost)
                return decided
            }
        }
        let value: Value
        do {
            if let receiverItem, let read = try keyPath(Int(site.keyPath), of: receiverItem) {
                value = read
            } else {
                switch site.receiver {
                case .evaluatedObject:
                    value = try selfKeyPath(Int(site.keyPath), item, &boxed)
                case .variable(let slot):
                    value = try keyPath(site.keyPath, from: try variable(Int(slot)))
                }
            }
        } catch {
            throw error.at(site.keyPathRange)
        }
        let (decided, cost) = reference._withUnsafeGuaranteedRef { prepared in
            (prepared.quantifier == .direct ? prepared.decide(value) : nil, prepared.scalarCost)
        }
        if let decided {
            try charge(cost)
            return decided
        }
        let prepared = reference.takeUnretainedValue()
        if prepared.quantifier == .direct {
            if let pattern = prepared.pattern, case .string(let text) = value {
                try charge(prepared.scalarCost)
                var budget = steps
                defer { steps = budget }
                return try pattern.matches(text, environment: environment, steps: &budget)
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
