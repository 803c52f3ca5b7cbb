import PredicateValue

extension Column {
    /// The stored scalar fields `fields` of every item, loaded together block by block: each
    /// block of items is read from memory once for all the fields, where loading them one by
    /// one reads every item once per field (with items of hundreds of bytes, each pass over a
    /// million of them costs about 5 ns an item, whatever it loads). The columns are those the
    /// builder makes of the same values; `nil` where the builder must decide (every row of an
    /// optional field nil, a NaN, a kind no typed loop reads).
    ///
    /// Rows are written straight into the columns' arrays, and the fields that cannot be nil
    /// share one array of nil flags: on a million items every megabyte of fresh memory is about
    /// a nanosecond an item of page faults, as much as the loads themselves.
    static func loading<Item>(together fields: [StoredScalar], from items: UnsafeBufferPointer<Item>) -> [Column?] {
        guard let start = items.baseAddress, !items.isEmpty else { return fields.map { _ in nil } }
        let count = items.count
        let rows = StoredRows(base: UnsafeRawPointer(start), stride: MemoryLayout<Item>.stride)
        let noNils = [UInt8](repeating: 0, count: count)
        var loaded = [LoadedField?](repeating: nil, count: fields.count)
        var loads: [FieldLoad] = []
        // Each field's arrays made in turn, the pass run inside the last: every array is then
        // allocated and still open for writing.
        func allocate(_ index: Int) {
            guard index < fields.count else {
                let shared = SharedLoads(loads: loads)
                rows.inParts(count: count) { range in
                    var block = range.lowerBound
                    while block < range.upperBound {
                        let end = min(range.upperBound, block + FieldLoad.blockRows)
                        for load in shared.loads { load.fill(block..<end, base: rows.base, stride: rows.stride) }
                        block = end
                    }
                }
                return
            }
            guard let shape = FieldLoad.Shape(fields[index]) else { return allocate(index + 1) }
            let field = fields[index]
            func withNils(_ body: (UnsafeMutablePointer<UInt8>?) -> Void) -> [UInt8] {
                guard shape.canBeNil else {
                    body(nil)
                    return noNils
                }
                return uninitialized(count, UInt8.self) { body($0) }
            }
            func opened(_ values: UnsafeMutableRawPointer, _ nils: UnsafeMutablePointer<UInt8>?) {
                loads.append(FieldLoad(shape: shape, offset: field.offset, values: values, nils: nils))
                allocate(index + 1)
            }
            switch shape {
            case .bool:
                var nils: [UInt8] = []
                let values = uninitialized(count, UInt8.self) { values in nils = withNils { opened(values, $0) } }
                loaded[index] = .booleans(values, nils)
            case .int64, .optionalInt64:
                var nils: [UInt8] = []
                let values = uninitialized(count, Int64.self) { values in nils = withNils { opened(values, $0) } }
                loaded[index] = .integers(values, nils)
            case .double, .optionalDouble:
                var nils: [UInt8] = []
                let values = uninitialized(count, Double.self) { values in nils = withNils { opened(values, $0) } }
                loaded[index] = .doubles(values, nils, isDate: field.kind == .date)
            case .uint64, .optionalUInt64:
                var nils: [UInt8] = []
                let values = uninitialized(count, Value.self) { values in nils = withNils { opened(values, $0) } }
                loaded[index] = .values(values, nils)
            }
        }
        allocate(0)
        return loaded.map { $0?.column }
    }
}

/// An array of `count` elements that `fill` initializes, every one of them.
func uninitialized<T>(_ count: Int, _ type: T.Type, _ fill: (UnsafeMutablePointer<T>) -> Void) -> [T] {
    [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        guard let start = buffer.baseAddress else { return }
        fill(start)
        initialized = count
    }
}

/// One field's rows as ``Column/loading(together:from:)`` loaded them.
private enum LoadedField {
    case booleans([UInt8], [UInt8])
    case integers([Int64], [UInt8])
    case doubles([Double], [UInt8], isDate: Bool)
    case values([Value], [UInt8])

