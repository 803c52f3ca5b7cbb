import Dispatch
import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// The values one key path takes over every row of a batch, stored by type so that kernels loop
/// over plain arrays instead of switching over ``Value`` row by row.
///
/// A column is typed only when every row that is not `nil` holds the same kind of value (and no
/// `null`, NaN or unsigned integer, whose comparison rules differ from the plain machine ones);
/// otherwise it keeps the values as they are and clauses reading it run the general semantics
/// row by row. `nils[row]` is 1 where the row's value is `nil`.
enum Column: Sendable {
    /// Booleans as 0 and 1 (they compare as the numbers 0 and 1).
    case booleans(values: [UInt8], nils: [UInt8])
    /// Signed integers.
    case integers(values: [Int64], nils: [UInt8])
    /// Doubles, none NaN.
    case doubles(values: [Double], nils: [UInt8])
    /// Dates as seconds since the reference date, none NaN.
    case dates(values: [Double], nils: [UInt8])
    /// Strings.
    case strings(values: [String], nils: [UInt8])
    /// Mostly distinct strings the items store in place, read there when compared.
    case borrowedStrings(BorrowedStrings)
    /// Strings of few distinct values: per row an index into `distinct`, or `-1` for nil, so
    /// a comparison is decided once per distinct value (see ``StringInterner``).
    case codedStrings(codes: [Int32], distinct: [String], nils: [UInt8])
    /// Arrays of strings of few distinct values (`userInfo.tags`), every element coded.
    case stringLists(StringLists, nils: [UInt8])
    /// Scalars of several kinds (integers, doubles and strings in one `userInfo` key), each row
    /// by its own kind.
    case mixed(MixedScalars, nils: [UInt8])
    /// Anything else, as it is; `nils` marks `nil` and `null` alike (the language's nil tests
    /// treat them alike).
    case values([Value], nils: [UInt8])
    /// Reading the key path threw for some row: clauses reading it run through the scalar VM,
    /// which reports the error with its position.
    case unavailable

    /// The key path `path` read from every row (`row.path`). With `nullReadsAsNil` (rows that are
    /// `SUBQUERY` elements) a `null` row reads as `nil`, as a variable holding `null` does;
    /// otherwise reading a key of `null` is the error it is for `SELF`.
    init(reading path: [KeyComponent], from rows: [Value], nullReadsAsNil: Bool) {
        self.init(count: rows.count) { row throws(EvaluationError) in
            let receiver = nullReadsAsNil && rows[row].isNull ? Value.nil : rows[row]
            return try Column.read(path, from: receiver)
        }
    }

    /// The key path `path` read from each of the host's objects: a first component bound to the
    /// objects' own schema is read from the concrete type, without boxing the object.
    init<Item: KeyValueCoding>(reading path: [KeyComponent], from items: ArraySlice<Item>) {
        guard case .field(let field)? = path.first, let schema = items.first?.schema, field.schema.schema === schema
        else {
            self.init(count: items.count) { row throws(EvaluationError) in
                try Column.read(path, from: .object(items[items.startIndex + row]))
            }
            return
        }
        let rest = Array(path.dropFirst())
        if rest.isEmpty, Item.sharedSchema === schema, let stored = Item.storedScalar(atSlot: field.slot),
            stored.root == ObjectIdentifier(Item.self),
            let column = items.withUnsafeBufferPointer({ Column.loading(stored, from: $0) })
        {
            self = column
            return
        }
        let typed = Item.sharedSchema === schema
        if rest.isEmpty, typed, let stored = Item.storedString(atSlot: field.slot),
            stored.root == ObjectIdentifier(Item.self)
        {
            self = Column.reading(stored, from: items)
            return
        }
        if rest.count == 1, let key = rest[0].key, typed, let stored = Item.storedString(atSlot: field.slot, key: key),
            stored.root == ObjectIdentifier(Item.self)
        {
            // `contentType.identifier`: the string inside the field's struct, where it lies.
            self = Column.reading(stored, from: items)
            return
        }
        if rest.count == 1, case .key(let key) = rest[0], key.utf8.first != UInt8(ascii: "@"), typed,
            let stored = Item.storedDictionary(atSlot: field.slot), stored.root == ObjectIdentifier(Item.self)
        {
            self = Column.reading(key, of: stored, path: path, from: items)
            return
        }
        var builder = ColumnBuilder(capacity: items.count)
        var failed = false
        items.withUnsafeBufferPointer { items in
            Item.forEachValue(atSlot: field.slot, of: items) { head in
                guard !failed else { return }
                do {
                    builder.append(rest.isEmpty ? head : try Column.read(rest, from: head))
                } catch {
                    failed = true
                }
            }
        }
        self = failed ? .unavailable : builder.finish()
    }

