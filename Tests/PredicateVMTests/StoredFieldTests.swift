import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A reading with one field of each storage a ``StoredScalar`` knows, so that the VM's typed
/// field tests meet every storage, including the values they must leave to the general path (a
/// NaN, an unsigned integer beyond `Int64.max`).
private struct Reading: KeyValueCoding, Equatable {
    var flag: Bool
    var level: Int64
    var optionalLevel: Int64?
    var count: UInt64
    var optionalCount: UInt64?
    var ratio: Double
    var optionalRatio: Double?
    var taken: Double
    var optionalTaken: Double?
    /// Stored, but not declared as a stored scalar: read through ``scalar(atSlot:of:)``.
    var hidden: Int64

    static let schema = Schema(
        typeName: "Reading",
        fields: [
            .init("flag", .bool), .init("level", .integer), .init("optionalLevel", .optional(.integer)),
            .init("count", .integer), .init("optionalCount", .optional(.integer)), .init("ratio", .number),
            .init("optionalRatio", .optional(.number)), .init("taken", .date), .init("optionalTaken", .optional(.date)),
            .init("hidden", .integer),
        ])
    var schema: Schema { Reading.schema }
    static var sharedSchema: Schema? { schema }

    static let stored: [StoredScalar?] = [
        .bool(\Reading.flag), .int64(\Reading.level), .int64(\Reading.optionalLevel), .uint64(\Reading.count),
        .uint64(\Reading.optionalCount), .double(\Reading.ratio), .double(\Reading.optionalRatio),
        .date(secondsSinceReferenceDate: \Reading.taken), .date(secondsSinceReferenceDate: \Reading.optionalTaken), nil,
    ]
    static func storedScalar(atSlot slot: Int) -> StoredScalar? { slot < stored.count ? stored[slot] : nil }

    static func scalar(atSlot slot: Int, of object: UnsafePointer<Reading>) -> Scalar {
        slot == 9 ? .int(object.pointee.hidden) : (object.pointee.value(atSlot: slot).scalar ?? .other)
    }

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .bool(flag)
        case 1: return .int(level)
        case 2: return optionalLevel.map(Value.int) ?? .nil
        case 3: return .uint(count)
        case 4: return optionalCount.map(Value.uint) ?? .nil
        case 5: return .double(ratio)
        case 6: return optionalRatio.map(Value.double) ?? .nil
        case 7: return .date(secondsSinceReferenceDate: taken)
        case 8: return optionalTaken.map { .date(secondsSinceReferenceDate: $0) } ?? .nil
        case 9: return .int(hidden)
        default: return .nil
        }
    }
}

extension Value {
    /// The scalar this value is, when it is one.
    fileprivate var scalar: Scalar? {
        switch self {
        case .nil: return .nil
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .uint(let number): return .uint(number)
        case .double(let number): return .double(number)
        case .date(let seconds): return .date(secondsSinceReferenceDate: seconds)
        default: return nil
        }
    }
}

@Suite struct StoredFieldTests {
    private static let readings: [Reading] = [
        Reading(
            flag: true, level: 3, optionalLevel: nil, count: 0, optionalCount: nil, ratio: 0.5, optionalRatio: nil,
            taken: 0, optionalTaken: nil, hidden: 1),
        Reading(
            flag: false, level: -7, optionalLevel: 9, count: .max, optionalCount: .max, ratio: .nan,
            optionalRatio: .nan, taken: .nan, optionalTaken: -10, hidden: -1),
        Reading(
            flag: true, level: .max, optionalLevel: .min, count: 12, optionalCount: 3, ratio: -.infinity,
            optionalRatio: 2, taken: 1e9, optionalTaken: 1e9, hidden: 0),
    ]

    static let rules = [
        "flag == YES", "flag == 0", "flag > 0", "flag BETWEEN {1, 1}", "flag == 'x'", "level > 2", "level == nil",
        "optionalLevel == nil", "optionalLevel != nil", "optionalLevel >= 5", "count > 5",
        "count == 18446744073709551615",
        "optionalCount < 4", "optionalCount == nil", "ratio < 1", "ratio == ratio", "ratio > -1e308",
        "optionalRatio <= 2", "optionalRatio == nil", "taken > CAST(0, 'NSDate')", "taken == nil",
        "optionalTaken < CAST(0, 'NSDate')", "optionalTaken != nil", "taken > 5", "hidden == 0",
        "hidden BETWEEN {-1, 0}",
        "level > 2 AND count < 100 OR optionalRatio == nil", "flag != nil", "optionalCount != nil",
        "optionalRatio != nil", "nil == optionalLevel", "count != nil AND optionalTaken == nil",
    ]

