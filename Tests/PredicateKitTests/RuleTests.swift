import Foundation
import PredicateKit
import Testing

/// Items 0..<count: every third uploaded, sizes 0, 1000, 2000, …, names by index.
func sampleItems(_ count: Int) -> [FileProviderItem] {
    (0..<count).map { index in
        var item = FileProviderItem(itemIdentifier: "\(index)", parentItemIdentifier: "root", filename: "f\(index).pdf")
        item.isUploaded = index % 3 == 0
        item.documentSize = index % 7 == 0 ? nil : Int64(index) * 1000
        return item
    }
}

/// The reference interpreter's answer for one item.
func referenceAnswer(_ format: String, _ arguments: [Value] = [], on item: FileProviderItem) -> Bool {
    guard let predicate = try? PredicateParser.parsePredicate(format, arguments: arguments).predicate else {
        return false
    }
    return (try? Interpreter().evaluate(predicate, on: .object(item))) == true
}

@Suite struct RuleTests {
    static let rules: [(format: String, arguments: [Value])] = [
        ("isUploaded == NO", []),
        ("isUploaded == NO AND documentSize > %d", [.int(2_000_000)]),
        ("%K BEGINSWITH %@", [.string("filename"), .string("f1")]),
        ("documentSize >= %@ OR filename ENDSWITH[c] '.PDF'", [.double(5e6)]),
        ("documentSize < 'a'", []),  // an error on every item with a size: all left out
    ]

    /// Below and above the batch threshold: the VM in place, then the batch engine; both must
    /// give the interpreter's answer for each item.
    @Test(arguments: rules, [10, Rule<FileProviderItem>.batchThreshold + 5])
    func filterMatchesTheInterpreter(rule: (format: String, arguments: [Value]), count: Int) throws {
        let items = sampleItems(count)
        let compiled = try Rule<FileProviderItem>(format: rule.format, argumentArray: rule.arguments)
        let expected = items.filter { referenceAnswer(rule.format, rule.arguments, on: $0) }
        #expect(items.filter(compiled).map(\.itemIdentifier) == expected.map(\.itemIdentifier))
        #expect(compiled.filter(items.lazy.map { $0 }).count == expected.count)
        let (answers, _) = compiled.evaluate(items)
        #expect(answers.filter { $0 }.count == expected.count)
        for item in items.prefix(20) {
            #expect(
                ((try? compiled.evaluate(with: item)) ?? false)
                    == referenceAnswer(rule.format, rule.arguments, on: item))
        }
    }

    /// Positions are the collection's own: a slice's start at 3 gives indices from 3.
    @Test(arguments: [10, Rule<FileProviderItem>.batchThreshold + 5])
    func matchingIndicesAreTheCollectionsOwn(count: Int) throws {
        let items = sampleItems(count + 3)
        let rule = try Rule<FileProviderItem>("isUploaded == YES")
        let expected = items.indices.filter { $0 >= 3 && $0 % 3 == 0 }
        #expect(rule.matchingIndices(in: items[3...]) == expected)
        #expect(rule.matchingIndices(in: Array(items[3...])) == expected.map { $0 - 3 })
    }

    @Test func failuresAreReportedWithTheirPlace() throws {
        let rule = try Rule<FileProviderItem>("documentSize < 'a'")
        let items = sampleItems(3)
        let (_, failures) = rule.evaluate(items)
        #expect(failures.map(\.index) == [1, 2])
        let error = try #require(failures.first?.error)
        let rendered = rule.diagnostic(for: error).rendered()
        #expect(rendered.hasPrefix("1:1: error: "))
        #expect(rendered.contains("\ndocumentSize < 'a'\n^"))
    }

    @Test func syntaxErrorsRenderWithACaret() {
        #expect(throws: Diagnostic.self) { try Rule<FileProviderItem>("isUploaded == AND x") }
        do {
            _ = try Rule<FileProviderItem>("isUploaded == AND x")
        } catch {
            #expect(
                error.rendered()
                    == "1:15: error: expected an expression, found 'AND'\nisUploaded == AND x\n              ^~~")
        }
    }

    @Test func variadicArgumentsTakeSwiftValues() throws {
        let rule = try Rule<FileProviderItem>("%K == %@ AND documentSize > %d", "isUploaded", false, 1000)
        let items = sampleItems(12)
        #expect(rule.filter(items).map(\.itemIdentifier) == ["2", "4", "5", "8", "10", "11"])
    }

    /// `$name`s are fixed at compile time: the same answers as `%@`, with constants in the
    /// program (the batch engine's kernels see no variable).
    @Test func substitutionVariablesAreConstants() throws {
        let items = sampleItems(Rule<FileProviderItem>.batchThreshold + 1)
        let byVariable = try Rule<FileProviderItem>(
            "documentSize > $limit AND isUploaded == $flag", substitutionVariables: ["limit": 3000, "flag": false])
        let byArgument = try Rule<FileProviderItem>("documentSize > %d AND isUploaded == %@", 3000, false)
        #expect(byVariable.filter(items).map(\.itemIdentifier) == byArgument.filter(items).map(\.itemIdentifier))
        #expect(byVariable.program.code == byArgument.program.code)
    }

    @Test(arguments: [
        ("$x == 1", "1 == 1"),
        ("SUBQUERY(tags, $x, $x == $y).@count > 0", "SUBQUERY(tags, $x, $x == 2).@count > 0"),
        ("$x := 5 == $x", "$x := 5 == $x"),
        ("$other == $x", "$other == 1"),
    ])
    func substitutionKeepsBoundVariables(rule: String, expected: String) throws {
        let tree = try PredicateParser.parsePredicate(rule).predicate
        let substituted = tree.substituting(["x": .int(1), "y": .int(2)])
        #expect(substituted == (try PredicateParser.parsePredicate(expected).predicate))
    }

    @Test func evaluatesFromManyThreadsAtOnce() async throws {
        let rule = try Rule<FileProviderItem>("isUploaded == NO")
        let items = sampleItems(300)
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { items.filter { (try? rule.evaluate(with: $0)) == true }.count }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 200, count: 8))
    }

    @Test func activationRuleOverASelection() throws {
        let rule = try ActivationRule("SUBQUERY(fileproviderItems, $i, $i.isUploaded == NO).@count > 0")
        let items = sampleItems(4)
        #expect(rule.isEnabled(for: items))
        #expect(!rule.isEnabled(for: [items[0]]))
        #expect(!rule.isEnabled(for: []))
        let failing = try ActivationRule("fileproviderItems.@count < 'a'")
        #expect(!failing.isEnabled(for: items))
        #expect(throws: EvaluationError.self) { try failing.evaluate(selection: items) }
    }

    @Test func ruleSetMask() throws {
        let rules = try RuleSet(["isUploaded == NO", "documentSize > 1500", "filename =="], for: FileProviderItem.self)
        let item = sampleItems(3)[2]
        let answer = rules.evaluate(with: item)
        #expect(answer.mask == 0b011)
        #expect(answer.problem(of: 2) != nil)
    }
}

