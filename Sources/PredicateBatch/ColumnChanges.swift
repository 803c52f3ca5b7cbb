import PredicateValue

/// Columns kept current as rows are appended, replaced and removed (``ColumnBatch``), without
/// reading every row again: plain arrays grow, shrink or are written in place, and a coded
/// column codes the new strings into its table. Any other pairing (a column whose kind the new
/// rows change, lists, mixed scalars, strings read in place) answers `false` and leaves the
/// column as it was; the batch then reads it again from all its rows, which always gives a
/// column meaning the same.
///
/// Each change first moves the arrays out of the column (which becomes ``unavailable``), so they
/// are uniquely held and change in place instead of being copied whole for one row.
extension Column {
    /// Appends the rows of `tail`, the column of the `count` rows appended.
    mutating func append(_ tail: Column, count: Int) -> Bool {
        if case .mixed = self { return appendMixed(tail, count: count) }
        switch tail {
        case .booleans(let more, let moreNils):
            guard case .booleans(var values, var nils) = self else { return false }
            self = .unavailable
            values.append(contentsOf: more)
            nils.append(contentsOf: moreNils)
            self = .booleans(values: values, nils: nils)
        case .integers(let more, let moreNils):
            guard case .integers(var values, var nils) = self else { return false }
            self = .unavailable
            values.append(contentsOf: more)
            nils.append(contentsOf: moreNils)
            self = .integers(values: values, nils: nils)
        case .doubles(let more, let moreNils):
            guard case .doubles(var values, var nils) = self else { return false }
            self = .unavailable
            values.append(contentsOf: more)
            nils.append(contentsOf: moreNils)
            self = .doubles(values: values, nils: nils)
        case .dates(let more, let moreNils):
            guard case .dates(var values, var nils) = self else { return false }
            self = .unavailable
            values.append(contentsOf: more)
            nils.append(contentsOf: moreNils)
            self = .dates(values: values, nils: nils)
        case .values(let more, let moreNils):
            guard case .values(var values, var nils) = self else { return false }
            self = .unavailable
            values.append(contentsOf: more)
            nils.append(contentsOf: moreNils)
            self = .values(values, nils: nils)
        case .strings(let more, let moreNils):
            if case .strings(var values, var nils) = self {
                self = .unavailable
                values.append(contentsOf: more)
                nils.append(contentsOf: moreNils)
                self = .strings(values: values, nils: nils)
                return true
            }
            return appendCoded(tail)
        case .codedStrings:
            return appendCoded(tail)
        case .borrowedStrings, .stringLists, .mixed, .unavailable:
            return false
        }
        return true
    }

    /// Appends the rows of any column to a column of mixed scalars, each as its kind.
    private mutating func appendMixed(_ tail: Column, count: Int) -> Bool {
        guard case .mixed(let mixed, var nils) = self else { return false }
        if case .unavailable = tail { return false }
        var rows = MixedRows(mixed)
        self = .unavailable
        for row in 0..<count {
            let value = tail.value(at: row)
            rows.append(value)
            nils.append(value.isNil || value.isNull ? 1 : 0)
        }
        self = .mixed(rows.finish(), nils: nils)
        return true
    }

    /// Appends a column of strings (plain or coded) to a coded column.
    private mutating func appendCoded(_ tail: Column) -> Bool {
        guard case .codedStrings(var codes, let distinct, var nils) = self else { return false }
        var interner = Self.interner(distinct)
        guard let (moreCodes, moreNils) = tail.codes(&interner) else { return false }
        self = .unavailable
        codes.append(contentsOf: moreCodes)
        nils.append(contentsOf: moreNils)
        self = .codedStrings(codes: codes, distinct: interner.distinct, nils: nils)
        return true
    }

    /// Replaces row `row` with the one row of `single`.
    mutating func replace(row: Int, with single: Column) -> Bool {
        if case .mixed(let mixed, var nils) = self {
            if case .unavailable = single { return false }
            let value = single.value(at: 0)
            var rows = MixedRows(mixed)
            self = .unavailable
            rows.replace(row, with: value)
            nils[row] = value.isNil || value.isNull ? 1 : 0
            self = .mixed(rows.finish(), nils: nils)
            return true
        }
        switch single {
        case .booleans(let one, let oneNil) where one.count == 1:
            guard case .booleans(var values, var nils) = self else { return false }
            self = .unavailable
            (values[row], nils[row]) = (one[0], oneNil[0])
            self = .booleans(values: values, nils: nils)
        case .integers(let one, let oneNil) where one.count == 1:
            guard case .integers(var values, var nils) = self else { return false }
            self = .unavailable
            (values[row], nils[row]) = (one[0], oneNil[0])
            self = .integers(values: values, nils: nils)
        case .doubles(let one, let oneNil) where one.count == 1:
            guard case .doubles(var values, var nils) = self else { return false }
            self = .unavailable
            (values[row], nils[row]) = (one[0], oneNil[0])
            self = .doubles(values: values, nils: nils)
        case .dates(let one, let oneNil) where one.count == 1:
            guard case .dates(var values, var nils) = self else { return false }
            self = .unavailable
            (values[row], nils[row]) = (one[0], oneNil[0])
            self = .dates(values: values, nils: nils)
        case .values(let one, let oneNil) where one.count == 1:
            guard case .values(var values, var nils) = self else { return false }
            self = .unavailable
            (values[row], nils[row]) = (one[0], oneNil[0])
            self = .values(values, nils: nils)
        case .strings(let one, let oneNil) where one.count == 1:
            if case .strings(var values, var nils) = self {
                self = .unavailable
                (values[row], nils[row]) = (one[0], oneNil[0])
                self = .strings(values: values, nils: nils)
                return true
            }
            return replaceCoded(row: row, with: single)
        case .codedStrings(let codes, _, _) where codes.count == 1:
            return replaceCoded(row: row, with: single)
        default:
            return false
        }
        return true
    }

