import PredicateValue

/// Fills a ``Column`` one value at a time, typed from the first value that is not nil and
/// falling back to plain values at the first that does not fit, so a column of a million
/// Booleans never exists as a million ``Value``s.
struct ColumnBuilder {
    private enum Kind {
        /// Only nils so far.
        case undecided
        case booleans, integers, doubles, dates, strings
        /// Arrays of strings, their elements coded.
        case lists
        /// Scalars of several kinds (see ``MixedScalars``).
        case mixed
        /// Mixed kinds, `null`, NaN, unsigned integers, collections, objects.
        case values
    }

    private var kind = Kind.undecided
    /// One array per kind; only the one of ``kind`` is filled (appended in place).
    private var booleans: [UInt8] = []
    private var integers: [Int64] = []
    /// Doubles, or dates as seconds.
    private var doubles: [Double] = []
    private var strings: [String] = []
    /// Strings as codes (see ``StringInterner``) while few are distinct: `-1` for nil rows.
    private var codes: [Int32] = []
    private var interner: StringInterner?
    /// For lists: row `r`'s elements are `elements[offsets[r] ..< offsets[r + 1]]`, codes of
    /// the ``interner``'s strings.
    private var offsets: [Int32] = []
    private var elements: [Int32] = []
    private var mixed: MixedScalarsBuilder?
    private var values: [Value] = []
    /// 1 where the value is nil (or `null`, which only plain values hold).
    private var nils: [UInt8] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        nils.reserveCapacity(capacity)
    }

    mutating func append(_ value: Value) {
        // The common case first, reading the value without copying it: the kind goes on.
        switch kind {
        case .integers:
            if case .int(let integer) = value {
                integers.append(integer)
                nils.append(0)
                return
            }
        case .booleans:
            if case .bool(let flag) = value {
                booleans.append(flag ? 1 : 0)
                nils.append(0)
                return
            }
        case .doubles:
            if case .double(let double) = value, !double.isNaN {
                doubles.append(double)
                nils.append(0)
                return
            }
        case .strings:
            if case .string(let text) = value {
                appendString(text)
                return
            }
        case .mixed:
            mixed?.append(value)
            nils.append(value.isNil || value.isNull ? 1 : 0)
            return
        default:
            break
        }
        appendInGeneral(value)
    }

    /// Appends a string row (read in place by the caller, with no ``Value`` made).
    mutating func appendString(_ text: String) {
        guard kind == .strings else { return appendInGeneral(.string(text)) }
        if interner != nil { appendCode(text) } else { strings.append(text) }
        nils.append(0)
    }

    private mutating func appendInGeneral(_ value: Value) {
        if value.isNil {
            nils.append(1)
            switch kind {
            case .undecided: break
            case .booleans: booleans.append(0)
            case .integers: integers.append(0)
            case .doubles, .dates: doubles.append(0)
            case .strings:
                if interner != nil { codes.append(-1) } else { strings.append("") }
            case .lists: offsets.append(Int32(truncatingIfNeeded: elements.count))
            case .mixed: mixed?.append(.nil)
            case .values: values.append(.nil)
            }
            return
        }
        switch (kind, value) {
        case (.booleans, .bool(let flag)): booleans.append(flag ? 1 : 0)
        case (.integers, .int(let integer)): integers.append(integer)
        case (.doubles, .double(let double)) where !double.isNaN: doubles.append(double)
        case (.dates, .date(let seconds)) where !seconds.isNaN: doubles.append(seconds)
        case (.strings, .string(let text)):
            if interner != nil { appendCode(text) } else { strings.append(text) }
        case (.lists, .array(let list)) where appendList(list): break
        case (.values, _): values.append(value)
        case (.mixed, _): mixed?.append(value)
        case (.undecided, _): start(with: value)
        default:
            let plain = plainValues()
            if kind == .lists {
                values = plain
                values.append(value)
                kind = .values
            } else {
                // Scalars of another kind: each kept by its own kind from now on.
                var builder = MixedScalarsBuilder(capacity: capacity)
                for earlier in plain { builder.append(earlier) }
                builder.append(value)
                mixed = builder
                kind = .mixed
            }
            booleans = []
            integers = []
            doubles = []
            strings = []
            codes = []
            interner = nil
            offsets = []
            elements = []
        }
        nils.append(value.isNull ? 1 : 0)
    }

    /// Appends `list` as a row of the list column, if every element is a string and codes still
    /// pay (few distinct elements); `false`, with nothing appended, otherwise.
    private mutating func appendList(_ list: [Value]) -> Bool {
        guard var table = interner,
            list.allSatisfy({ if case .string = $0 { return true } else { return false } }),
            elements.count + list.count < Int(Int32.max)
        else { return false }
        interner = nil  // so the table is uniquely referenced while it grows
        defer { interner = table }
        let start = elements.count
        for case .string(let text) in list { elements.append(table.code(text)) }
        if elements.count >= 1024 && table.count * 4 > elements.count {
            elements.removeSubrange(start...)
            return false
        }
        offsets.append(Int32(truncatingIfNeeded: elements.count))
        return true
    }

    /// Columns shorter than this keep their strings as they are: coding them would cost more
    /// than it saves.
    static let shortestCoded = 64

    private mutating func appendCode(_ text: String) {
        guard var table = interner else { return }
        interner = nil  // so the table is uniquely referenced while it grows
        codes.append(table.code(text))
        // Mostly distinct values (file names) gain nothing from codes: back to plain strings.
        if codes.count >= 1024 && table.count * 4 > codes.count {
            strings.reserveCapacity(capacity)
            for code in codes { strings.append(code < 0 ? "" : table.distinct[Int(code)]) }
            codes = []
            return
        }
        interner = table
    }

    /// The first value that is not nil decides the kind; the nils before it become zeros.
    private mutating func start(with value: Value) {
        let leading = nils.count
        func filled<T>(_ zero: T, _ first: T) -> [T] {
            var column = [T](repeating: zero, count: leading)
            column.reserveCapacity(capacity)
            column.append(first)
            return column
        }
        switch value {
        case .bool(let flag):
            kind = .booleans
            booleans = filled(0, flag ? 1 : 0)
        case .int(let integer):
            kind = .integers
            integers = filled(0, integer)
        case .double(let double) where !double.isNaN:
            kind = .doubles
            doubles = filled(0, double)
        case .date(let seconds) where !seconds.isNaN:
            kind = .dates
            doubles = filled(0, seconds)
        case .array(let list) where capacity >= Self.shortestCoded:
            kind = .lists
            interner = StringInterner()
            offsets = [Int32](repeating: 0, count: leading + 1)
            offsets.reserveCapacity(capacity + 1)
            if !appendList(list) {
                kind = .values
                interner = nil
                offsets = []
                values = filled(.nil, value)
            }
        case .string(let text):
            kind = .strings
            if capacity >= Self.shortestCoded {
                interner = StringInterner()
                codes = [Int32](repeating: -1, count: leading)
                codes.reserveCapacity(capacity)
                appendCode(text)
            } else {
                strings = filled("", text)
            }
        case .null, .double, .date:
            // A scalar no typed column holds (`null`, NaN): each row by its own kind.
            var builder = MixedScalarsBuilder(capacity: capacity)
            for _ in 0..<leading { builder.append(.nil) }
            builder.append(value)
            mixed = builder
            kind = .mixed
        default:
            kind = .values
            values = filled(.nil, value)
        }
    }

    /// The values so far as plain values, for a column that turned out mixed.
    private func plainValues() -> [Value] {
        var plain: [Value] = []
        plain.reserveCapacity(capacity)
        for row in nils.indices {
            guard nils[row] == 0 else {
                plain.append(.nil)
                continue
            }
            switch kind {
            case .undecided: plain.append(.nil)
            case .booleans: plain.append(.bool(booleans[row] != 0))
            case .integers: plain.append(.int(integers[row]))
            case .doubles: plain.append(.double(doubles[row]))
            case .dates: plain.append(.date(secondsSinceReferenceDate: doubles[row]))
            case .strings:
                if let interner {
                    plain.append(.string(interner.distinct[Int(codes[row])]))
                } else {
                    plain.append(.string(strings[row]))
                }
            case .lists:
                let distinct = interner?.distinct ?? []
                let list = elements[Int(offsets[row])..<Int(offsets[row + 1])]
                plain.append(.array(list.map { .string(distinct[Int($0)]) }))
            case .mixed, .values: plain.append(values[row])
            }
        }
        return plain
    }

    /// The column.
    func finish() -> Column {
        switch kind {
        case .undecided: return .values(Array(repeating: .nil, count: nils.count), nils: nils)
        case .booleans: return .booleans(values: booleans, nils: nils)
        case .integers: return .integers(values: integers, nils: nils)
        case .doubles: return .doubles(values: doubles, nils: nils)
        case .dates: return .dates(values: doubles, nils: nils)
        case .strings:
            if let interner { return .codedStrings(codes: codes, distinct: interner.distinct, nils: nils) }
            return .strings(values: strings, nils: nils)
        case .lists:
            return .stringLists(
                StringLists(offsets: offsets, elements: elements, distinct: interner?.distinct ?? []), nils: nils)
        case .mixed: return .mixed(mixed?.finish() ?? MixedScalarsBuilder(capacity: 0).finish(), nils: nils)
        case .values: return .values(values, nils: nils)
        }
    }
}
