import PredicateSyntax
import PredicateValue

/// What an expression is meant to evaluate to. The generator aims for the sort a position needs
/// most of the time and misses on purpose now and then, so that type errors happen too.
enum Sort: CaseIterable {
    case number
    case string
    case bool
    case date
    case collection
    case any
}

/// What a `SUBQUERY` variable holds while its predicate runs.
enum ElementKind {
    /// A File Provider item.
    case item
    /// A dictionary like an element of `items`.
    case record
    /// A value of one sort.
    case scalar(Sort)
}

/// Random well-formed rules (syntax trees) over the vocabulary of ``ObjectGenerator``.
struct RuleGenerator {
    var rng: SplitMix64
    let shape: ObjectShape
    /// Whether `now()` may appear (only ever as an operand of a comparison, compared with dates
    /// far from today): not in a standalone expression, whose value would differ from one engine
    /// to the next.
    var allowsClock = true
    /// A calm rule rarely aims at errors on purpose (unbound variables, unknown keys, operands of
    /// the wrong kind), so that a run has plenty of true and false answers; the others do often.
    var calm = false
    /// The `SUBQUERY` variables in scope, innermost last.
    private var scope: [(name: String, kind: ElementKind)] = []

    init(rng: SplitMix64, shape: ObjectShape) {
        self.rng = rng
        self.shape = shape
    }

    // MARK: - Tree helpers

    private static func node(_ kind: ExpressionKind) -> ExpressionNode { ExpressionNode(kind) }
    private static func constant(_ value: Value) -> ExpressionNode { ExpressionNode(.constant(value)) }
    private static func variable(_ name: String) -> ExpressionNode { ExpressionNode(.variable(name)) }
    private static func call(_ selector: String, _ arguments: ExpressionNode...) -> ExpressionNode {
        ExpressionNode(.function(selector, arguments))
    }
    private static func path(_ base: ExpressionNode, _ keys: [String]) -> ExpressionNode {
        ExpressionNode(.keyPath(base: base, components: keys.map { KeyComponent.key($0) }))
    }
    private static func selfPath(_ keys: [String]) -> ExpressionNode { path(ExpressionNode(.evaluatedObject), keys) }

    // MARK: - Vocabulary

    static let likePatterns = [
        "*", "a*", "*.txt", "*.TXT", "a?c", "?", "photo.*", "\\*", "x\\*y", "ab\\", "", "*é*", "NAIVE", "[a]*",
        "*.jp*g", "*e*",
    ]
    static let regularExpressions = [
        ".*", "[a-z]+", "^a.*$", ".*\\.txt", "\\d+", "(", "a{2", "[", "(?i)abc", "", "photo\\..*", "\\w+\\.\\w+",
        ".*é.*", "[[:alpha:]]+", "*a", "ab|AB", "(?<n>x)",
    ]
    static let typeIdentifiers = [
        "public.item", "public.data", "public.content", "public.image", "public.jpeg", "public.folder",
        "public.directory", "public.text", "public.plain-text", "com.adobe.pdf", "public.archive",
        "public.zip-archive", "public.python-script", "com.example.custom", "dyn.ah62d4rv4ge8", "PUBLIC.JPEG",
    ]
    static let stringConstants = ObjectGenerator.strings + ["Photo", "*", "txt", ".txt", "A", "pro"]

    /// Keys of `SELF` for each sort, by shape.
    private func selfKeys(_ sort: Sort) -> [[String]] {
        if shape == .item { return RuleGenerator.itemKeys(sort) }
        switch (shape, sort) {
        case (.fileProvider, .number):
            return [
                ["fileproviderItems", "@count"], ["fileproviderItems", "@sum", "documentSize"],
                ["fileproviderItems", "@max", "capabilities"], ["fileproviderItems", "@avg", "documentSize"],
                ["fileproviderItems", "@min", "favoriteRank"],
            ]
        case (.fileProvider, .date): return [["fileproviderItems", "@max", "creationDate"]]
        case (.fileProvider, .collection):
            return [
                ["fileproviderItems"], ["fileproviderItems", "filename"], ["fileproviderItems", "documentSize"],
                ["fileproviderItems", "isUploaded"], ["fileproviderItems", "contentType", "identifier"],
                ["fileproviderItems", "userInfo", "rank"],
                ["fileproviderItems", "@distinctUnionOfObjects", "filename"],
                ["fileproviderItems", "userInfo"], ["fileproviderItems", "favoriteRank"],
            ]
        case (.fileProvider, .any):
            return [
                ["fileproviderItems", "uploadded"], ["fileProviderItems"], ["fileproviderItems", "contentType"],
                ["fileproviderItems", "@firstObject", "filename"], ["fileproviderItems", "@lastObject"],
            ]
        case (.fileProvider, _): return []
        case (.interaction, .number):
            return [["sourceItemsCount"], ["sourceItem", "documentSize"], ["destinationItem", "capabilities"]]
        case (.interaction, .string):
            return [
                ["action"], ["sourceItem", "filename"], ["destinationItem", "filename"], ["domainUserInfo", "plan"],
            ]
        case (.interaction, .bool):
            return [
                ["sourceItem", "isShared"], ["destinationItem", "isShared"],
                ["destinationItem", "isSharedByCurrentUser"], ["domainUserInfo", "com.example.flag"],
            ]
        case (.interaction, .date): return [["sourceItem", "creationDate"]]
        case (.interaction, .collection): return [["domainUserInfo", "tags"], ["domainUserInfo", "@allKeys"]]
        case (.interaction, .any):
            return [["sourceItem"], ["destinationItem", "uploadded"], ["domainUserInfo"], ["sourceItem", "self"]]
        case (_, .number): return [["i"], ["d"], ["u"], ["m", "x"], ["items", "@count"], ["items", "@sum", "i"]]
        case (_, .string): return [["s"], ["name"], ["m", "y.z"], ["m", "y", "z"], ["items", "@max", "s"]]
        case (_, .bool): return [["b"], ["m", "com.example.bit"], ["m", "com", "example", "bit"]]
        case (_, .date): return [["t"], ["items", "@min", "t"]]
        case (_, .collection):
            return [
                ["a"], ["ai"], ["as"], ["items"], ["items", "s"], ["items", "i"], ["items", "b"], ["m", "@allValues"],
                ["a", "@distinctUnionOfObjects", "self"], ["items", "@unionOfArrays", "tags"], ["items", "tags"],
            ]
        case (_, .any):
            return [
                ["zz"], ["m"], ["n"], ["s", "zz"], ["items", "zz"], ["i", "foo"], ["a", "@bogus", "x"], ["self"],
            ]
        }
    }

