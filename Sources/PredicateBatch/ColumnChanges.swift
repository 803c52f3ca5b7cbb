/// Columns kept current as rows are appended, replaced and removed (``ColumnBatch``), without
/// reading every row again: plain arrays are joined, cut or written in place, and a coded column
/// codes the new strings into its table. Any other pairing (a column whose kind the new rows
/// change, lists, mixed scalars, strings read in place) answers `nil`, and the batch reads the
/// column again from all its rows, which always gives a column meaning the same.
extension Column {
    /// This column followed by `tail`, the column of the rows appended.
    func appending(_ tail: Column) -> Column? {
        switch (self, tail) {
        case (.booleans(let values, let nils), .booleans(let more, let moreNils)):
            return .booleans(values: values + more, nils: nils + moreNils)
        case (.integers(let values, let nils), .integers(let more, let moreNils)):
            return .integers(values: values + more, nils: nils + moreNils)
        case (.doubles(let values, let nils), .doubles(let more, let moreNils)):
            return .doubles(values: values + more, nils: nils + moreNils)
        case (.dates(let values, let nils), .dates(let more, let moreNils)):
            return .dates(values: values + more, nils: nils + moreNils)
        case (.strings(let values, let nils), .strings(let more, let moreNils)):
            return .strings(values: values + more, nils: nils + moreNils)
        case (.values(let values, let nils), .values(let more, let moreNils)):
            return .values(values + more, nils: nils + moreNils)
        case (.codedStrings(let codes, let distinct, let nils), _):
            guard let (moreCodes, moreNils) = tail.strings(codedInto: distinct) else { return nil }
            return .codedStrings(codes: codes + moreCodes.codes, distinct: moreCodes.distinct, nils: nils + moreNils)
        default:
            return nil
        }
    }

    /// This column with row `row` replaced by the one row of `single`.
    func replacing(row: Int, with single: Column) -> Column? {
        switch (self, single) {
        case (.booleans(var values, var nils), .booleans(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .booleans(values: values, nils: nils)
        case (.integers(var values, var nils), .integers(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .integers(values: values, nils: nils)
        case (.doubles(var values, var nils), .doubles(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .doubles(values: values, nils: nils)
        case (.dates(var values, var nils), .dates(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .dates(values: values, nils: nils)
        case (.strings(var values, var nils), .strings(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .strings(values: values, nils: nils)
        case (.values(var values, var nils), .values(let one, let oneNil)) where one.count == 1:
            (values[row], nils[row]) = (one[0], oneNil[0])
            return .values(values, nils: nils)
        case (.codedStrings(var codes, let distinct, var nils), _):
            guard let (coded, oneNil) = single.strings(codedInto: distinct), coded.codes.count == 1 else { return nil }
            (codes[row], nils[row]) = (coded.codes[0], oneNil[0])
            return .codedStrings(codes: codes, distinct: coded.distinct, nils: nils)
        default:
            return nil
        }
    }

    /// This column without the rows `removed` (ascending, distinct, all below the row count).
    func removing(_ removed: [Int]) -> Column? {
        func keep<Element>(_ values: [Element]) -> [Element] { keeping(values, without: removed) }
        switch self {
        case .booleans(let values, let nils): return .booleans(values: keep(values), nils: keep(nils))
        case .integers(let values, let nils): return .integers(values: keep(values), nils: keep(nils))
        case .doubles(let values, let nils): return .doubles(values: keep(values), nils: keep(nils))
        case .dates(let values, let nils): return .dates(values: keep(values), nils: keep(nils))
        case .strings(let values, let nils): return .strings(values: keep(values), nils: keep(nils))
        case .values(let values, let nils): return .values(keep(values), nils: keep(nils))
        case .codedStrings(let codes, let distinct, let nils):
            return .codedStrings(codes: keep(codes), distinct: distinct, nils: keep(nils))
        case .borrowedStrings, .stringLists, .mixed, .unavailable:
            return nil
        }
    }

    /// The rows of this column of strings (plain or coded, nil rows included) as codes into
    /// `distinct`, which gains the strings it lacks (by their UTF-8 bytes, as
    /// ``StringInterner`` codes them); `nil` for a column of anything else.
    private func strings(codedInto distinct: [String]) -> (codes: (codes: [Int32], distinct: [String]), nils: [UInt8])?
    {
        var interner = StringInterner()
        // The table's strings are distinct by their bytes, so they get their own codes again.
        for text in distinct { _ = interner.code(text) }
        switch self {
        case .strings(let values, let nils):
            let codes = values.indices.map { nils[$0] != 0 ? Int32(-1) : interner.code(values[$0]) }
            return ((codes, interner.distinct), nils)
        case .codedStrings(let codes, let more, let nils):
            let recoded = more.map { interner.code($0) }
            return ((codes.map { $0 < 0 ? $0 : recoded[Int($0)] }, interner.distinct), nils)
        default:
            return nil
        }
    }
}
