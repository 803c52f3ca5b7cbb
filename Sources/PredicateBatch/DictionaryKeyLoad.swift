import PredicateSemantics
import PredicateValue

extension Column {
    /// One key of the stored dictionary field `stored` of every item (`userInfo.rank`), looked
    /// up where each dictionary lies, on all cores above ``StoredRows/rowsPerThread`` rows, and
    /// written straight into a kind and a payload per row: no ``Value`` per row, no builder.
    ///
    /// The column is the one ``ColumnBuilder`` makes of the same values: integers, doubles or
    /// Booleans alone (with nils) are a typed column; integers, doubles and strings together are
    /// ``MixedScalars``, their strings coded in row order. `nil`, for the builder to decide,
    /// when a row holds anything else (an array, `null`, a NaN, a date), Booleans beside other
    /// kinds, only strings, or a dotted key the look-up leaves to the whole key path.
    static func loading<Item>(
        _ lookup: DictionaryKeyLookup, of stored: StoredDictionary, from items: UnsafeBufferPointer<Item>
    ) -> Column? {
        guard let start = items.baseAddress, !items.isEmpty else { return nil }
        let count = items.count
        let rows = StoredRows(base: UnsafeRawPointer(start), stride: MemoryLayout<Item>.stride)
        let parts = UnsafeMutableBufferPointer<KeyLoadPart>.allocate(capacity: StoredRows.parts(count: count))
        parts.initialize(repeating: KeyLoadPart())
        defer {
            parts.deinitialize()
            parts.deallocate()
        }
        var tags: [UInt8] = []
        var payloads = uninitialized(count, Int64.self) { payloads in
            tags = uninitialized(count, UInt8.self) { tags in
                let output = KeyLoadOutput(tags: tags, payloads: payloads, parts: parts)
                rows.inParts(count: count) { part, range in
                    output.parts[part] = output.load(lookup, stored, rows, range)
                }
            }
        }
        var kinds: UInt8 = 0
        var strings: [(row: Int, text: String)] = []
        for part in parts {
            guard !part.failed else { return nil }
            kinds |= part.kinds
            strings += part.strings
        }
        let nils = tags.map { $0 == MixedScalars.Tag.absent.rawValue ? UInt8(1) : 0 }
        let integer: UInt8 = 1 << MixedScalars.Tag.integer.rawValue
        let double: UInt8 = 1 << MixedScalars.Tag.double.rawValue
        let string: UInt8 = 1 << MixedScalars.Tag.string.rawValue
        let absent: UInt8 = 1 << MixedScalars.Tag.absent.rawValue
        switch kinds & ~absent {
        case 0: return .values(Array(repeating: .nil, count: count), nils: nils)
        case integer: return .integers(values: payloads, nils: nils)
        case double: return .doubles(values: payloads.map { Double(bitPattern: UInt64(bitPattern: $0)) }, nils: nils)
        case KeyLoadOutput.boolean: return .booleans(values: payloads.map { UInt8(truncatingIfNeeded: $0) }, nils: nils)
        case string: return nil
        default:
            guard kinds & KeyLoadOutput.boolean == 0 else { return nil }
            // Codes in row order, as the builder gives them.
            var interner = StringInterner()
            for (row, text) in strings { payloads[row] = Int64(interner.code(text)) }
            return .mixed(
                MixedScalars(tags: tags, payloads: payloads, strings: interner.distinct, others: []), nils: nils)
        }
    }
}

/// What one part of a key's load found besides its rows' kinds and payloads.
private struct KeyLoadPart {
    /// One bit per kind met (`1 << tag`).
    var kinds: UInt8 = 0
    /// The rows holding strings, in order, and their strings (coded once all parts are done).
    var strings: [(row: Int, text: String)] = []
    /// A row held a value the load does not take.
    var failed = false
}

/// Where the parts of a key's load write: each part its own rows and its own slot, so the parts
/// running on several threads share nothing they write.
private struct KeyLoadOutput: @unchecked Sendable {
    let tags: UnsafeMutablePointer<UInt8>
    let payloads: UnsafeMutablePointer<Int64>
    let parts: UnsafeMutableBufferPointer<KeyLoadPart>

    /// A Boolean's kind bit, among ``MixedScalars/Tag``'s (which holds none: Booleans beside
    /// other kinds are the builder's).
    static let boolean: UInt8 = 1 << 5

    func load(
        _ lookup: DictionaryKeyLookup, _ stored: StoredDictionary, _ rows: StoredRows, _ range: Range<Int>
    )
        -> KeyLoadPart
    {
        var part = KeyLoadPart()
        for row in range where !part.failed {
            let ahead = row &+ StoredRows.prefetchDistance
            if ahead < range.upperBound { stored.prefetch(in: rows.base + ahead &* rows.stride) }
            let found: Value? = stored.withDictionary(
                in: rows.base + row &* rows.stride, whenNil: { .nil }, { lookup.value(in: $0) })
            guard let found else {
                part.failed = true
                continue
            }
            let (tag, payload) = MixedScalars.Tag.of(found)
            switch (tag, found) {
            case (.string, .string(let text)):
                part.strings.append((row, text))
            case (.other, .bool(let flag)):
                part.kinds |= Self.boolean
                tags[row] = tag.rawValue
                payloads[row] = flag ? 1 : 0
                continue
            case (.other, _):
                part.failed = true
                continue
            default:
                break
            }
            part.kinds |= 1 << tag.rawValue
            tags[row] = tag.rawValue
            payloads[row] = payload
        }
        if part.failed {
            // Every row is still written, so the arrays are whole whatever happens next.
            for row in range {
                tags[row] = 0
                payloads[row] = 0
            }
        }
        return part
    }
}