    /// Keys of a File Provider item for each sort.
    private static func itemKeys(_ sort: Sort) -> [[String]] {
        switch sort {
        case .number:
            return [
                ["documentSize"], ["capabilities"], ["childItemCount"], ["favoriteRank"], ["fileSystemFlags"],
                ["contentPolicy"], ["userInfo", "rank"], ["uploadingError", "code"], ["tagData", "length"],
            ]
        case .string:
            return [
                ["filename"], ["itemIdentifier"], ["parentItemIdentifier"], ["contentType", "identifier"],
                ["typeIdentifier"], ["symlinkTargetPath"], ["ownerNameComponents", "givenName"], ["userInfo", "label"],
                ["filename", "pathExtension"], ["uploadingError", "domain"],
                ["contentType", "preferredFilenameExtension"],
            ]
        case .bool:
            return [
                ["isUploaded"], ["uploaded"], ["isDownloaded"], ["trashed"], ["isShared"], ["isSharedByCurrentUser"],
                ["mostRecentVersionDownloaded"], ["userInfo", "com.example.testBit"],
                ["userInfo", "com", "example", "testBit"], ["contentType", "isDeclared"],
                ["resolvedUserInfo", "a.inherited"], ["inheritedUserInfo", "b.inherited"], ["userInfo", "locked"],
            ]
        case .date: return [["creationDate"], ["contentModificationDate"], ["lastUsedDate"]]
        case .collection:
            return [["userInfo", "tags"], ["userInfo", "@allValues"], ["extendedAttributes", "@allKeys"]]
        case .any:
            return [
                ["uploadded"], ["contentType"], ["tagData"], ["userInfo"], ["ownerNameComponents"], ["self"],
                ["typeAndCreator"], ["itemVersion", "contentVersion"], ["isUploaded", "foo"], ["filename", "zz"],
                ["extendedAttributes", "com.example.xattr"],
            ]
        }
    }

    /// Keys of an `items` element.
    private static func recordKeys(_ sort: Sort) -> [[String]] {
        switch sort {
        case .number: return [["i"], ["d"]]
        case .string: return [["s"]]
        case .bool: return [["b"]]
        case .date: return [["t"]]
        case .collection: return [["tags"]]
        case .any: return [["zz"], ["s", "zz"], ["self"]]
        }
    }

    // MARK: - Predicates

    mutating func predicate(_ depth: Int) -> PredicateNode {
        if depth <= 0 { return comparison(0) }
        switch rng.weighted([10, 4, 4, 2, 1, 2]) {
        case 0: return comparison(depth)
        case 1, 2:
            var operands: [PredicateNode] = []
            for _ in 0..<rng.int(in: 2...3) { operands.append(predicate(depth - 1)) }
            return PredicateNode(rng.chance(50) ? .and(operands) : .or(operands))
        case 3: return PredicateNode(.not(predicate(depth - 1)))
        case 4: return PredicateNode(.constant(rng.chance(50)))
        default: return assignThenUse(depth - 1)
        }
    }

