import PredicateValue

/// A column whose rows hold different kinds of scalars (`userInfo.rank`: mostly integers, some
/// doubles, a few strings): a kind per row and an 8-byte payload, so numeric rows are tested in
/// place, strings are coded (each distinct one decided once) and only the rest is kept as
/// values.
struct MixedScalars: Sendable {
    enum Tag: UInt8, Sendable {
        /// `nil`; the payload is 0.
        case absent = 0
        /// An integer, the payload itself.
        case integer = 1
        /// A double (not NaN), the payload its bit pattern.
        case double = 2
        /// A string, the payload its code in ``MixedScalars/strings``.
        case string = 3
        /// Anything else, the payload its index in ``MixedScalars/others``.
        case other = 4

        /// The kind of `value`, and its payload where the value alone gives it (0 for a string
        /// and for anything else, whose code or index the column assigns).
        @inline(__always)
        static func of(_ value: Value) -> (Tag, Int64) {
            switch value {
            case .nil: return (.absent, 0)
            case .int(let integer): return (.integer, integer)
            case .double(let double) where !double.isNaN: return (.double, Int64(bitPattern: double.bitPattern))
            case .string: return (.string, 0)
            default: return (.other, 0)
            }
        }
    }

    /// Per row, a ``Tag`` raw value.
    let tags: [UInt8]
    let payloads: [Int64]
    /// The distinct strings, by code.
    let strings: [String]
    /// The rows of any other kind, in row order.
    let others: [Value]

    /// Row `row`'s value, as the row held it.
    func value(at row: Int) -> Value {
        let payload = payloads[row]
        switch Tag(rawValue: tags[row]) {
        case .integer: return .int(payload)
        case .double: return .double(Double(bitPattern: UInt64(bitPattern: payload)))
        case .string: return .string(strings[Int(payload)])
        case .other: return others[Int(payload)]
        case .absent, nil: return .nil
        }
    }
}

/// Fills a ``MixedScalars`` one value at a time.
struct MixedScalarsBuilder {
    private var tags: [UInt8] = []
    private var payloads: [Int64] = []
    private var interner = StringInterner()
    private var others: [Value] = []

    init(capacity: Int) {
        tags.reserveCapacity(capacity)
        payloads.reserveCapacity(capacity)
    }

    mutating func append(_ value: Value) {
        var (tag, payload) = MixedScalars.Tag.of(value)
        switch tag {
        case .string:
            if case .string(let text) = value { payload = Int64(interner.code(text)) }
        case .other:
            payload = Int64(others.count)
            others.append(value)
        case .absent, .integer, .double:
            break
        }
        tags.append(tag.rawValue)
        payloads.append(payload)
    }

    func finish() -> MixedScalars {
        MixedScalars(tags: tags, payloads: payloads, strings: interner.distinct, others: others)
    }
}
