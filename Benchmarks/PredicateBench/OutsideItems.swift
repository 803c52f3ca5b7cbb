import PredicateSemantics
import PredicateValue

/// An item of someone else's making, as a sync engine that embeds the library would have it: a
/// plain struct of about 150 bytes, with the minimal ``KeyValueCoding`` conformance the
/// protocol asks for (a schema and `value(atSlot:)`), and nothing declared for the engines (no
/// stored fields, no scalars): what the VM meets when it runs on items and rules we did not pick.
struct OutsideItem: KeyValueCoding {
    var name: String
    var owner: String
    var documentSize: Int64
    var rank: Int64?
    var modified: Double
    var isUploaded: Bool
    var isShared: Bool
    var isTrashed: Bool
    var userInfo: [String: Value]
    var tags: [String]
    var parent: String
    var version: Int64

    static let schema = Schema(
        typeName: "OutsideItem",
        fields: [
            .init("name", .string), .init("owner", .string), .init("documentSize", .integer),
            .init("rank", .optional(.integer)), .init("modified", .date), .init("isUploaded", .bool),
            .init("isShared", .bool), .init("isTrashed", .bool), .init("userInfo", .dictionary(.any)),
            .init("tags", .array(.string)), .init("parent", .string), .init("version", .integer),
        ])
    var schema: Schema { OutsideItem.schema }

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(name)
        case 1: return .string(owner)
        case 2: return .int(documentSize)
        case 3: return rank.map(Value.int) ?? .nil
        case 4: return .date(secondsSinceReferenceDate: modified)
        case 5: return .bool(isUploaded)
        case 6: return .bool(isShared)
        case 7: return .bool(isTrashed)
        case 8: return .dictionary(userInfo)
        case 9: return .array(tags.map(Value.string))
        case 10: return .string(parent)
        case 11: return .int(version)
        default: return .nil
        }
    }

    /// Deterministic items: a third of the names not ASCII, a fifth of the ranks nil, `userInfo`
    /// ranks that are integers, doubles or strings.
    static func generate(_ count: Int) -> [OutsideItem] {
        let stems = ["report", "Résumé", "IMG_0042", "notes", "Übersicht", "写真", "scan", "invoice", "draft"]
        let extensions = ["pdf", "PDF", "jpg", "txt", "docx"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { index in
            let rank: Value =
                switch next(3) {
                case 0: .int(Int64(next(6)))
                case 1: .double(Double(next(60)) / 10)
                default: .string("high")
                }
            return OutsideItem(
                name: "\(stems[next(stems.count)]) \(index).\(extensions[next(extensions.count)])",
                owner: next(4) == 0 ? "me" : "someone", documentSize: Int64(next(100_000_000)),
                rank: next(5) == 0 ? nil : Int64(next(10)), modified: Double(next(1_000_000_000)),
                isUploaded: next(3) != 0, isShared: next(4) == 0, isTrashed: next(10) == 0,
                userInfo: ["rank": rank, "color": .string(next(2) == 0 ? "red" : "blue")], tags: ["a", "b"],
                parent: "folder \(next(100))", version: Int64(next(1_000)))
        }
    }
}

/// The same item conforming the way the README shows, through a table of key paths
/// (``Queryable``), from which the library derives where each field is stored: the fast path a
/// user gets without writing anything else.
struct OutsideKeyPathItem: Queryable {
    var name: String
    var owner: String
    var documentSize: Int64
    var rank: Int64?
    var isUploaded: Bool
    var isShared: Bool
    var isTrashed: Bool
    var userInfo: [String: Value]
    var tags: [String]
    var parent: String
    var version: Int64

    static let queryKeyPaths: KeyPathTable<OutsideKeyPathItem> = [
        "name": \.name, "owner": \.owner, "documentSize": \.documentSize, "rank": \.rank, "isUploaded": \.isUploaded,
        "isShared": \.isShared, "isTrashed": \.isTrashed, "userInfo": \.userInfo, "tags": \.tags, "parent": \.parent,
        "version": \.version,
    ]

    init(_ item: OutsideItem) {
        name = item.name
        owner = item.owner
        documentSize = item.documentSize
        rank = item.rank
        isUploaded = item.isUploaded
        isShared = item.isShared
        isTrashed = item.isTrashed
        userInfo = item.userInfo
        tags = item.tags
        parent = item.parent
        version = item.version
    }
}

