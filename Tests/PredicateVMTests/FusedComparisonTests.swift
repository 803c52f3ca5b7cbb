import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// `TEST` superinstructions and their prepared constants mean exactly what the instructions they
/// replace mean: every rule here runs on every item through the interpreter, the VM on the fused
/// program (on the item as a value and through a pointer) and the VM on the same rule compiled
/// without fusion, and all four agree on the result or on the error's kind, message and range.
@Suite struct FusedComparisonTests {
    static func item(
        _ name: String, size: Int64? = nil, rank: UInt64? = nil, uploaded: Bool = true,
        userInfo: [String: Value]? = nil,
        type: String? = nil, created: Double? = nil
    ) -> FileProviderItem {
        var item = FileProviderItem(itemIdentifier: name, parentItemIdentifier: "root", filename: name)
        item.documentSize = size
        item.favoriteRank = rank
        item.isUploaded = uploaded
        item.userInfo = userInfo
        item.contentType = type.map { UniformType($0) }
        item.creationDate = created
        return item
    }

    static let items: [FileProviderItem] = [
        item(
            "a.txt", size: 2, rank: 3, uploaded: false, userInfo: ["rank": .int(4), "tags": .array([.string("red")])]),
        item("Résumé.PDF", size: 5_000_000, rank: .max, userInfo: ["rank": .string("high")], type: "com.adobe.pdf"),
        item("cafe\u{301}", size: nil, userInfo: ["rank": .double(.nan), "tags": .array([.string("blue"), .null])]),
        item("café", size: -1, rank: 0, userInfo: ["tags": .string("red")], type: "public.jpeg", created: 10),
        item("IMG_0001.jpg", size: 1_000_001, uploaded: false, userInfo: [:], type: "public.folder", created: -5),
        item("", size: 3),
    ]

    static let rules = [
        "isUploaded == NO", "isUploaded == 1", "isUploaded > 0", "NOT isUploaded == YES",
        "documentSize > 1e6", "documentSize == nil", "documentSize != nil", "documentSize <= 2",
        "documentSize BETWEEN {1, 10}", "documentSize BETWEEN {10, 1}", "documentSize BETWEEN {1.5, 5000000}",
        "documentSize BETWEEN {-1, 9223372036854775807}", "favoriteRank BETWEEN {0, 3}", "isUploaded BETWEEN {0, 1}",
        "documentSize BETWEEN {5000000, 5000000}", "documentSize BETWEEN {'a', 'b'}", "documentSize BETWEEN {1, 2, 3}",
        "creationDate BETWEEN {-10, 10}", "userInfo.rank BETWEEN {3, 4}", "documentSize IN {1, 2, 3}",
        "documentSize IN {1, 2.5, 5000000}",
        "documentSize == 'x'", "documentSize > 'x'", "favoriteRank > 5", "favoriteRank == 18446744073709551615",
        "favoriteRank < -1", "filename ENDSWITH[c] '.pdf'", "filename CONTAINS[cd] 'resume'",
        "filename BEGINSWITH 'caf'", "filename == 'café'", "filename ==[c] 'CAFÉ'", "filename ==[cd] 'CAFE'",
        "filename != 'a.txt'", "filename < 'b'", "filename LIKE[c] 'img_*'", "filename LIKE ''",
        "filename MATCHES '[a-z]+\\\\.txt'", "filename MATCHES '('", "filename IN {'café', 'a.txt'}",
        "filename IN {'café', 'cafe\u{301}'}", "filename IN 'xa.txty'", "filename CONTAINS 5",
        "filename > 5", "userInfo.rank >= 3", "userInfo.rank == 'high'", "userInfo.rank < 'b'",
        "userInfo.missing == nil", "userInfo.rank == userInfo.rank", "ANY userInfo.tags IN {'red', 'green'}",
        "ALL userInfo.tags BEGINSWITH 'r'", "NONE userInfo.tags == 'blue'", "creationDate > CAST(0, 'NSDate')",
        "contentType.identifier UTI-CONFORMS-TO 'public.image'", "contentType UTI-EQUALS 'public.jpeg'",
        "isUploaded == NO AND documentSize > 1 OR filename ENDSWITH 'f'",
        "documentSize > 1 AND documentSize < 10 AND filename != '' OR isUploaded == NO",
        "(isUploaded == YES OR documentSize == nil) AND NOT (filename LIKE '*.jpg' OR favoriteRank == nil)",
        "filename TOKENMATCHES 'a'", "documentSize > 1 AND nosuchkey == 1",
    ]

