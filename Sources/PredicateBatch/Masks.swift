import PredicateSemantics
import PredicateVM

/// A plan node as one worker runs it: kernel-only subtrees become ``MaskNode``s once the
/// batch's columns (and so their types) are known.
indirect enum ExecutionNode {
    case mask(MaskNode)
    case constant(Bool)
    case and(ExecutionNode, ExecutionNode)
    case or(ExecutionNode, ExecutionNode)
    case not(ExecutionNode)
    case compare(ComparisonLeaf)
    case subquery(SubqueryLeaf)
    case scalar(ScalarRegion)

    init(_ node: PlanNode, columns: [Column], masks: Bool, environment: EvaluationEnvironment) {
        if masks, !node.isConstant, let mask = MaskNode(node, columns: columns, environment: environment) {
            self = .mask(mask)
            return
        }
        switch node {
        case .constant(let flag): self = .constant(flag)
        case .and(let left, let right):
            self = .and(
                ExecutionNode(left, columns: columns, masks: masks, environment: environment),
                ExecutionNode(right, columns: columns, masks: masks, environment: environment))
        case .or(let left, let right):
            self = .or(
                ExecutionNode(left, columns: columns, masks: masks, environment: environment),
                ExecutionNode(right, columns: columns, masks: masks, environment: environment))
        case .not(let operand):
            self = .not(ExecutionNode(operand, columns: columns, masks: masks, environment: environment))
        case .compare(let leaf): self = .compare(leaf)
        case .subquery(let leaf): self = .subquery(leaf)
        case .scalar(let region): self = .scalar(region)
        }
    }
}

extension PlanNode {
    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }
}

/// A subtree of a plan whose every leaf is a comparison of a typed column with a constant that
/// cannot fail (Booleans, integers, doubles, dates, nil tests): it is evaluated for a whole chunk
/// as byte masks, one straight loop per leaf and one per connective, which the compiler turns
/// into vector instructions. Short-circuiting would save nothing here: a leaf costs less than a
/// branch per row.
indirect enum MaskNode: Sendable {
    case constant(Bool)
    case and(MaskNode, MaskNode)
    case or(MaskNode, MaskNode)
    case not(MaskNode)
    /// A Boolean column: the answer for false, for true and for nil, looked up without a branch.
    case booleans(values: [UInt8], nils: [UInt8], whenFalse: UInt8, whenTrue: UInt8, whenNil: UInt8)
    case integers(IntegerMask)
    case doubles(DoubleMask)
    case nils(nils: [UInt8], whenNil: UInt8, otherwise: UInt8)
    /// A coded string column: the answer for each code (`table[code + 1]`, nil rows at 0),
    /// decided once per distinct value.
    case codes(codes: [Int32], table: [UInt8])

    /// The mask node for `node` over `columns`, or `nil` when some leaf needs more than a kernel.
    init?(_ node: PlanNode, columns: [Column], environment: EvaluationEnvironment) {
        switch node {
        case .constant(let flag):
            self = .constant(flag)
        case .and(.compare(let left), .compare(let right))
        where left.column == right.column && left.quantifier == .direct && right.quantifier == .direct:
            // `x > a AND x <= b`: one interval test instead of two tests and an AND.
            if case .integers(let values, let nils) = columns[left.column], left.nilTest == nil, right.nilTest == nil,
                let leftNil = left.nilResult, let rightNil = right.nilResult,
                let test = left.integers.flatMap({ a in right.integers.flatMap(a.intersection) })
            {
                self = .integers(IntegerMask(values: values, nils: nils, test: test, nilResult: leftNil && rightNil))
                return
            }
            guard let left = MaskNode(.compare(left), columns: columns, environment: environment),
                let right = MaskNode(.compare(right), columns: columns, environment: environment)
            else { return nil }
            self = .and(left, right)
        case .and(let left, let right):
            guard let left = MaskNode(left, columns: columns, environment: environment),
                let right = MaskNode(right, columns: columns, environment: environment)
            else {
                return nil
            }
            self = .and(left, right)
        case .or(let left, let right):
            guard let left = MaskNode(left, columns: columns, environment: environment),
                let right = MaskNode(right, columns: columns, environment: environment)
            else {
                return nil
            }
            self = .or(left, right)
        case .not(let operand):
            guard let operand = MaskNode(operand, columns: columns, environment: environment) else { return nil }
            self = .not(operand)
        case .compare(let leaf):
            guard let mask = MaskNode(leaf, columns[leaf.column], environment: environment) else { return nil }
            self = mask
        case .subquery, .scalar:
            return nil
        }
    }

    private init?(_ leaf: ComparisonLeaf, _ column: Column, environment: EvaluationEnvironment) {
        if let test = leaf.nilTest, let nils = column.nils {
            self = .nils(nils: nils, whenNil: test.whenNil ? 1 : 0, otherwise: test.otherwise ? 1 : 0)
            return
        }
        if case .codedStrings(let codes, let distinct, _) = column {
            // Every value decided now; a mask only when none fails or costs steps.
            guard let table = CodeDecisions(leaf.codedOutcomes(distinct, environment: environment)).mask else {
                return nil
            }
            self = .codes(codes: codes, table: table)
            return
        }
        guard let nilResult = leaf.nilResult else { return nil }
        switch column {
        case .booleans(let values, let nils):
            guard let test = leaf.integers else { return nil }
            self = .booleans(
                values: values, nils: nils, whenFalse: test.holds(0) ? 1 : 0, whenTrue: test.holds(1) ? 1 : 0,
                whenNil: nilResult ? 1 : 0)
        case .integers(let values, let nils):
            guard let test = leaf.integers else { return nil }
            self = .integers(IntegerMask(values: values, nils: nils, test: test, nilResult: nilResult))
        case .doubles(let values, let nils):
            guard let test = leaf.doubles else { return nil }
            self = .doubles(DoubleMask(values: values, nils: nils, test: test, nilResult: nilResult))
        case .dates(let values, let nils):
            guard let test = leaf.dates else { return nil }
            self = .doubles(DoubleMask(values: values, nils: nils, test: test, nilResult: nilResult))
        default:
            return nil
        }
    }
}