    /// Each rule gives, on each reading, the interpreter's result or error, read through the
    /// pointer (typed field tests), through the value, and on a machine that saw another type
    /// first (the tests are chosen again for the new type).
    @Test(arguments: rules)
    func typedFieldTestsMeanTheComparison(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: .object(SchemaReference(Reading.schema)))
        let program = try Compiler.compile(bound, source: rule)
        let environment = EvaluationEnvironment()
        let interpreter = Interpreter(environment: environment)
        var machine = VirtualMachine(program: program, environment: environment)
        for (index, reading) in Self.readings.enumerated() {
            let expected = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try interpreter.evaluate(bound, on: .object(reading))
            }
            let viaPointer = withUnsafePointer(to: reading) { pointer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
            }
            let viaValue = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try machine.evaluate(on: .object(reading))
            }
            let item = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "a")
            _ = withUnsafePointer(to: item) { pointer in try? machine.evaluate(item: pointer) }
            let afterAnotherType = withUnsafePointer(to: reading) { pointer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
            }
            #expect(viaPointer == expected, "\(rule) on reading \(index)")
            #expect(viaValue == expected, "\(rule) on reading \(index)")
            #expect(afterAnotherType == expected, "\(rule) on reading \(index)")
        }
    }

    /// Many items in one call answer what each answers alone: the same results, and the same
    /// errors at the same items (an item that fails does not disturb the ones after it).
    @Test(arguments: rules)
    func itemsAnswerAsEachAlone(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(Reading.schema))), source: rule)
        var machine = VirtualMachine(program: program)
        let items = (0..<7).map { Self.readings[$0 % Self.readings.count] }
        let alone = items.map { reading in
            withUnsafePointer(to: reading) { pointer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
            }
        }
        let (answers, failures) = machine.evaluate(items: items)
        let together = answers.indices.map { index in
            FusedComparisonTests.outcome { () throws(EvaluationError) in
                if let failure = failures.first(where: { $0.index == index }) { throw failure.error }
                return answers[index]
            }
        }
        #expect(together == alone, "\(rule)")
        #expect(failures.map(\.index) == failures.map(\.index).sorted())
    }

    /// Rules of stored-field tests run to their end without leaving the straight part of the loop,
    /// which charges the budget itself: at every budget around the limit, an item read in place
    /// gives what the same item as a value gives (whose evaluation never takes the straight
    /// part), one by one and many at once.
    @Test(arguments: [
        "flag == YES", "level > 2 AND count < 100 OR optionalRatio == nil",
        "NOT (flag == YES) AND NOT (level > 2 OR ratio < 1)",
        "(flag == NO OR level == 3) AND (optionalLevel == nil OR optionalCount < 4) AND NOT taken == nil",
        "ratio < 1 AND level > 2",
    ])
    func straightRunSpendsTheBudgetAlike(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(Reading.schema))), source: rule)
        var outcomes: Set<String> = []
        for budget in 0...30 {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: budget))
            var machine = VirtualMachine(program: program, environment: environment)
            let (answers, failures) = machine.evaluate(items: Self.readings)
            for (index, reading) in Self.readings.enumerated() {
                let asValue = FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try machine.evaluate(on: .object(reading))
                }
                let inPlace = withUnsafePointer(to: reading) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
                }
                let together = FusedComparisonTests.outcome { () throws(EvaluationError) in
                    if let failure = failures.first(where: { $0.index == index }) { throw failure.error }
                    return answers[index]
                }
                #expect(inPlace == asValue, "\(rule) with \(budget) steps on reading \(index)")
                #expect(together == asValue, "\(rule) with \(budget) steps on reading \(index)")
                outcomes.insert(asValue.hasPrefix("limitExceeded") ? "limitExceeded" : "answered")
            }
        }
        // The budgets cover both sides of the limit.
        #expect(outcomes == ["limitExceeded", "answered"])
    }

    /// Readings whose fields take values on both sides of the bounds the rules below test, and
    /// the values the typed tests leave to the general path, so that every combination of
    /// answers (and of undecided tests) turns up.
    private static let mixedReadings: [Reading] = (0..<96).map { index in
        var generator = SplitMix(seed: UInt64(index))
        func pick<T>(_ choices: [T]) -> T { choices[Int(generator.next() % UInt64(choices.count))] }
        return Reading(
            flag: pick([true, false]), level: pick([-7, 2, 3, 100, .max]), optionalLevel: pick([nil, 4, 5, .min]),
            count: pick([0, 5, 99, 100, .max]), optionalCount: pick([nil, 3, 4, .max]),
            ratio: pick([0.5, 1, -.infinity, .nan, -0.0]), optionalRatio: pick([nil, 2, 2.5, .nan]),
            taken: pick([0, 1e9, -1, .nan]), optionalTaken: pick([nil, -10, 0]), hidden: pick([0, 1]))
    }

    /// Rules of up to ``DecisionTable``'s eight tests (and one of nine, past it, and others with
    /// an instruction the table cannot run) decide every reading as the same reading as a value
    /// does, at every budget around the limit: the table's answer and charge are the loop's.
    @Test(arguments: [
        "level > 2 AND count < 100 OR optionalRatio == nil",
        "(flag == YES AND level > 2) OR (optionalLevel == nil AND count != 5)",
        "NOT (flag == YES OR optionalCount < 4) AND (ratio < 1 OR taken > CAST(0, 'NSDate'))",
        "flag == YES OR level > 2 OR optionalLevel >= 5 OR count > 5 OR optionalCount == nil OR ratio < 1 "
            + "OR optionalRatio <= 2 OR optionalTaken != nil",
        "(flag == YES AND level > 2) OR (optionalLevel >= 5 AND count > 5) OR (optionalCount == nil AND ratio < 1) "
            + "OR (optionalRatio <= 2 AND optionalTaken != nil AND taken > 5)",
        "(flag == YES AND hidden == 0) OR level > 2",
        "ratio == 0 OR ratio > -1 AND NOT ratio >= 1",
    ])
    func decisionTableDecidesAsTheLoop(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(Reading.schema))), source: rule)
        var outcomes: Set<String> = []
        for budget in [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 1_000] {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: budget))
            var machine = VirtualMachine(program: program, environment: environment)
            let (answers, failures) = machine.evaluate(items: Self.mixedReadings)
            for (index, reading) in Self.mixedReadings.enumerated() {
                let asValue = FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try machine.evaluate(on: .object(reading))
                }
                let stepsLeftAsValue = machine.remainingSteps
                let inPlace = withUnsafePointer(to: reading) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
                }
                let together = FusedComparisonTests.outcome { () throws(EvaluationError) in
                    if let failure = failures.first(where: { $0.index == index }) { throw failure.error }
                    return answers[index]
                }
                #expect(inPlace == asValue, "\(rule) with \(budget) steps on reading \(index)")
                #expect(together == asValue, "\(rule) with \(budget) steps on reading \(index)")
                // What the batch engine charges a row for a clause it ran on the VM.
                #expect(machine.remainingSteps == stepsLeftAsValue, "\(rule) with \(budget) steps on reading \(index)")
                outcomes.insert(asValue.hasPrefix("limitExceeded") ? "limitExceeded" : asValue)
            }
        }
        #expect(outcomes.contains("limitExceeded"), "\(rule)")
        #expect(outcomes.contains("true") && outcomes.contains("false"), "\(rule): \(outcomes.sorted())")
    }

    /// Every stored scalar of ``FileProviderItem`` loads what its ``KeyValueCoding/scalar(atSlot:of:)``
    /// answers, on items with every such field set and unset.
    @Test func fileProviderItemStoresWhatItAnswers() {
        var full = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "a")
        full.capabilities = [.allowsReading, .allowsTrashing]
        full.documentSize = 42
        full.childItemCount = -3
        full.creationDate = 12.5
        full.contentModificationDate = -1
        full.lastUsedDate = .nan
        full.favoriteRank = .max
        full.isTrashed = true
        full.isUploaded = false
        full.isUploading = true
        full.isDownloaded = false
        full.isDownloading = true
        full.isMostRecentVersionDownloaded = false
        full.isShared = true
        full.isSharedByCurrentUser = true
        let empty = FileProviderItem(itemIdentifier: "b", parentItemIdentifier: "root", filename: "b")
        var storedCount = 0
        for item in [full, empty] {
            withUnsafePointer(to: item) { pointer in
                for slot in FileProviderItem.schema.fields.indices {
                    guard let stored = FileProviderItem.storedScalar(atSlot: slot) else { continue }
                    storedCount += 1
                    #expect(stored.root == ObjectIdentifier(FileProviderItem.self))
                    let loaded = stored.load(from: UnsafeRawPointer(pointer))
                    let answered = FileProviderItem.scalar(atSlot: slot, of: pointer)
                    #expect(loaded == answered, "slot \(slot) (\(FileProviderItem.schema.fields[slot].name))")
                }
            }
        }
        #expect(storedCount == 2 * 15)
        #expect(FileProviderItem.storedScalar(atSlot: -1) == nil)
        #expect(FileProviderItem.storedScalar(atSlot: 99) == nil)
    }
}

/// SplitMix64: the test's readings, the same on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