    static let environment = EvaluationEnvironment()

    static func outcome(_ body: () throws(EvaluationError) -> Bool) -> String {
        do throws(EvaluationError) {
            return "\(try body())"
        } catch {
            return "\(error.kind) at \(error.range.map(\.description) ?? "?"): \(error.message)"
        }
    }

    @Test(arguments: rules)
    func fusedMeansUnfused(_ rule: String) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: .object(SchemaReference(FileProviderItem.schema)))
        let fused = try Compiler.compile(bound, source: rule)
        let plain = try Compiler.compile(bound, source: rule, fusing: false)
        let unbound = try Compiler.compile(parsed, source: rule)
        #expect(fused.code.count <= plain.code.count)
        let interpreter = Interpreter(environment: Self.environment)
        var fusedMachine = VirtualMachine(program: fused, environment: Self.environment)
        var plainMachine = VirtualMachine(program: plain, environment: Self.environment)
        var unboundMachine = VirtualMachine(program: unbound, environment: Self.environment)
        for item in Self.items {
            let value = Value.object(item)
            let expected = Self.outcome { () throws(EvaluationError) in try interpreter.evaluate(bound, on: value) }
            let viaValue = Self.outcome { () throws(EvaluationError) in try fusedMachine.evaluate(on: value) }
            let viaPointer = withUnsafePointer(to: item) { pointer in
                Self.outcome { () throws(EvaluationError) in try fusedMachine.evaluate(item: pointer) }
            }
            let unfused = Self.outcome { () throws(EvaluationError) in try plainMachine.evaluate(on: value) }
            // Unbound: key paths by name, so the pointer path boxes the item to read them.
            let byName = withUnsafePointer(to: item) { pointer in
                Self.outcome { () throws(EvaluationError) in try unboundMachine.evaluate(item: pointer) }
            }
            let context = "\(rule) on \(item.filename)"
            #expect(viaValue == expected, "\(context)")
            #expect(viaPointer == expected, "\(context)")
            #expect(unfused == expected, "\(context)")
            #expect(byName == expected, "\(context)")
        }
    }

    /// Prepared answers pinned where they are easiest to get wrong: one line a case, rule, item
    /// (by index into ``items``) and answer.
    static let pinned: [(rule: String, item: Int, expected: String)] = [
        // 'café' (precomposed) and 'cafe\u{301}' are equal under Swift's String ==, not the language's.
        ("filename IN {'café'}", 2, "false"),
        ("filename IN {'café'}", 3, "true"),
        ("filename IN {'café', 'cafe\u{301}'}", 2, "true"),
        ("filename == 'café'", 2, "false"),
        ("filename ==[d] 'cafe'", 2, "true"),
        // Integers beyond Int64 are compared exactly.
        ("favoriteRank > 9223372036854775807", 1, "true"),
        ("favoriteRank == -1", 1, "false"),
        // NaN equals NaN and sorts below every number (SPEC §9 item 29).
        ("userInfo.rank < 0", 2, "true"),
        ("userInfo.rank > -1e308", 2, "false"),
        // A fraction in an IN set still never equals an integer; an integer in it does.
        ("documentSize IN {2.5, 5000000}", 1, "true"),
        ("documentSize IN {2.5, 3}", 0, "false"),
        // Errors keep the comparison's range, or the key path's when reading it fails.
        ("filename > 5", 0, "typeMismatch at 0..<12: cannot order the string \"a.txt\" against the number 5"),
        ("nosuchkey == 1", 0, "unknownKey at 0..<9: FileProviderItem has no key 'nosuchkey'"),
    ]

    @Test(arguments: 0..<pinned.count)
    func pinnedAnswers(_ index: Int) throws {
        let (rule, item, expected) = Self.pinned[index]
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(FileProviderItem.schema))), source: rule)
        #expect(program.code.contains { $0.comparisonSite != nil }, "\(rule) is fused")
        var machine = VirtualMachine(program: program, environment: Self.environment)
        let answer = withUnsafePointer(to: Self.items[item]) { pointer in
            Self.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
        }
        #expect(answer == expected, "\(rule)")
    }

    /// `SUBQUERY` variables are fused receivers; activation rules agree with their unfused form.
    @Test func loopVariablesAreFused() throws {
        let rule = "SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO AND $i.documentSize > 1).@count > 0"
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let context = FileProviderContext.activation(selectedItems: Self.items)
        let bound = Binder.bind(parsed, selfType: Binder.type(describing: context))
        let fused = try Compiler.compile(bound, source: rule)
        #expect(fused.comparisons.map(\.receiver) == [.variable(0), .variable(0)])
        let interpreter = Interpreter(environment: Self.environment)
        for count in 0...Self.items.count {
            let context = FileProviderContext.activation(selectedItems: Array(Self.items.prefix(count)))
            #expect(try fused.evaluate(on: context) == interpreter.evaluate(bound, on: context))
        }
        // A caller's variable may be unbound, an error at the variable itself: not fused.
        let callers = try Compiler.compile(try PredicateParser.parsePredicate("$x.a == 1").predicate)
        #expect(callers.comparisons.isEmpty)
    }

    @Test func sitesSurviveSerialization() throws {
        let rule = "isUploaded == NO AND filename LIKE[c] '*.pdf' OR userInfo.rank IN {1, 2}"
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let program = try Compiler.compile(
            Binder.bind(parsed, selfType: .object(SchemaReference(FileProviderItem.schema))), source: rule)
        #expect(program.comparisons.count == 3)
        let loaded = try Program(bytes: try program.serialized(), schemas: [FileProviderItem.schema])
        #expect(loaded == program)
        for item in Self.items {
            #expect(try loaded.evaluate(on: .object(item)) == program.evaluate(on: .object(item)))
        }
    }

    @Test func verifierChecksSites() {
        let site = ComparisonSite(
            receiver: .variable(3), keyPath: 0, constant: 0, op: .equal, options: [], quantifier: .direct,
            keyPathRange: SourceRange(0, 1))
        func program(_ code: [Instruction], _ sites: [ComparisonSite], variables: [String] = []) -> Program {
            Program(
                kind: .predicate, code: code, constants: [.int(1)], keyPaths: [[.key("a")]], comparisons: sites,
                variables: variables, sourceRanges: Array(repeating: SourceRange(0, 1), count: code.count),
                maximumStackDepth: 1, maximumSubqueryDepth: 0, source: "a == 1")
        }
        func problem(_ program: Program) -> VerificationError.Problem? {
            do {
                try Verifier.verify(program)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem(program([.test(0), .returnBool], [])) == .comparisonOutOfRange(index: 0, count: 0))
        #expect(problem(program([.test(0), .returnBool], [site])) == .variableOutOfRange(index: 3, count: 0))
        let badOptions = ComparisonSite(
            receiver: .evaluatedObject, keyPath: 0, constant: 0, op: .equal, options: ComparisonOptions(rawValue: 0x40),
            quantifier: .direct, keyPathRange: SourceRange(0, 1))
        #expect(problem(program([.test(0), .returnBool], [badOptions])) == .invalidComparisonOptions(0x40))
        let fine = ComparisonSite(
            receiver: .evaluatedObject, keyPath: 0, constant: 0, op: .equal, options: [], quantifier: .direct,
            keyPathRange: SourceRange(0, 1))
        #expect(problem(program([.testAnd(1, site: 0), .test(0), .returnBool], [fine])) == nil)
        #expect(problem(program([.testOr(5, site: 0), .test(0), .returnBool], [fine])) == .jumpOutOfRange(target: 6))
    }
}