    /// An assignment and a read of the same variable: in the same comparison, where the read sees
    /// the assigned value, or in the next one, where it must not (SPEC §4.9.6). Objects of another
    /// kind are assigned to `$it` (bound to an item), so that a rule bound to the item's schema
    /// reads a field of something else.
    private mutating func assignThenUse(_ depth: Int) -> PredicateNode {
        let name = rng.pick(["v", "w", "x", "it", "it", "arr"])
        let sort = rng.pick([Sort.number, .string, .collection, .any])
        let value: ExpressionNode
        var keys: [[String]] = [["self"], ["@count"], ["length"], ["description"]]
        if sort == .any {
            let base = item(depth)
            let member = rng.pick([["contentType"], ["uploadingError"], ["ownerNameComponents"], ["itemVersion"], []])
            value = member.isEmpty ? base : RuleGenerator.path(base, member)
            keys = [
                ["identifier"], ["filename"], ["code"], ["givenName"], ["contentVersion"], ["isUploaded"],
                ["documentSize"], ["preferredFilenameExtension"], ["domain"],
            ]
        } else {
            value = expression(sort, depth)
        }
        let assigned = RuleGenerator.node(.assignment(variable: name, value))
        let first: ExpressionNode
        switch rng.below(4) {
        case 0: first = assigned
        case 1: first = RuleGenerator.path(assigned, rng.pick(keys))
        case 2: first = RuleGenerator.call("noindex:", assigned)
        default: first = RuleGenerator.node(.aggregate([assigned]))
        }
        let read =
            rng.chance(60)
            ? RuleGenerator.path(RuleGenerator.variable(name), rng.pick(keys)) : RuleGenerator.variable(name)
        if rng.chance(50) {
            return PredicateNode(.comparison(Comparison(first, rng.pick([.notEqual, .equal]), read)))
        }
        let assigning = PredicateNode(.comparison(Comparison(first, .notEqual, expression(.any, depth))))
        let reading = PredicateNode(
            .comparison(Comparison(read, rng.pick([.equal, .notEqual]), expression(sort, 0))))
        let operands = [assigning, reading]
        return PredicateNode(rng.chance(60) ? .and(operands) : .or(operands))
    }

    private mutating func options(for op: ComparisonOperator) -> ComparisonOptions {
        guard rng.chance(op.usesOptions ? 35 : 8) else { return [] }
        var options: ComparisonOptions = []
        for (_, option) in ComparisonOptions.letters where rng.chance(35) { options.insert(option) }
        return options.isEmpty ? .caseInsensitive : options
    }

    private mutating func orderedSort() -> Sort { rng.pick([.number, .number, .string, .date]) }

    /// Mostly `sort`; sometimes any other sort, to provoke type errors.
    private mutating func mostly(_ sort: Sort, _ percent: Int = 88) -> Sort {
        rng.chance(calm ? 98 : percent) ? sort : rng.pick(Sort.allCases)
    }

    mutating func comparison(_ depth: Int) -> PredicateNode {
        if rng.chance(20) { return quantified(depth) }
        if rng.chance(14) { return counted(depth) }
        if allowsClock && rng.chance(2) {
            // `now()` only as an operand of a comparison: its value never reaches a result or a message.
            let op = rng.pick([ComparisonOperator.less, .greater, .lessOrEqual, .greaterOrEqual, .notEqual])
            return PredicateNode(.comparison(Comparison(RuleGenerator.call("now"), op, date(depth))))
        }
        let usual = ComparisonOperator.allCases.filter { $0 != .tokenMatches } + [.equal, .notEqual, .less]
        let op = !calm && rng.chance(1) ? .tokenMatches : rng.pick(usual)
        let lhs: ExpressionNode
        let rhs: ExpressionNode
        switch op {
        case .equal, .notEqual:
            let sort = rng.pick(Sort.allCases)
            lhs = expression(sort, depth)
            rhs = expression(mostly(sort, 85), depth)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let sort = orderedSort()
            lhs = expression(mostly(sort, 92), depth)
            rhs = expression(mostly(sort), depth)
        case .between:
            let sort = rng.pick([Sort.number, .number, .date, .string])
            lhs = expression(sort, depth)
            rhs = bounds(sort, depth)
        case .in, .contains:
            let (element, container) = membership(depth)
            (lhs, rhs) = op == .in ? (element, container) : (container, element)
        case .beginsWith, .endsWith:
            lhs = expression(mostly(.string, 92), depth)
            rhs = expression(mostly(.string, 92), depth)
        case .like:
            lhs = expression(mostly(.string, 92), depth)
            rhs = rng.chance(85) ? RuleGenerator.constant(.string(rng.pick(RuleGenerator.likePatterns))) : string(depth)
        case .matches:
            lhs = expression(mostly(.string, 92), depth)
            rhs =
                rng.chance(85)
                ? RuleGenerator.constant(.string(rng.pick(RuleGenerator.regularExpressions))) : string(depth)
        case .utiConformsTo, .utiEquals:
            lhs = typeSubject(depth)
            rhs = rng.chance(90) ? RuleGenerator.constant(.string(rng.pick(RuleGenerator.typeIdentifiers))) : string(0)
        case .tokenMatches:
            lhs = string(depth)
            rhs = string(depth)
        }
        return PredicateNode(.comparison(Comparison(lhs, op, rhs, options: options(for: op))))
    }

    /// The File Provider idiom `SUBQUERY(…).@count > 0`, or `== fileproviderItems.@count`.
    private mutating func counted(_ depth: Int) -> PredicateNode {
        let count = RuleGenerator.path(subquery(max(depth, 1)), ["@count"])
        let op = rng.pick([ComparisonOperator.greater, .equal, .greaterOrEqual, .less, .notEqual])
        let rhs: ExpressionNode
        switch rng.below(4) {
        case 0: rhs = number(depth)
        case 1: rhs = collection(depth).keyPathAppending("@count")
        default: rhs = RuleGenerator.constant(.int(Int64(rng.below(3))))
        }
        return PredicateNode(.comparison(Comparison(count, op, rhs)))
    }