/// `x op k` over an integer (or Boolean) column as an interval test.
struct IntegerMask: Sendable {
    let values: [Int64]
    let nils: [UInt8]
    let test: IntegerTest
    let nilResult: Bool

    /// Writes 1 or 0 for rows `start ..< start + count` to `mask`.
    func fill(_ mask: UnsafeMutablePointer<UInt8>, start: Int, count: Int, _ write: MaskWrite) {
        let lower = test.lower
        let span = UInt64(bitPattern: test.upper &- test.lower)
        let notEmpty: UInt8 = test.isEmpty ? 0 : 1
        let flip: UInt8 = test.negated ? 1 : 0
        let whenNil: UInt8 = nilResult ? 1 : 0
        values.withUnsafeBufferPointer { values in
            nils.withUnsafeBufferPointer { nils in
                // Pointers to the chunk's first row, so the loop does no overflow-checked index
                // arithmetic and vectorises.
                guard let values = values.baseAddress.map({ $0 + start }),
                    let nils = nils.baseAddress.map({ $0 + start })
                else { return }
                write.apply(mask, count) { index in
                    let inside: UInt8 = UInt64(bitPattern: values[index] &- lower) <= span ? 1 : 0
                    let isNil = nils[index]
                    return (((inside & notEmpty) ^ flip) & (isNil ^ 1)) | (whenNil & isNil)
                }
            }
        }
    }
}

/// `x op k` over a double (or date) column, one loop per operator.
struct DoubleMask: Sendable {
    let values: [Double]
    let nils: [UInt8]
    let test: DoubleTest
    let nilResult: Bool

    func fill(_ mask: UnsafeMutablePointer<UInt8>, start: Int, count: Int, _ write: MaskWrite) {
        let bound = test.bound
        let whenNil: UInt8 = nilResult ? 1 : 0
        values.withUnsafeBufferPointer { values in
            nils.withUnsafeBufferPointer { nils in
                guard let values = values.baseAddress.map({ $0 + start }),
                    let nils = nils.baseAddress.map({ $0 + start })
                else { return }
                @inline(__always)
                func loop(_ holds: (Double) -> Bool) {
                    write.apply(mask, count) { index in
                        let hit: UInt8 = holds(values[index]) ? 1 : 0
                        let isNil = nils[index]
                        return (hit & (isNil ^ 1)) | (whenNil & isNil)
                    }
                }
                switch test.op {
                case .equal: loop { $0 == bound }
                case .notEqual: loop { $0 != bound }
                case .less: loop { $0 < bound }
                case .lessOrEqual: loop { $0 <= bound }
                case .greater: loop { $0 > bound }
                default: loop { $0 >= bound }
                }
            }
        }
    }
}

/// Byte-mask buffers of one chunk's size, reused across chunks (one per level of nesting).
struct MaskPool {
    private var free: [UnsafeMutablePointer<UInt8>] = []
    private var all: [UnsafeMutablePointer<UInt8>] = []