    /// Replaces row `row` of a coded column with the one string (or nil) of `single`.
    private mutating func replaceCoded(row: Int, with single: Column) -> Bool {
        guard case .codedStrings(var codes, let distinct, var nils) = self else { return false }
        var interner = Self.interner(distinct)
        guard let (one, oneNil) = single.codes(&interner), one.count == 1 else { return false }
        self = .unavailable
        (codes[row], nils[row]) = (one[0], oneNil[0])
        self = .codedStrings(codes: codes, distinct: interner.distinct, nils: nils)
        return true
    }

    /// Removes the rows `removed` (ascending, distinct, all below the row count).
    mutating func remove(_ removed: [Int]) -> Bool {
        switch self {
        case .booleans(let values, let nils):
            self = .booleans(values: keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .integers(let values, let nils):
            self = .integers(values: keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .doubles(let values, let nils):
            self = .doubles(values: keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .dates(let values, let nils):
            self = .dates(values: keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .strings(let values, let nils):
            self = .strings(values: keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .values(let values, let nils):
            self = .values(keeping(values, without: removed), nils: keeping(nils, without: removed))
        case .codedStrings(let codes, let distinct, let nils):
            self = .codedStrings(
                codes: keeping(codes, without: removed), distinct: distinct, nils: keeping(nils, without: removed))
        case .borrowedStrings, .stringLists, .mixed, .unavailable:
            return false
        }
        return true
    }

    /// An interner that gives `distinct` (distinct by their bytes, as a coded column's table
    /// is) their codes again, in order.
    private static func interner(_ distinct: [String]) -> StringInterner {
        var interner = StringInterner()
        for text in distinct { _ = interner.code(text) }
        return interner
    }

    /// The rows of this column of strings (plain or coded, nil rows `-1`) as codes from
    /// `interner`, which gains the strings it lacks; `nil` for a column of anything else.
    private func codes(_ interner: inout StringInterner) -> (codes: [Int32], nils: [UInt8])? {
        switch self {
        case .strings(let values, let nils):
            return (values.indices.map { nils[$0] != 0 ? Int32(-1) : interner.code(values[$0]) }, nils)
        case .codedStrings(let codes, let more, let nils):
            let recoded = more.map { interner.code($0) }
            return (codes.map { $0 < 0 ? $0 : recoded[Int($0)] }, nils)
        default:
            return nil
        }
    }
}

/// The arrays of a ``MixedScalars`` while rows are added or replaced: the kinds and payloads in
/// place, strings coded into the same table, other values appended to the others.
private struct MixedRows {
    var tags: [UInt8]
    var payloads: [Int64]
    var interner = StringInterner()
    var others: [Value]

    init(_ mixed: MixedScalars) {
        tags = mixed.tags
        payloads = mixed.payloads
        others = mixed.others
        for text in mixed.strings { _ = interner.code(text) }
    }

    /// The kind and payload of `value`, as ``MixedScalarsBuilder`` stores it.
    private mutating func encode(_ value: Value) -> (UInt8, Int64) {
        switch value {
        case .nil: return (MixedScalars.Tag.absent.rawValue, 0)
        case .int(let integer): return (MixedScalars.Tag.integer.rawValue, integer)
        case .double(let double) where !double.isNaN:
            return (MixedScalars.Tag.double.rawValue, Int64(bitPattern: double.bitPattern))
        case .string(let text): return (MixedScalars.Tag.string.rawValue, Int64(interner.code(text)))
        default:
            others.append(value)
            return (MixedScalars.Tag.other.rawValue, Int64(others.count - 1))
        }
    }

    mutating func append(_ value: Value) {
        let (tag, payload) = encode(value)
        tags.append(tag)
        payloads.append(payload)
    }

    mutating func replace(_ row: Int, with value: Value) {
        (tags[row], payloads[row]) = encode(value)
    }

    func finish() -> MixedScalars {
        MixedScalars(tags: tags, payloads: payloads, strings: interner.distinct, others: others)
    }
}