    /// `x BETWEEN {lo, hi}`, mostly; sometimes one or three bounds or no array at all.
    private mutating func bounds(_ sort: Sort, _ depth: Int) -> ExpressionNode {
        switch rng.weighted(calm ? [40, 1, 1, 1] : [14, 2, 2, 2]) {
        case 0: return RuleGenerator.node(.aggregate([expression(sort, depth), expression(mostly(sort), depth)]))
        case 1: return RuleGenerator.node(.aggregate([expression(sort, depth)]))
        case 2:
            return RuleGenerator.node(
                .aggregate([expression(sort, 0), expression(sort, 0), expression(sort, 0)]))
        default: return expression(.any, depth)
        }
    }

    /// An element and a container for `IN`/`CONTAINS`: a collection, a string, a dictionary or
    /// something that is none of these.
    private mutating func membership(_ depth: Int) -> (ExpressionNode, ExpressionNode) {
        switch rng.weighted(calm ? [12, 6, 2, 0] : [12, 6, 2, 1]) {
        case 0:
            let sort = rng.pick([Sort.number, .string, .string, .bool, .any])
            return (expression(sort, depth), collection(of: sort, depth))
        case 1: return (string(depth), string(depth))
        case 2: return (expression(.any, depth), RuleGenerator.selfPath(rng.pick([["m"], ["domainUserInfo"]])))
        default: return (expression(.any, depth), expression(.any, depth))
        }
    }

    /// The left operand of a UTI operator: mostly an identifier string, sometimes the type object
    /// itself (an error) or something else.
    private mutating func typeSubject(_ depth: Int) -> ExpressionNode {
        switch rng.weighted(calm ? [20, 1, 2, 3, 0] : [10, 3, 2, 3, 1]) {
        case 0: return RuleGenerator.path(item(depth), ["contentType", "identifier"])
        case 1: return RuleGenerator.path(item(depth), ["contentType"])
        case 2: return RuleGenerator.path(item(depth), ["typeIdentifier"])
        case 3: return RuleGenerator.constant(.string(rng.pick(RuleGenerator.typeIdentifiers)))
        default: return expression(.any, depth)
        }
    }

    /// `ANY`, `ALL` or `NONE` over a collection (or, sometimes, over something that is not one).
    private mutating func quantified(_ depth: Int) -> PredicateNode {
        let sort = rng.pick([Sort.number, .number, .string, .string, .bool, .any])
        let lhs = rng.chance(90) ? collection(of: sort, depth) : expression(.any, depth)
        let op: ComparisonOperator
        let rhs: ExpressionNode
        switch sort {
        case .number, .date:
            op = rng.pick([.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in])
            rhs =
                op == .between
                ? bounds(sort, depth) : op == .in ? collection(of: sort, depth) : expression(mostly(sort), depth)
        case .string:
            op = rng.pick([
                .equal, .notEqual, .beginsWith, .endsWith, .like, .matches, .contains, .in, .utiConformsTo, .less,
            ])
            switch op {
            case .like: rhs = RuleGenerator.constant(.string(rng.pick(RuleGenerator.likePatterns)))
            case .matches: rhs = RuleGenerator.constant(.string(rng.pick(RuleGenerator.regularExpressions)))
            case .utiConformsTo: rhs = RuleGenerator.constant(.string(rng.pick(RuleGenerator.typeIdentifiers)))
            case .in: rhs = rng.chance(50) ? collection(of: .string, depth) : string(depth)
            default: rhs = expression(mostly(.string), depth)
            }
        default:
            op = rng.pick([.equal, .notEqual])
            rhs = expression(mostly(sort), depth)
        }
        let comparison = Comparison(lhs, op, rhs, quantifier: rng.chance(55) ? .any : .all, options: options(for: op))
        if comparison.quantifier == .any && rng.chance(30) {
            return PredicateNode(.not(PredicateNode(.comparison(comparison))))
        }
        return PredicateNode(.comparison(comparison))
    }

    // MARK: - Expressions

    mutating func expression(_ sort: Sort, _ depth: Int) -> ExpressionNode {
        switch sort {
        case .number: return number(depth)
        case .string: return string(depth)
        case .bool: return boolean(depth)
        case .date: return date(depth)
        case .collection: return collection(depth)
        case .any: return anything(depth)
        }
    }