    /// The stored string field `stored` of every item: left where it lies when the first rows
    /// are mostly distinct (file names), else built into a column (coded when few are distinct)
    /// from each string borrowed where it lies.
    private static func reading<Item: KeyValueCoding>(_ stored: StoredString, from items: ArraySlice<Item>) -> Column {
        let sample = min(items.count, 1024)
        if sample >= ColumnBuilder.shortestCoded {
            var interner = StringInterner()
            items.withUnsafeBufferPointer { items in
                guard let base = items.baseAddress else { return }
                for row in 0..<sample {
                    stored.withString(in: UnsafeRawPointer(base + row), whenNil: {}) { _ = interner.code($0) }
                }
            }
            if interner.count * 4 > sample {
                return .borrowedStrings(
                    BorrowedStrings(rows: HostItemRows(items: items), stored: stored))
            }
        }
        var builder = ColumnBuilder(capacity: items.count)
        items.withUnsafeBufferPointer { items in
            guard let base = items.baseAddress else { return }
            for row in 0..<items.count {
                stored.withString(in: UnsafeRawPointer(base + row), whenNil: { builder.append(.nil) }) {
                    builder.appendString($0)
                }
            }
        }
        return builder.finish()
    }

    /// `key` of the stored dictionary field `stored` of every item (`userInfo.rank`), looked up
    /// where the dictionary lies (``DictionaryKeyLookup``); a dotted key that is missing, with its
    /// first part present, is read along the whole `path` (which tries its parts in turn).
    private static func reading<Item: KeyValueCoding>(
        _ key: String, of stored: StoredDictionary, path: [KeyComponent], from items: ArraySlice<Item>
    ) -> Column {
        let lookup = DictionaryKeyLookup(key)
        if let column = items.withUnsafeBufferPointer({ Column.loading(lookup, of: stored, from: $0) }) {
            return column
        }
        var builder = ColumnBuilder(capacity: items.count)
        var failed = false
        items.withUnsafeBufferPointer { items in
            guard let base = items.baseAddress else { return }
            for row in 0..<items.count where !failed {
                let found: Value? = stored.withDictionary(in: UnsafeRawPointer(base + row), whenNil: { .nil }) {
                    lookup.value(in: $0)
                }
                if let found {
                    builder.append(found)
                } else {
                    do {
                        builder.append(try Column.read(path, from: .object(items[row])))
                    } catch {
                        failed = true
                    }
                }
            }
        }
        return failed ? .unavailable : builder.finish()
    }

    /// The stored scalar field `stored` of every item, loaded in place by one typed loop
    /// (``loading(together:from:)``): the column ``ColumnBuilder`` makes of the same values, or
    /// `nil` when the builder must decide (no items, every row nil, a NaN, a kind not stored).
    static func loading<Item>(_ stored: StoredScalar, from items: UnsafeBufferPointer<Item>) -> Column? {
        loading(together: [stored], from: items).first ?? nil
    }

    private init(count: Int, _ read: (Int) throws(EvaluationError) -> Value) {
        var builder = ColumnBuilder(capacity: count)
        for row in 0..<count {
            do {
                builder.append(try read(row))
            } catch {
                self = .unavailable
                return
            }
        }
        self = builder.finish()
    }

    private static func read(_ path: [KeyComponent], from receiver: Value) throws(EvaluationError) -> Value {
        try KeyValueAccess.value(along: path, from: receiver) { name throws(EvaluationError) in
            throw EvaluationError(.unboundVariable, "the variable $\(name) has no value")
        }
    }

