import PredicateValue

extension Column {
    /// The stored scalar fields `fields` of every item, loaded together block by block: each
    /// block of items is read from memory once for all the fields, where loading them one by
    /// one reads every item once per field (with items of hundreds of bytes, each pass over a
    /// million of them costs about 5 ns an item, whatever it loads). The columns are those
    /// ``loading(_:from:)`` makes, `nil` where it makes none.
    static func loading<Item>(together fields: [StoredScalar], from items: UnsafeBufferPointer<Item>) -> [Column?] {
        guard let start = items.baseAddress, !items.isEmpty, fields.count > 1 else {
            return fields.map { loading($0, from: items) }
        }
        let loads = fields.map { FieldLoad($0, count: items.count) }
        let rows = StoredRows(base: UnsafeRawPointer(start), stride: MemoryLayout<Item>.stride, offset: 0)
        let present = SharedLoads(loads: loads.compactMap { $0 })
        rows.inParts(count: items.count) { range in
            var block = range.lowerBound
            while block < range.upperBound {
                let end = min(range.upperBound, block + FieldLoad.blockRows)
                for load in present.loads { load.fill(block..<end, base: rows.base, stride: rows.stride) }
                block = end
            }
        }
        return loads.map { $0?.finish() }
    }
}

/// The loads of one ``Column/loading(together:from:)``, shared by the threads that fill them
/// (each its own rows).
private struct SharedLoads: @unchecked Sendable {
    let loads: [FieldLoad]
}

/// One stored scalar field loaded into memory of its own, row by row, then made a column.
private struct FieldLoad {
    /// Rows loaded for every field before the next block: a few hundred items stay in the cache
    /// between one field's loop and the next.
    static let blockRows = 256

    private enum Shape {
        case bool, int64, optionalInt64, double, optionalDouble, uint64, optionalUInt64
    }

    private let shape: Shape
    private let isDate: Bool
    private let offset: Int
    private let count: Int
    private let values: UnsafeMutableRawPointer
    /// 1 where the row is nil; all 0 for a field that is not optional.
    private let nils: UnsafeMutablePointer<UInt8>

    /// `nil` for a field ``Column/loading(_:from:)`` does not load.
    init?(_ field: StoredScalar, count: Int) {
        let shape: Shape
        let width: Int
        switch (field.kind, field.storage) {
        case (.bool, .bool): (shape, width) = (.bool, 1)
        case (.int, .int64): (shape, width) = (.int64, 8)
        case (.int, .optionalInt64): (shape, width) = (.optionalInt64, 8)
        case (.double, .double), (.date, .double): (shape, width) = (.double, 8)
        case (.double, .optionalDouble), (.date, .optionalDouble): (shape, width) = (.optionalDouble, 8)
        case (.uint, .uint64): (shape, width) = (.uint64, MemoryLayout<Value>.stride)
        case (.uint, .optionalUInt64): (shape, width) = (.optionalUInt64, MemoryLayout<Value>.stride)
        default: return nil
        }
        self.shape = shape
        isDate = field.kind == .date
        offset = field.offset
        self.count = count
        values = .allocate(byteCount: max(1, count * width), alignment: MemoryLayout<Value>.alignment)
        nils = .allocate(capacity: count)
        nils.initialize(repeating: 0, count: count)
    }

    /// Loads rows `rows` (each thread its own).
    func fill(_ rows: Range<Int>, base: UnsafeRawPointer, stride: Int) {
        let field = base + offset
        switch shape {
        case .bool:
            for row in rows {
                values.storeBytes(
                    of: field.load(fromByteOffset: row &* stride, as: Bool.self) ? 1 : 0, toByteOffset: row,
                    as: UInt8.self)
            }
        case .int64:
            let output = values.assumingMemoryBound(to: Int64.self)
            for row in rows { output[row] = field.load(fromByteOffset: row &* stride, as: Int64.self) }
        case .optionalInt64:
            let output = values.assumingMemoryBound(to: Int64.self)
            for row in rows {
                let value = field.load(fromByteOffset: row &* stride, as: Int64?.self)
                output[row] = value ?? 0
                nils[row] = value == nil ? 1 : 0
            }
        case .double:
            let output = values.assumingMemoryBound(to: Double.self)
            for row in rows { output[row] = field.load(fromByteOffset: row &* stride, as: Double.self) }
        case .optionalDouble:
            let output = values.assumingMemoryBound(to: Double.self)
            for row in rows {
                let value = field.load(fromByteOffset: row &* stride, as: Double?.self)
                output[row] = value ?? 0
                nils[row] = value == nil ? 1 : 0
            }
        case .uint64:
            let output = values.assumingMemoryBound(to: Value.self)
            for row in rows {
                (output + row).initialize(to: .uint(field.load(fromByteOffset: row &* stride, as: UInt64.self)))
            }
        case .optionalUInt64:
            let output = values.assumingMemoryBound(to: Value.self)
            for row in rows {
                let value = field.load(fromByteOffset: row &* stride, as: UInt64?.self)
                (output + row).initialize(to: value.map(Value.uint) ?? .nil)
                nils[row] = value == nil ? 1 : 0
            }
        }
    }

    /// The column of the loaded rows, the memory freed: `nil` where ``Column/loading(_:from:)``
    /// leaves the column to the builder (every optional row nil, a NaN).
    func finish() -> Column? {
        defer {
            values.deallocate()
            nils.deallocate()
        }
        let flags = Array(UnsafeBufferPointer(start: nils, count: count))
        func copied<T>(_ type: T.Type) -> [T] {
            Array(UnsafeBufferPointer(start: values.assumingMemoryBound(to: T.self), count: count))
        }
        switch shape {
        case .bool:
            return .booleans(values: copied(UInt8.self), nils: flags)
        case .int64, .optionalInt64:
            guard shape == .int64 || flags.contains(0) else { return nil }
            return .integers(values: copied(Int64.self), nils: flags)
        case .double, .optionalDouble:
            guard shape == .double || flags.contains(0) else { return nil }
            let doubles = copied(Double.self)
            guard !doubles.contains(where: \.isNaN) else { return nil }
            return isDate ? .dates(values: doubles, nils: flags) : .doubles(values: doubles, nils: flags)
        case .uint64, .optionalUInt64:
            let typed = values.assumingMemoryBound(to: Value.self)
            let moved = [Value](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let start = buffer.baseAddress else { return }
                start.moveInitialize(from: typed, count: count)
                initialized = count
            }
            return .values(moved, nils: flags)
        }
    }
}