@Suite struct RenderingTests {
    @Test func explanationsRenderAsTextAndJSON() throws {
        let rule = try Rule<FileProviderItem>("isUploaded == NO AND documentSize > 5000")
        let item = sampleItems(3)[2]
        let explanation = rule.explain(item)
        let text = explanation.text(source: rule.format)
        #expect(text.contains("false  isUploaded == NO AND documentSize > 5000"))
        #expect(text.contains("false  documentSize > 5000"))
        let json = explanation.json(source: rule.format)
        #expect(json["rule"] == .string(rule.format))
        #expect(json["result"] == .bool(false))
    }
}

@Suite struct RuleSetSerializationTests {
    static let rules = ["isUploaded == NO", "documentSize > 1500", "filename ==", "filename ENDSWITH '.pdf'"]

    @Test func aRuleSetComesBackWhole() throws {
        let rules = try RuleSet(Self.rules, for: FileProviderItem.self)
        let loaded = try RuleSet(serialized: try rules.serialized(), for: FileProviderItem.self)
        #expect(loaded.rules == rules.rules)
        #expect(loaded.footprints == rules.footprints)
        #expect(loaded.problems == rules.problems)
        #expect(loaded.program == rules.program)
        for item in sampleItems(9) {
            #expect(loaded.evaluate(with: item).mask == rules.evaluate(with: item).mask)
        }
    }

    @Test(arguments: [
        ("", "not JSON"),
        (#"{"format": "other"}"#, "not a rule set"),
        (#"{"format": "predicate-rule-set", "version": 2}"#, "unsupported version"),
        (
            #"{"format": "predicate-rule-set", "version": 1, "rules": ["a == 1"], "footprints": [], "failed": []}"#,
            "footprints"
        ),
        (
            #"{"format": "predicate-rule-set", "version": 1, "rules": ["a == 1"], "footprints": [[]], "failed": [0]}"#,
            "marked failed but parses"
        ),
        (
            #"{"format": "predicate-rule-set", "version": 1, "rules": ["a == 1"], "footprints": [[]], "failed": [], "program": "%%"}"#,
            "base64"
        ),
    ])
    func damagedInputIsRefused(text: String, expected: String) {
        #expect {
            try RuleSet(serialized: Array(text.utf8))
        } throws: { error in
            (error as? RuleSetLoadError)?.message.contains(expected) == true
        }
    }

    @Test func aProgramFromOtherRulesIsRefused() throws {
        var document = String(decoding: try RuleSet(rules: ["a == 1"]).serialized(), as: UTF8.self)
        document = document.replacingOccurrences(of: #""a == 1""#, with: #""a == 2""#)
        #expect(throws: RuleSetLoadError.self) { try RuleSet(serialized: Array(document.utf8)) }
    }
}