/// What a skilled engineer writes when rules must be interpreted without this library: an enum
/// syntax tree over the item's own fields, walked recursively on a small dynamically typed value
/// (``OutsideTree/walk(_:_:)``), or compiled once into nested closures
/// (``OutsideTree/compile(_:)``). Both read fields with a `switch` straight from the struct, and
/// use the library's string kernel for string operators, as the other baselines do.
indirect enum OutsideTree: Sendable {
    /// A field of ``OutsideItem``; `userInfo(key)` is one key of its dictionary.
    enum Field: Sendable {
        case name, owner, documentSize, rank, isUploaded, isShared, isTrashed
        case userInfo(String)
    }

    /// The values the walker computes with.
    enum Cell: Sendable {
        case none
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        case other

        /// A number as a double, for comparisons across integers and doubles.
        var number: Double? {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            case .bool(let value): return value ? 1 : 0
            default: return nil
            }
        }
    }

    enum Order: Sendable { case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual }

    case field(Field)
    case constant(Cell)
    case compare(OutsideTree, Order, OutsideTree)
    case between(OutsideTree, Double, Double)
    case endsWith(OutsideTree, StringMatcher)
    case and(OutsideTree, OutsideTree)
    case or(OutsideTree, OutsideTree)
    case not(OutsideTree)

    static func read(_ field: Field, _ item: UnsafePointer<OutsideItem>) -> Cell {
        switch field {
        case .name: return .string(item.pointee.name)
        case .owner: return .string(item.pointee.owner)
        case .documentSize: return .int(item.pointee.documentSize)
        case .rank: return item.pointee.rank.map(Cell.int) ?? .none
        case .isUploaded: return .bool(item.pointee.isUploaded)
        case .isShared: return .bool(item.pointee.isShared)
        case .isTrashed: return .bool(item.pointee.isTrashed)
        case .userInfo(let key):
            switch item.pointee.userInfo[key] {
            case .bool(let value)?: return .bool(value)
            case .int(let value)?: return .int(value)
            case .double(let value)?: return .double(value)
            case .string(let value)?: return .string(value)
            case nil, .nil?, .null?: return .none
            default: return .other
            }
        }
    }

    static func holds(_ left: Cell, _ order: Order, _ right: Cell) -> Bool {
        let leftIsNone = if case .none = left { true } else { false }
        let rightIsNone = if case .none = right { true } else { false }
        if leftIsNone || rightIsNone {
            switch order {
            case .equal: return leftIsNone && rightIsNone
            case .notEqual: return leftIsNone != rightIsNone
            default: return false
            }
        }
        if case .string(let lhs) = left, case .string(let rhs) = right {
            switch order {
            case .equal: return lhs == rhs
            case .notEqual: return lhs != rhs
            default: return false
            }
        }
        guard let lhs = left.number, let rhs = right.number else { return order == .notEqual }
        switch order {
        case .less: return lhs < rhs
        case .lessOrEqual: return lhs <= rhs
        case .greater: return lhs > rhs
        case .greaterOrEqual: return lhs >= rhs
        case .equal: return lhs == rhs
        case .notEqual: return lhs != rhs
        }
    }

    /// The tree-walker: one recursive `switch` per node, per item.
    static func walk(_ node: OutsideTree, _ item: UnsafePointer<OutsideItem>) -> Cell {
        switch node {
        case .field(let field): return read(field, item)
        case .constant(let cell): return cell
        case .compare(let left, let order, let right): return .bool(holds(walk(left, item), order, walk(right, item)))
        case .between(let operand, let low, let high):
            guard let number = walk(operand, item).number else { return .bool(false) }
            return .bool(low <= number && number <= high)
        case .endsWith(let operand, let suffix):
            guard case .string(let text) = walk(operand, item) else { return .bool(false) }
            return .bool(suffix.isSuffix(of: text))
        case .and(let left, let right): return .bool(test(left, item) && test(right, item))
        case .or(let left, let right): return .bool(test(left, item) || test(right, item))
        case .not(let operand): return .bool(!test(operand, item))
        }
    }

    static func test(_ node: OutsideTree, _ item: UnsafePointer<OutsideItem>) -> Bool {
        if case .bool(true) = walk(node, item) { return true }
        return false
    }

    typealias Closure = (UnsafePointer<OutsideItem>) -> Cell

    /// The closure compiler: each node becomes a closure calling its children's, built once.
    static func compile(_ node: OutsideTree) -> Closure {
        switch node {
        case .field(let field): return { read(field, $0) }
        case .constant(let cell): return { _ in cell }
        case .compare(let left, let order, let right):
            let (lhs, rhs) = (compile(left), compile(right))
            return { .bool(holds(lhs($0), order, rhs($0))) }
        case .between(let operand, let low, let high):
            let value = compile(operand)
            return { item in
                guard let number = value(item).number else { return .bool(false) }
                return .bool(low <= number && number <= high)
            }
        case .endsWith(let operand, let suffix):
            let value = compile(operand)
            return { item in
                guard case .string(let text) = value(item) else { return .bool(false) }
                return .bool(suffix.isSuffix(of: text))
            }
        case .and(let left, let right):
            let (lhs, rhs) = (compileTest(left), compileTest(right))
            return { .bool(lhs($0) && rhs($0)) }
        case .or(let left, let right):
            let (lhs, rhs) = (compileTest(left), compileTest(right))
            return { .bool(lhs($0) || rhs($0)) }
        case .not(let operand):
            let test = compileTest(operand)
            return { .bool(!test($0)) }
        }
    }

    static func compileTest(_ node: OutsideTree) -> (UnsafePointer<OutsideItem>) -> Bool {
        let closure = compile(node)
        return { item in
            if case .bool(true) = closure(item) { return true }
            return false
        }
    }
}