    /// A key path, variable or binding that holds a value of `sort`, from the innermost
    /// `SUBQUERY` variable (preferred), the other variables in scope, or `SELF`.
    private mutating func keyLeaf(_ sort: Sort) -> ExpressionNode? {
        var candidates: [ExpressionNode] = []
        for (position, entry) in scope.enumerated() {
            let weight = position == scope.count - 1 ? 4 : 1
            let base = RuleGenerator.variable(entry.name)
            var found: [ExpressionNode] = []
            switch entry.kind {
            case .item: found = RuleGenerator.itemKeys(sort).map { RuleGenerator.path(base, $0) }
            case .record: found = RuleGenerator.recordKeys(sort).map { RuleGenerator.path(base, $0) }
            case .scalar(let held): if held == sort || held == .any || sort == .any { found = [base] }
            }
            for _ in 0..<weight { candidates += found }
        }
        if !scope.isEmpty && !candidates.isEmpty && rng.chance(75) { return rng.pick(candidates) }
        candidates += selfKeys(sort).map { RuleGenerator.selfPath($0) }
        if case .plain = shape, sort == .any || rng.chance(10) {
            candidates.append(
                RuleGenerator.node(.keyPath(base: ExpressionNode(.evaluatedObject), components: [.variable("k")])))
        }
        if shape != .plain, shape != .other, sort != .collection, rng.chance(40) {
            let keys = RuleGenerator.itemKeys(sort)
            if !keys.isEmpty { candidates.append(RuleGenerator.path(item(0), rng.pick(keys))) }
        }
        return candidates.isEmpty ? nil : rng.pick(candidates)
    }

    /// A variable reference: bound by the harness (`$x`, `$s`, `$arr`, `$n`), assigned (`$v`,
    /// `$w`) or never bound.
    private mutating func variableLeaf(_ sort: Sort) -> ExpressionNode {
        let names: [String]
        switch sort {
        case .number: names = ["x", "x", "x", "x", "v"]
        case .string: names = ["s", "s", "s", "s", "x", "w"]
        case .collection: names = ["arr", "arr", "arr", "arr", "v"]
        default: names = ["x", "s", "arr", "n", "x", "s", "arr", "it", "v", "unbound"]
        }
        if calm { return RuleGenerator.variable(rng.pick(names.filter { !["v", "w", "unbound"].contains($0) })) }
        return RuleGenerator.variable(rng.pick(names))
    }

    /// An expression that holds a File Provider item (or, on a plain object, a record).
    private mutating func item(_ depth: Int) -> ExpressionNode {
        let variables = scope.filter {
            if case .item = $0.kind { return true }
            if case .record = $0.kind { return true }
            return false
        }
        if let innermost = variables.last, rng.chance(85) {
            return RuleGenerator.variable(rng.chance(80) ? innermost.name : rng.pick(variables).name)
        }
        if rng.chance(12) { return RuleGenerator.variable("it") }
        switch shape {
        case .fileProvider:
            let items = RuleGenerator.selfPath(["fileproviderItems"])
            switch rng.below(5) {
            case 0: return RuleGenerator.node(.index(items, .first))
            case 1: return RuleGenerator.node(.index(items, .last))
            case 2: return RuleGenerator.selfPath(["fileproviderItems", "@lastObject"])
            default:
                let index =
                    depth > 0 && rng.chance(20) ? number(depth - 1) : RuleGenerator.constant(.int(Int64(rng.below(2))))
                return RuleGenerator.node(.index(items, .expression(index)))
            }
        case .interaction:
            return RuleGenerator.selfPath([rng.pick(["sourceItem", "destinationItem", "sourceItem"])])
        case .item:
            return RuleGenerator.node(.evaluatedObject)
        case .plain, .other:
            let items = RuleGenerator.selfPath(["items"])
            switch rng.below(4) {
            case 0: return RuleGenerator.node(.index(items, .first))
            case 1: return RuleGenerator.node(.index(items, .last))
            case 2: return RuleGenerator.node(.evaluatedObject)
            default:
                return RuleGenerator.node(.index(items, .expression(RuleGenerator.constant(.int(Int64(rng.below(2)))))))
            }
        }
    }

    /// A key of an item expression: `fileproviderItems[0].documentSize`.
    private mutating func itemKey(_ sort: Sort, _ depth: Int) -> ExpressionNode {
        let base = item(depth)
        if rng.chance(4) { return RuleGenerator.node(.keyPath(base: base, components: [.variable("k")])) }
        let isRecord = (shape == .plain || shape == .other) && base.kind != .variable("it")
        let keys = isRecord ? RuleGenerator.recordKeys(sort) : RuleGenerator.itemKeys(sort)
        return RuleGenerator.path(base, rng.pick(keys))
    }

    private mutating func leaf(_ sort: Sort, constant: Value) -> ExpressionNode {
        switch rng.weighted([8, 9, 2]) {
        case 0: return RuleGenerator.constant(constant)
        case 1: return keyLeaf(sort) ?? RuleGenerator.constant(constant)
        default: return variableLeaf(sort)
        }
    }

    private mutating func intConstant() -> Value {
        switch rng.below(20) {
        case 0: return .int(Int64.max)
        case 1: return .uint(UInt64.max)
        case 2: return .int(rng.pick([1_000_000, 5_000_000_000]))
        default: return .int(rng.pick([0, 1, 2, 3, 5, 7, 10, 42, 100, 64, 8, 255]))
        }
    }

    private mutating func numberConstant() -> Value {
        rng.chance(70) ? intConstant() : .double(rng.pick([0.5, 1.5, 2.0, 2.25, 3.0, 1e10, 0.1, 7.75, 1e300]))
    }

