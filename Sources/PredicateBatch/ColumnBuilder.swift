import PredicateValue

/// Fills a ``Column`` one value at a time, typed from the first value that is not nil and
/// falling back to plain values at the first that does not fit, so a column of a million
/// Booleans never exists as a million ``Value``s.
struct ColumnBuilder {
    private enum Kind {
        /// Only nils so far.
        case undecided
        case booleans, integers, doubles, dates, strings
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
    private var values: [Value] = []
    /// 1 where the value is nil (or `null`, which only plain values hold).
    private var nils: [UInt8] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        nils.reserveCapacity(capacity)
    }

    mutating func append(_ value: Value) {
        if value.isNil {
            nils.append(1)
            switch kind {
            case .undecided: break
            case .booleans: booleans.append(0)
            case .integers: integers.append(0)
            case .doubles, .dates: doubles.append(0)
            case .strings: strings.append("")
            case .values: values.append(.nil)
            }
            return
        }
        switch (kind, value) {
        case (.booleans, .bool(let flag)): booleans.append(flag ? 1 : 0)
        case (.integers, .int(let integer)): integers.append(integer)
        case (.doubles, .double(let double)) where !double.isNaN: doubles.append(double)
        case (.dates, .date(let seconds)) where !seconds.isNaN: doubles.append(seconds)
        case (.strings, .string(let text)): strings.append(text)
        case (.values, _): values.append(value)
        case (.undecided, _): start(with: value)
        default:
            values = plainValues()
            values.append(value)
            kind = .values
            booleans = []
            integers = []
            doubles = []
            strings = []
        }
        nils.append(value.isNull ? 1 : 0)
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
        case .string(let text):
            kind = .strings
            strings = filled("", text)
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
            case .strings: plain.append(.string(strings[row]))
            case .values: plain.append(values[row])
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
        case .strings: return .strings(values: strings, nils: nils)
        case .values: return .values(values, nils: nils)
        }
    }
}