    /// The value of `row`, as the general semantics takes it (`nil` for an unavailable column,
    /// whose clauses never ask).
    func value(at row: Int) -> Value {
        switch self {
        case .booleans(let values, let nils): return nils[row] != 0 ? .nil : .bool(values[row] != 0)
        case .integers(let values, let nils): return nils[row] != 0 ? .nil : .int(values[row])
        case .doubles(let values, let nils): return nils[row] != 0 ? .nil : .double(values[row])
        case .dates(let values, let nils):
            return nils[row] != 0 ? .nil : .date(secondsSinceReferenceDate: values[row])
        case .strings(let values, let nils): return nils[row] != 0 ? .nil : .string(values[row])
        case .codedStrings(let codes, let distinct, let nils):
            return nils[row] != 0 ? .nil : .string(distinct[Int(codes[row])])
        case .borrowedStrings(let borrowed): return borrowed.value(at: row)
        case .stringLists(let lists, let nils): return nils[row] != 0 ? .nil : lists.value(at: row)
        case .mixed(let mixed, _): return mixed.value(at: row)
        case .values(let values, _): return values[row]
        case .unavailable: return .nil
        }
    }

    /// Per row, 1 where the value is `nil` (or `null`); `nil` for an unavailable column.
    var nils: [UInt8]? {
        switch self {
        case .booleans(_, let nils), .integers(_, let nils), .doubles(_, let nils), .dates(_, let nils),
            .strings(_, let nils), .codedStrings(_, _, let nils), .stringLists(_, let nils), .mixed(_, let nils),
            .values(_, let nils):
            return nils
        case .borrowedStrings, .unavailable:
            return nil
        }
    }

    /// The storage kind, for tests and reports.
    var kindName: String {
        switch self {
        case .booleans: return "booleans"
        case .integers: return "integers"
        case .doubles: return "doubles"
        case .dates: return "dates"
        case .strings: return "strings"
        case .codedStrings: return "coded strings"
        case .borrowedStrings: return "borrowed strings"
        case .stringLists: return "string lists"
        case .mixed: return "mixed scalars"
        case .values: return "values"
        case .unavailable: return "unavailable"
        }
    }
}

/// Arrays of strings as one array of element codes: row `r`'s elements are
/// `elements[offsets[r] ..< offsets[r + 1]]` (empty for a nil row), indexes into `distinct`.
struct StringLists: Sendable {
    let offsets: [Int32]
    let elements: [Int32]
    let distinct: [String]

    /// Row `row`'s array, as the row held it.
    func value(at row: Int) -> Value {
        .array(elements[Int(offsets[row])..<Int(offsets[row + 1])].map { .string(distinct[Int($0)]) })
    }
}

/// The items a column is loaded from, read in place: they are only read, and outlive the load,
/// so the parts of a load running on several threads may share them.
struct StoredRows: @unchecked Sendable {
    let base: UnsafeRawPointer
    let stride: Int

    /// Loads of fewer rows than this stay on one thread: below it, starting threads costs more
    /// than the load. Above it, loading is bound by memory (one item's cache line a row, for
    /// bytes or words of it), which two cores read faster than one.
    static let rowsPerThread = 1 << 16

    /// How many rows ahead a load asks for the memory a row points to (a dictionary, a
    /// string: ``StoredDictionary/prefetch(in:)``), so that its miss overlaps the rows between.
    static var prefetchDistance: Int { 16 }

    /// `body` on the row ranges of `count` rows, on as many threads as pay (see
    /// ``rowsPerThread``), each range once.
    func inParts(count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        inParts(count: count) { _, range in body(range) }
    }

    /// How many parts ``inParts(count:_:)-(_,(Int,Range<Int>)->Void)`` cuts `count` rows into.
    static func parts(count: Int) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / rowsPerThread))
    }

    /// `body` on each part (its index, from 0 below ``parts(count:)``, and its rows, in order of
    /// the index), on as many threads as pay.
    func inParts(count: Int, _ body: @Sendable (Int, Range<Int>) -> Void) {
        let parts = Self.parts(count: count)
        guard parts > 1 else { return body(0, 0..<count) }
        let size = (count + parts - 1) / parts
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            body(part, min(count, part * size)..<min(count, (part + 1) * size))
        }
    }
}