/// A rule over ``OutsideItem``s: its text for the VM, its tree for the walker and the closure
/// compiler, and the loop a skilled engineer writes by hand.
struct OutsideRule: Sendable {
    let name: String
    let rule: String
    let tree: OutsideTree
    let native: any OutsideNativeTest.Type

    /// The shapes the issue names: `BETWEEN`, a `userInfo` key of mixed types, a mixed `OR`,
    /// strings; and a plain Boolean.
    static let all: [OutsideRule] = [
        OutsideRule(
            name: "bool", rule: "isUploaded == YES",
            tree: .compare(.field(.isUploaded), .equal, .constant(.bool(true))), native: UploadedTest.self),
        OutsideRule(
            name: "between", rule: "documentSize BETWEEN {1000000, 50000000}",
            tree: .between(.field(.documentSize), 1_000_000, 50_000_000), native: BetweenTest.self),
        OutsideRule(
            name: "userInfo key", rule: "userInfo.rank >= 3",
            tree: .compare(.field(.userInfo("rank")), .greaterOrEqual, .constant(.int(3))), native: RankTest.self),
        OutsideRule(
            name: "mixed or",
            rule: "(isShared == YES AND isTrashed == NO) OR (rank != nil AND documentSize < 5000000)",
            tree: .or(
                .and(
                    .compare(.field(.isShared), .equal, .constant(.bool(true))),
                    .compare(.field(.isTrashed), .equal, .constant(.bool(false)))),
                .and(
                    .compare(.field(.rank), .notEqual, .constant(.none)),
                    .compare(.field(.documentSize), .less, .constant(.int(5_000_000))))),
            native: MixedOrTest.self),
        OutsideRule(
            name: "suffix [c]", rule: "name ENDSWITH[c] '.pdf'", tree: .endsWith(.field(.name), pdfSuffix),
            native: SuffixTest.self),
        OutsideRule(
            name: "string ==", rule: "owner == 'me' OR name == 'notes 7.txt'",
            tree: .or(
                .compare(.field(.owner), .equal, .constant(.string("me"))),
                .compare(.field(.name), .equal, .constant(.string("notes 7.txt")))),
            native: StringEqualTest.self),
    ]

    fileprivate static let pdfSuffix = StringMatcher(".pdf", options: .caseInsensitive)

    /// How many of the `count` items from `base` pass `test`: the loop the walker and the closure
    /// compiler run in, a function of its own so that the optimiser can specialise it for the
    /// closure it is given (the closure compiler's outermost closure then runs inline, as it does
    /// where a program compiles a rule and loops over items in one place).
    @inline(never)
    static func countMatches(
        _ test: (UnsafePointer<OutsideItem>) -> Bool, _ base: UnsafePointer<OutsideItem>, _ count: Int
    ) -> Int {
        // Summed rather than branched on: a branch per item would be mispredicted on half of
        // them (the answers are random), which costs more than most rules.
        (0..<count).reduce(0) { $0 + (test(base + $1) ? 1 : 0) }
    }
}

/// A rule written by hand over the struct's own fields.
protocol OutsideNativeTest: Sendable {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool
    /// How many of the `count` items from `base` match (a requirement, so that each rule's
    /// conformance has its own loop).
    static func count(_ base: UnsafePointer<OutsideItem>, _ count: Int) -> Int
}

extension OutsideNativeTest {
    /// How many of the `count` items from `base` match: the loop a skilled engineer writes, one
    /// function per rule with the test inline in it.
    static func count(_ base: UnsafePointer<OutsideItem>, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 + (Self.matches(base + $1) ? 1 : 0) }
    }
}

enum UploadedTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool { item.pointee.isUploaded }
}

enum BetweenTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool {
        (1_000_000...50_000_000).contains(item.pointee.documentSize)
    }
}

enum RankTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool {
        switch item.pointee.userInfo["rank"] {
        case .int(let rank)?: return rank >= 3
        case .double(let rank)?: return rank >= 3
        default: return false
        }
    }
}

enum MixedOrTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool {
        (item.pointee.isShared && !item.pointee.isTrashed)
            || (item.pointee.rank != nil && item.pointee.documentSize < 5_000_000)
    }
}

enum SuffixTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool {
        OutsideRule.pdfSuffix.isSuffix(of: item.pointee.name)
    }
}

enum StringEqualTest: OutsideNativeTest {
    static func matches(_ item: UnsafePointer<OutsideItem>) -> Bool {
        item.pointee.owner == "me" || item.pointee.name == "notes 7.txt"
    }
}