    mutating func take() -> UnsafeMutablePointer<UInt8> {
        if let buffer = free.popLast() { return buffer }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: BatchWorker.chunkSize)
        all.append(buffer)
        return buffer
    }

    mutating func give(_ buffer: UnsafeMutablePointer<UInt8>) { free.append(buffer) }

    func deallocate() {
        for buffer in all { buffer.deallocate() }
    }
}

extension MaskNode {
    /// Writes the node's answer (1 or 0) for rows `start ..< start + count` to `mask`, or
    /// combines it with what `mask` holds (`write`), so that `a AND b` is two passes, not three.
    func fill(
        _ mask: UnsafeMutablePointer<UInt8>, start: Int, count: Int, pool: inout MaskPool, _ write: MaskWrite = .store
    ) {
        switch self {
        case .constant(let flag):
            switch (write, flag) {
            case (.store, _), (.and, false), (.or, true): mask.update(repeating: flag ? 1 : 0, count: count)
            case (.and, true), (.or, false): break
            }
        case .and, .or, .not:
            guard case .store = write else {
                // A connective combined into `mask`: computed apart, then combined.
                let own = pool.take()
                defer { pool.give(own) }
                fill(own, start: start, count: count, pool: &pool)
                write.apply(mask, count) { own[$0] }
                return
            }
            switch self {
            case .and(let left, let right):
                left.fill(mask, start: start, count: count, pool: &pool)
                right.fill(mask, start: start, count: count, pool: &pool, .and)
            case .or(let left, let right):
                left.fill(mask, start: start, count: count, pool: &pool)
                right.fill(mask, start: start, count: count, pool: &pool, .or)
            case .not(let operand):
                operand.fill(mask, start: start, count: count, pool: &pool)
                for index in 0..<count { mask[index] ^= 1 }
            default:
                break
            }
        case .booleans(let values, let nils, let whenFalse, let whenTrue, let whenNil):
            let difference = whenFalse ^ whenTrue
            values.withUnsafeBufferPointer { values in
                nils.withUnsafeBufferPointer { nils in
                    guard let values = values.baseAddress.map({ $0 + start }),
                        let nils = nils.baseAddress.map({ $0 + start })
                    else { return }
                    write.apply(mask, count) { index in
                        let value = values[index]
                        let isNil = nils[index]
                        return (((value & difference) ^ whenFalse) & (isNil ^ 1)) | (whenNil & isNil)
                    }
                }
            }
        case .integers(let leaf):
            leaf.fill(mask, start: start, count: count, write)
        case .doubles(let leaf):
            leaf.fill(mask, start: start, count: count, write)
        case .codes(let codes, let table):
            codes.withUnsafeBufferPointer { codes in
                table.withUnsafeBufferPointer { table in
                    guard let codes = codes.baseAddress.map({ $0 + start }), let table = table.baseAddress else {
                        return
                    }
                    write.apply(mask, count) { index in table[Int(codes[index]) &+ 1] }
                }
            }
        case .nils(let nils, let whenNil, let otherwise):
            nils.withUnsafeBufferPointer { nils in
                guard let nils = nils.baseAddress.map({ $0 + start }) else { return }
                write.apply(mask, count) { index in
                    let isNil = nils[index]
                    return (otherwise & (isNil ^ 1)) | (whenNil & isNil)
                }
            }
        }
    }

    /// Sets in `words` the bits of the rows whose mask byte is 1 (`start` a multiple of 64):
    /// eight bytes at a time, gathered into eight bits by one multiplication.
    static func pack(
        _ mask: UnsafeMutablePointer<UInt8>, start: Int, count: Int, into words: UnsafeMutablePointer<UInt64>
    ) {
        let raw = UnsafeRawPointer(mask)
        var index = 0
        while index + 8 <= count {
            let bytes = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Byte k (0 or 1) lands on bit 56 + k, and no two partial products meet.
            let bits = (bytes &* 0x0102_0408_1020_4080) >> 56
            let row = start + index
            words[row >> 6] |= bits << UInt64(row & 63)
            index += 8
        }
        while index < count {
            let row = start + index
            words[row >> 6] |= UInt64(mask[index]) << UInt64(row & 63)
            index += 1
        }
    }
}

/// How a mask loop writes its answers: storing them, or combining them with the mask's.
enum MaskWrite {
    case store
    case and
    case or

    /// Runs one straight loop over rows `0 ..< count` (one per mode, so none branches per row).
    @inline(__always)
    func apply(_ mask: UnsafeMutablePointer<UInt8>, _ count: Int, _ value: (Int) -> UInt8) {
        switch self {
        case .store: for index in 0..<count { mask[index] = value(index) }
        case .and: for index in 0..<count { mask[index] &= value(index) }
        case .or: for index in 0..<count { mask[index] |= value(index) }
        }
    }
}