    mutating func number(_ depth: Int) -> ExpressionNode {
        if depth <= 0 || rng.chance(30) {
            return leaf(.number, constant: numberConstant())
        }
        let d = depth - 1
        switch rng.weighted([24, 10, 10, 4, 10, 3, 8, 6, 5, 4, 4, 4, 6, 3, 3, 4]) {
        case 0:
            let selector = rng.pick(["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "raise:toPower:"])
            return RuleGenerator.call(selector, expression(mostly(.number, 90), d), expression(mostly(.number, 90), d))
        case 1:
            let selector = rng.pick([
                "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
            ])
            return RuleGenerator.call(selector, expression(mostly(.number), d), rng.chance(70) ? small() : number(d))
        case 2:
            let selector = rng.pick([
                "abs:", "sqrt:", "floor:", "ceiling:", "trunc:", "ln:", "log:", "exp:", "onesComplement:", "noindex:",
            ])
            return RuleGenerator.call(selector, expression(mostly(.number), d))
        case 3: return RuleGenerator.call("modulus:by:", number(d), rng.chance(70) ? small() : number(d))
        case 4:
            let selector = rng.pick(["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"])
            return RuleGenerator.call(selector, rng.chance(85) ? collection(of: .number, d) : expression(.any, d))
        case 5: return RuleGenerator.call("length:", expression(mostly(.string), d))
        case 6:
            let base = collection(d)
            switch rng.below(3) {
            case 0: return RuleGenerator.path(base, ["@count"])
            case 1: return RuleGenerator.node(.index(base, .size))
            default: return RuleGenerator.node(.invoke(receiver: base, selector: "count", arguments: []))
            }
        case 7:
            let op = rng.pick(["@sum", "@avg", "@min", "@max", "@count"])
            switch shape {
            case .fileProvider:
                return RuleGenerator.selfPath(
                    ["fileproviderItems", op, rng.pick(["documentSize", "capabilities", "favoriteRank", "filename"])])
            default:
                return RuleGenerator.path(
                    collection(of: .any, d), [op, rng.pick(["self", "i", "d", "length", "@count"])])
            }
        case 8: return RuleGenerator.node(.ternary(predicate(d), number(d), expression(mostly(.number), d)))
        case 9:
            let text = rng.pick(["12", "0x1F", "010", "1.5", "abc", " 7", "1e3", ""])
            return RuleGenerator.node(
                .cast(
                    rng.chance(75) ? RuleGenerator.constant(.string(text)) : expression(.any, d),
                    RuleGenerator.constant(.string(rng.pick(["NSNumber", "NSNumber", "NSDecimalNumber"])))))
        case 10: return RuleGenerator.node(.assignment(variable: rng.pick(["v", "x"]), number(d)))
        case 11:
            let index = rng.chance(75) ? RuleGenerator.constant(.int(Int64(rng.below(4)))) : number(d)
            return RuleGenerator.node(.index(collection(of: .number, d), .expression(index)))
        case 12: return RuleGenerator.path(subquery(d), ["@count"])
        case 13:
            return RuleGenerator.node(
                .invoke(
                    receiver: expression(mostly(.string, 60), d),
                    selector: rng.pick(["length", "intValue", "doubleValue", "integerValue"]), arguments: []))
        case 14:
            return RuleGenerator.path(
                expression(mostly(.string, 85), d), [rng.pick(["length", "intValue", "doubleValue", "integerValue"])])
        default:
            return itemKey(.number, d)
        }
    }

    private mutating func small() -> ExpressionNode {
        RuleGenerator.constant(.int(Int64(rng.pick([0, 1, 2, 3, 4, 63, -1]))))
    }

    mutating func string(_ depth: Int) -> ExpressionNode {
        if depth <= 0 || rng.chance(35) {
            return leaf(.string, constant: .string(rng.pick(RuleGenerator.stringConstants)))
        }
        let d = depth - 1
        switch rng.weighted([6, 3, 3, 4, 4, 3, 3, 3, 4]) {
        case 0:
            return RuleGenerator.call(
                rng.pick(["uppercase:", "lowercase:", "canonical:"]), expression(mostly(.string), d))
        case 1:
            return RuleGenerator.node(
                .invoke(
                    receiver: string(d), selector: "stringByAppendingString:",
                    arguments: [expression(mostly(.string), d)]))
        case 2:
            return RuleGenerator.node(
                .invoke(
                    receiver: expression(mostly(.string, 80), d),
                    selector: rng.pick(["lastPathComponent", "pathExtension", "uppercaseString", "stringValue"]),
                    arguments: []))
        case 3:
            return RuleGenerator.path(
                expression(mostly(.string, 80), d),
                [rng.pick(["uppercaseString", "lowercaseString", "pathExtension", "lastPathComponent", "description"])])
        case 4:
            return RuleGenerator.node(
                .cast(
                    expression(rng.pick([.number, .date, .bool, .string, .any]), d),
                    RuleGenerator.constant(.string("NSString"))))
        case 5: return RuleGenerator.node(.ternary(predicate(d), string(d), expression(mostly(.string), d)))
        case 6:
            let spec: IndexSpec =
                rng.chance(60)
                ? rng.pick([.first, .last]) : .expression(RuleGenerator.constant(.int(Int64(rng.below(3)))))
            return RuleGenerator.node(.index(collection(of: .string, d), spec))
        case 7:
            if rng.chance(50) {
                let key = RuleGenerator.constant(.string(rng.pick(["y.z", "x", "plan", "label", "zz"])))
                let dictionary = RuleGenerator.selfPath([shape == .interaction ? "domainUserInfo" : "m"])
                return RuleGenerator.node(.index(dictionary, .expression(key)))
            }
            return RuleGenerator.node(.assignment(variable: rng.pick(["w", "s"]), string(d)))
        default:
            return itemKey(.string, d)
        }
    }

    mutating func boolean(_ depth: Int) -> ExpressionNode {
        if depth <= 0 || rng.chance(45) {
            return leaf(.bool, constant: .bool(rng.chance(50)))
        }
        let d = depth - 1
        switch rng.weighted([4, 3, 3, 2, 4]) {
        case 0:
            return RuleGenerator.node(
                .invoke(
                    receiver: expression(mostly(.string, 85), d),
                    selector: rng.pick(["hasPrefix:", "hasSuffix:", "containsString:"]),
                    arguments: [expression(mostly(.string), d)]))
        case 1:
            return RuleGenerator.node(
                .invoke(receiver: collection(d), selector: "containsObject:", arguments: [expression(.any, d)]))
        case 2: return RuleGenerator.node(.ternary(predicate(d), boolean(d), expression(mostly(.bool), d)))
        case 3:
            return RuleGenerator.path(expression(rng.pick([.string, .number]), d), ["boolValue"])
        default: return itemKey(.bool, d)
        }
    }

    mutating func date(_ depth: Int) -> ExpressionNode {
        if depth <= 0 || rng.chance(40) {
            let seconds = rng.pick(ObjectGenerator.dates + [86_400 * 365, 5e8])
            return leaf(.date, constant: .date(secondsSinceReferenceDate: seconds))
        }
        let d = depth - 1
        switch rng.weighted([4, 2, 3, 2, 4]) {
        case 0:
            return RuleGenerator.call(rng.pick(["add:to:", "from:subtract:"]), date(d), expression(mostly(.number), d))
        case 1:
            return RuleGenerator.node(
                .cast(
                    rng.chance(70)
                        ? RuleGenerator.constant(
                            .string(rng.pick(["2001-01-02T00:00:00Z", "2020-06-01T12:00:00Z", "yesterday"])))
                        : number(d),
                    RuleGenerator.constant(.string("NSDate"))))
        case 2: return RuleGenerator.node(.ternary(predicate(d), date(d), expression(mostly(.date), d)))
        case 3:
            return RuleGenerator.node(.cast(number(d), RuleGenerator.constant(.string("NSDate"))))
        default: return itemKey(.date, d)
        }
    }

    /// A collection whose elements are (mostly) of `sort`.
    mutating func collection(of sort: Sort, _ depth: Int) -> ExpressionNode {
        var options: [ExpressionNode] = []
        switch (shape, sort) {
        case (.fileProvider, .number):
            options = [["fileproviderItems", "documentSize"], ["fileproviderItems", "capabilities"]].map(
                RuleGenerator.selfPath)
        case (.fileProvider, .string):
            options = [
                ["fileproviderItems", "filename"], ["fileproviderItems", "contentType", "identifier"],
                ["fileproviderItems", "userInfo", "label"],
            ].map(RuleGenerator.selfPath)
        case (.fileProvider, .bool):
            options = [["fileproviderItems", "isUploaded"], ["fileproviderItems", "userInfo", "com.example.testBit"]]
                .map(
                    RuleGenerator.selfPath)
        case (.plain, .number), (.other, .number):
            options = [["ai"], ["items", "i"], ["a"]].map(RuleGenerator.selfPath)
        case (.plain, .string), (.other, .string):
            options = [["as"], ["items", "s"], ["a"]].map(RuleGenerator.selfPath)
        case (.plain, .bool), (.other, .bool): options = [["items", "b"], ["a"]].map(RuleGenerator.selfPath)
        case (.interaction, .string): options = [RuleGenerator.selfPath(["domainUserInfo", "tags"])]
        default: break
        }
        for entry in scope {
            if case .item = entry.kind, sort == .string {
                options.append(RuleGenerator.path(RuleGenerator.variable(entry.name), ["userInfo", "tags"]))
            }
            if case .record = entry.kind, sort == .string {
                options.append(RuleGenerator.path(RuleGenerator.variable(entry.name), ["tags"]))
            }
        }
        switch rng.weighted([10, 5, 2, 2, 2]) {
        case 0 where !options.isEmpty:
            return rng.pick(options)
        case 1:
            var elements: [ExpressionNode] = []
            for _ in 0..<rng.weighted([1, 3, 4, 3, 2]) {
                elements.append(
                    depth > 0 && rng.chance(30) ? expression(mostly(sort), depth - 1) : expression(mostly(sort), 0))
            }
            return RuleGenerator.node(.aggregate(elements))
        case 2 where depth > 0:
            return subquery(depth - 1)
        case 3:
            return RuleGenerator.variable("arr")
        default:
            return collection(depth)
        }
    }

    mutating func collection(_ depth: Int) -> ExpressionNode {
        if depth <= 0 || rng.chance(30) {
            if rng.chance(25) {
                var elements: [ExpressionNode] = []
                for _ in 0..<rng.int(in: 0...3) { elements.append(anything(0)) }
                return RuleGenerator.node(.aggregate(elements))
            }
            return keyLeaf(.collection) ?? RuleGenerator.variable("arr")
        }
        let d = depth - 1
        switch rng.weighted([5, 6, 4, 2, 2, 2]) {
        case 0:
            var elements: [ExpressionNode] = []
            for _ in 0..<rng.int(in: 0...4) { elements.append(anything(d)) }
            return RuleGenerator.node(.aggregate(elements))
        case 1: return subquery(d)
        case 2:
            let op = rng.pick(SetOperator.allCases)
            return RuleGenerator.node(
                .setOperation(op, collection(d), rng.chance(90) ? collection(d) : expression(.any, d)))
        case 3: return RuleGenerator.node(.ternary(predicate(d), collection(d), collection(d)))
        case 4: return RuleGenerator.node(.assignment(variable: rng.pick(["v", "arr"]), collection(d)))
        default: return itemKey(.collection, d)
        }
    }

    /// `SUBQUERY(collection, $var, predicate)`: the variable shadows, nests, and is usually used;
    /// sometimes the predicate reads only bare keys of `SELF`.
    mutating func subquery(_ depth: Int) -> ExpressionNode {
        let collection: ExpressionNode
        let kind: ElementKind
        switch rng.weighted([8, 4, 3, 2, 1]) {
        case 0:
            switch shape {
            case .fileProvider:
                (collection, kind) = (RuleGenerator.selfPath(["fileproviderItems"]), .item)
            case .interaction:
                (collection, kind) = (RuleGenerator.selfPath(["domainUserInfo", "tags"]), .scalar(.string))
            case .item:
                (collection, kind) = (RuleGenerator.selfPath(["userInfo", "tags"]), .scalar(.string))
            case .plain, .other:
                (collection, kind) = (RuleGenerator.selfPath(["items"]), .record)
            }
        case 1:
            let sort = rng.pick([Sort.number, .string, .bool])
            (collection, kind) = (self.collection(of: sort, depth), .scalar(sort))
        case 2:
            (collection, kind) = (self.collection(depth), .scalar(.any))
        case 3:
            if let outer = scope.last(where: { if case .item = $0.kind { true } else { false } }) {
                (collection, kind) = (
                    RuleGenerator.path(RuleGenerator.variable(outer.name), ["userInfo", "tags"]), .scalar(.string)
                )
            } else {
                (collection, kind) = (
                    RuleGenerator.selfPath(shape == .fileProvider ? ["fileproviderItems"] : ["as"]),
                    shape == .fileProvider ? .item : .scalar(.string)
                )
            }
        default:
            (collection, kind) = (expression(.any, depth), .scalar(.any))
        }
        let name = rng.pick(["i", "e", "i", "e", "x", "f"])
        scope.append((name, kind))
        let condition = predicate(depth)
        scope.removeLast()
        return RuleGenerator.node(.subquery(collection: collection, variable: name, predicate: condition))
    }

    mutating func anything(_ depth: Int) -> ExpressionNode {
        switch rng.weighted(calm ? [60, 3, 2, 1, 1, 0, 0, 0, 0, 0] : [40, 4, 3, 4, 3, 2, 1, 2, 2, 2]) {
        case 0: return expression(rng.pick([.number, .string, .bool, .date, .collection]), depth)
        case 1: return RuleGenerator.constant(.nil)
        case 2: return RuleGenerator.node(.evaluatedObject)
        case 3: return keyLeaf(.any) ?? RuleGenerator.constant(.nil)
        case 4: return variableLeaf(.any)
        case 5: return RuleGenerator.path(item(depth), rng.pick(RuleGenerator.itemKeys(.any)))
        case 6: return RuleGenerator.node(.anyKey)
        case 7:
            return RuleGenerator.node(
                .cast(
                    expression(.any, max(0, depth - 1)),
                    RuleGenerator.constant(rng.chance(50) ? .string(rng.pick(["Class", "NSArray"])) : .nil)))
        case 8:
            let receiver = depth > 0 ? anything(depth - 1) : RuleGenerator.constant(.nil)
            let selector = rng.pick(["valueForKey:", "objectForKey:", "valueForKeyPath:", "firstObject", "bogus:"])
            let arguments =
                selector.hasSuffix(":") ? [RuleGenerator.constant(.string(rng.pick(["s", "i", "x", "m.x"])))] : []
            return RuleGenerator.node(.invoke(receiver: receiver, selector: selector, arguments: arguments))
        default:
            return RuleGenerator.call(
                "randomn:", RuleGenerator.constant(.int(Int64(rng.pick([1, 1, 0, -1])))))
        }
    }
}

extension ExpressionNode {
    /// `self.key`: one more key on a key path, or a new key path on any other expression.
    fileprivate func keyPathAppending(_ key: String) -> ExpressionNode {
        if case .keyPath(let base, let components) = kind {
            return ExpressionNode(.keyPath(base: base, components: components + [.key(key)]))
        }
        return ExpressionNode(.keyPath(base: self, components: [.key(key)]))
    }
}