    /// The column, or `nil` where the builder must decide (every row nil, a NaN).
    var column: Column? {
        switch self {
        case .booleans(let values, let nils):
            return .booleans(values: values, nils: nils)
        case .integers(let values, let nils):
            guard nils.contains(0) else { return nil }
            return .integers(values: values, nils: nils)
        case .doubles(let values, let nils, let isDate):
            guard nils.contains(0), !values.contains(where: \.isNaN) else { return nil }
            return isDate ? .dates(values: values, nils: nils) : .doubles(values: values, nils: nils)
        case .values(let values, let nils):
            return .values(values, nils: nils)
        }
    }
}

/// The loads of one ``Column/loading(together:from:)``, shared by the threads that fill them
/// (each its own rows).
private struct SharedLoads: @unchecked Sendable {
    let loads: [FieldLoad]
}

/// Where one stored scalar field's rows go, and how they are read.
private struct FieldLoad {
    /// Rows loaded for every field before the next block: a few hundred items stay in the cache
    /// between one field's loop and the next.
    static let blockRows = 256

    enum Shape {
        case bool, int64, optionalInt64, double, optionalDouble, uint64, optionalUInt64

        /// The shape of a stored field that a typed loop reads; `nil` for the others.
        init?(_ field: StoredScalar) {
            switch (field.kind, field.storage) {
            case (.bool, .bool): self = .bool
            case (.int, .int64): self = .int64
            case (.int, .optionalInt64): self = .optionalInt64
            case (.double, .double), (.date, .double): self = .double
            case (.double, .optionalDouble), (.date, .optionalDouble): self = .optionalDouble
            case (.uint, .uint64): self = .uint64
            case (.uint, .optionalUInt64): self = .optionalUInt64
            default: return nil
            }
        }

        var canBeNil: Bool { self == .optionalInt64 || self == .optionalDouble || self == .optionalUInt64 }
    }

    let shape: Shape
    let offset: Int
    let values: UnsafeMutableRawPointer
    /// 1 where the row is nil; `nil` for a field that cannot be.
    let nils: UnsafeMutablePointer<UInt8>?

    /// Loads rows `rows` (each thread its own), initializing them.
    func fill(_ rows: Range<Int>, base: UnsafeRawPointer, stride: Int) {
        let field = base + offset
        switch shape {
        case .bool: fill(rows, field, stride, Bool.self) { $0 ? UInt8(1) : 0 }
        case .int64: fill(rows, field, stride, Int64.self) { $0 }
        case .double: fill(rows, field, stride, Double.self) { $0 }
        case .uint64: fill(rows, field, stride, UInt64.self) { Value.uint($0) }
        case .optionalInt64:
            fillOptional(rows, field, stride, Int64.self) { $0 ?? 0 }
        case .optionalDouble:
            fillOptional(rows, field, stride, Double.self) { $0 ?? 0 }
        case .optionalUInt64:
            fillOptional(rows, field, stride, UInt64.self) { $0.map(Value.uint) ?? .nil }
        }
    }

    /// Rows `rows` of a field of type `T` at `field`, each initialized to `value` of what it
    /// holds.
    @inline(__always)
    private func fill<T, Stored>(
        _ rows: Range<Int>, _ field: UnsafeRawPointer, _ stride: Int, _ type: T.Type, _ value: (T) -> Stored
    ) {
        let output = values.assumingMemoryBound(to: Stored.self)
        for row in rows { (output + row).initialize(to: value(field.load(fromByteOffset: row &* stride, as: T.self))) }
    }

    /// Rows `rows` of an optional field of type `T?` at `field`, each initialized to `value`
    /// of what it holds, its nil flag set where it holds nothing.
    @inline(__always)
    private func fillOptional<T, Stored>(
        _ rows: Range<Int>, _ field: UnsafeRawPointer, _ stride: Int, _ type: T.Type, _ value: (T?) -> Stored
    ) {
        guard let nils else { return }
        let output = values.assumingMemoryBound(to: Stored.self)
        for row in rows {
            let loaded = field.load(fromByteOffset: row &* stride, as: T?.self)
            (output + row).initialize(to: value(loaded))
            (nils + row).initialize(to: loaded == nil ? 1 : 0)
        }
    }
}
