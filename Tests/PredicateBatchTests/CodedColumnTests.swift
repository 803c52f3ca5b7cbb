import PredicateBatch
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// String columns of few distinct values are stored as codes and each comparison is decided once
/// per distinct value: the answers, errors and budget failures must stay the scalar VM's.
@Suite struct CodedColumnTests {
    /// Names drawn from a few values: composed and decomposed `é` (canonically equivalent, not
    /// the same bytes), type identifiers, a long string stored anew per row, and nils.
    static func rows(_ count: Int) -> [Value] {
        let names = [
            "report.pdf", "Résumé.PDF", "Re\u{301}sume\u{301}.pdf", "public.jpeg", "public.folder",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
            "IMG_0042.jpg", "",
        ]
        return (0..<count).map { index in
            var name = names[index % names.count]
            if index % 11 == 0 { name = String(repeating: "x", count: 20) + "\(index % 3)" }
            return .dictionary(index % 13 == 0 ? [:] : ["name": .string(name)])
        }
    }

    @Test(arguments: [
        "name == 'Résumé.PDF'",
        "name ==[c] 'résumé.pdf'",
        "name ==[cd] 'resume.pdf'",
        "name != 'report.pdf'",
        "name BEGINSWITH 'Re'",
        "name ENDSWITH[c] '.PDF'",
        "name CONTAINS 'e\u{301}'",
        "name LIKE[c] 'r*.pdf'",
        "name MATCHES '[a-z]+\\\\.pdf'",
        "name IN {'report.pdf', 'public.jpeg'}",
        "name < 'n'",
        "name BETWEEN {'a', 'q'}",
        "name UTI-CONFORMS-TO 'public.image'",
        "name UTI-EQUALS 'public.folder'",
        "ANY name == 'x'",
        "name > 3",
        "name == nil OR name == ''",
        "NOT (name BEGINSWITH 'IMG') AND name ENDSWITH 'pdf'",
        "'report.pdf' == name",
        "name MATCHES '(a+)+$'",
    ])
    func agreesWithScalarMachine(_ rule: String) throws {
        try Self.expectAgreement(rule, Self.rows(3000), column: "name", storedAs: "coded strings")
    }

    /// `rule` over `rows`, whose `column` the batch must store as `storage`, gives the scalar
    /// VM's answers and errors on one thread and on two.
    static func expectAgreement(_ rule: String, _ rows: [Value], column: String, storedAs storage: String) throws {
        let program = try TestRules.program(rule, selfType: nil)
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(rows: rows, for: batchProgram)
        #expect(batch.storage(of: [.key(column)]) == storage)
        let expected = TestRules.scalar(program, rows)
        for threads in [1, 2] {
            #expect(
                TestRules.outcomes(batchProgram.evaluate(batch, threads: threads)) == expected, "threads \(threads)")
        }
    }

    /// `rule` over `rows` under each budget (steps, pattern steps) gives the scalar VM's answers
    /// and errors, its budget errors included.
    static func expectBudgetAgreement(_ rule: String, _ rows: [Value], budgets: [(Int, Int)]) throws {
        let program = try TestRules.program(rule, selfType: nil)
        for (steps, patternSteps) in budgets {
            let environment = EvaluationEnvironment(
                limits: EvaluationLimits(maximumSteps: steps, maximumPatternSteps: patternSteps))
            let expected = TestRules.scalar(program, rows, environment: environment)
            let outcomes = TestRules.outcomes(BatchProgram(program, environment: environment).evaluate(rows))
            let differing = rows.indices.filter { outcomes[$0] != expected[$0] }
            #expect(
                differing.isEmpty,
                "\(rows.count) rows, steps \(steps), pattern steps \(patternSteps): \(differing.count) differ, first \(differing.first.map { "\(outcomes[$0]) for \(expected[$0])" } ?? "")"
            )
        }
    }

    /// Budgets small enough that patterns run out on some values and a row's steps on others: the
    /// rows affected get the scalar VM's own error.
    @Test(arguments: ["name MATCHES '(a+)+$'", "name LIKE '*a*a*a*b'", "name IN {'a', 'b', 'c', 'report.pdf'}"])
    func budgetsAsTheScalarMachine(_ rule: String) throws {
        let budgets = [(6, 1_000), (50, 20), (3, 3)]
        try Self.expectBudgetAgreement(rule, Self.rows(500), budgets: budgets)
        // Too few rows to be coded: the plain string kernels.
        try Self.expectBudgetAgreement(rule, Self.rows(60), budgets: budgets)
    }

    /// Arrays of up to five tags (composed and decomposed `é` among them; the list kernel reads
    /// two elements a row without a branch and loops past them), empty arrays and nils.
    static func listRows(_ count: Int) -> [Value] {
        let tags = ["red", "green", "blue", "caf\u{E9}", "cafe\u{301}", "public.jpeg", "aaaaaaaaaaaaaaaaaaab"]
        return (0..<count).map { index in
            guard index % 9 != 0 else { return .dictionary([:]) }
            let length = index % 6
            // Neighbouring rows start with different tags, so a row read past its end is seen.
            let list = (0..<length).map { Value.string(tags[(index / 3 + index + $0 * 5) % tags.count]) }
            return .dictionary(["tags": .array(list)])
        }
    }

    @Test(arguments: [
        "ANY tags IN {'red', 'green'}",
        "ALL tags == 'red'",
        "ANY tags BEGINSWITH[c] 'R'",
        "ANY tags ==[d] 'cafe'",
        "ANY tags == 'café'",
        "ANY tags LIKE '*e*'",
        "ALL tags MATCHES '[a-z]+'",
        "ANY tags > 3",
        "ALL tags < 'm'",
        "ANY tags UTI-CONFORMS-TO 'public.image'",
        "NOT (ANY tags == 'blue') AND ANY tags != 'red'",
        "'red' IN tags",
        "tags CONTAINS 'red'",
        "ANY tags MATCHES '(a+)+$'",
    ])
    func listsAgreeWithScalarMachine(_ rule: String) throws {
        try Self.expectAgreement(rule, Self.listRows(3000), column: "tags", storedAs: "string lists")
    }

    @Test(arguments: ["ANY tags MATCHES '(a+)+$'", "ANY tags LIKE '*a*a*a*b'", "ALL tags IN {'a', 'b', 'c', 'red'}"])
    func listBudgetsAsTheScalarMachine(_ rule: String) throws {
        try Self.expectBudgetAgreement(
            rule, Self.listRows(500), budgets: [(6, 1_000), (9, 1_000), (50, 20), (3, 3), (12, 40)])
    }

    /// Ranks of every kind a provider writes: integers, doubles, numeric and other strings,
    /// Booleans, `null`, arrays and nils.
    static func mixedRows(_ count: Int) -> [Value] {
        let ranks: [Value] = [
            .int(3), .int(7), .double(2.5), .string("7"), .string("high"), .int(0), .bool(true), .null,
            .array([.int(1)]), .double(-1), .int(Int64.max), .string("caf\u{E9}"),
        ]
        return (0..<count).map { index in
            index % 13 == 0 ? .dictionary([:]) : .dictionary(["rank": ranks[(index * 7) % ranks.count]])
        }
    }

    @Test(arguments: [
        "rank >= 3",
        "rank == 3",
        "rank == '7'",
        "rank BETWEEN {1, 5}",
        "rank IN {1, 'high', 7}",
        "rank != nil",
        "rank < 2.5",
        "rank BEGINSWITH[c] 'H'",
        "ANY rank == 1",
        "rank == YES",
        "3 < rank",
        "rank ==[d] 'cafe'",
        "NOT (rank > 5) OR rank == 'high'",
    ])
    func mixedAgreeWithScalarMachine(_ rule: String) throws {
        try Self.expectAgreement(rule, Self.mixedRows(3000), column: "rank", storedAs: "mixed scalars")
    }

    @Test(arguments: ["rank >= 3", "rank LIKE '*a*a*b'", "rank IN {1, 2, 3, 'x'}"])
    func mixedBudgetsAsTheScalarMachine(_ rule: String) throws {
        try Self.expectBudgetAgreement(rule, Self.mixedRows(500), budgets: [(3, 1_000), (5, 1_000), (8, 3), (40, 1)])
    }

    /// A list with an element that is not a string, or mostly distinct elements, stays plain.
    @Test func irregularListsStayPlain() throws {
        let program = BatchProgram(try TestRules.program("ANY tags == 'x'", selfType: nil))
        var rows = Self.listRows(3000)
        #expect(ColumnBatch(rows: rows, for: program).storage(of: [.key("tags")]) == "string lists")
        rows[2000] = .dictionary(["tags": .array([.string("red"), .int(3)])])
        #expect(ColumnBatch(rows: rows, for: program).storage(of: [.key("tags")]) == "values")
        let unique = (0..<3000).map { Value.dictionary(["tags": .array([.string("tag \($0)")])]) }
        #expect(ColumnBatch(rows: unique, for: program).storage(of: [.key("tags")]) == "values")
    }

    /// Mostly distinct strings (file names) stay plain: coding them would cost more than it saves.
    @Test func distinctStringsStayPlain() throws {
        let program = BatchProgram(try TestRules.program("name ENDSWITH 'x'", selfType: nil))
        let unique = (0..<3000).map { Value.dictionary(["name": .string("file \($0).txt")]) }
        #expect(ColumnBatch(rows: unique, for: program).storage(of: [.key("name")]) == "strings")
        let few = (0..<3000).map { Value.dictionary(["name": .string("file \($0 % 40).txt")]) }
        #expect(ColumnBatch(rows: few, for: program).storage(of: [.key("name")]) == "coded strings")
        let short = (0..<10).map { Value.dictionary(["name": .string("file \($0 % 2).txt")]) }
        #expect(ColumnBatch(rows: short, for: program).storage(of: [.key("name")]) == "strings")
    }

    /// Columns read in place from File Provider items (stored strings, one key of the stored
    /// `userInfo`, dotted keys whose whole key is missing) mean what the general read means.
    @Test(arguments: [
        "filename ENDSWITH[c] '.pdf'",
        "typeIdentifier == nil",
        "userInfo.rank >= 3",
        "userInfo.\"a.b\" == 1",
        "userInfo.\"x.y\" == 2",
        "userInfo.\"x.z\" == nil",
        "userInfo.missing == nil",
    ])
    func inPlaceColumnsOfItems(_ rule: String) throws {
        var items = TestItems.make(3000)
        for index in items.indices where index % 4 == 1 {
            var info = items[index].userInfo ?? [:]
            info["a.b"] = .int(Int64(index % 3))
            info["x"] = index % 8 == 1 ? .dictionary(["y": .int(2)]) : .null
            items[index].userInfo = info
        }
        let program = try TestRules.program(rule)
        let batchProgram = BatchProgram(program)
        let expected = TestRules.scalar(program, items.map { .object($0) })
        #expect(TestRules.outcomes(batchProgram.evaluate(ColumnBatch(items: items, for: batchProgram))) == expected)
    }

    /// Mostly distinct stored strings (file names) are read where they lie, with the VM's answers,
    /// errors and budgets.
    @Test(arguments: [
        "filename ENDSWITH[c] '.PDF'",
        "typeIdentifier BEGINSWITH 'Résumé'",
        "typeIdentifier == nil OR filename CONTAINS[cd] 'resume'",
        "filename LIKE[c] '*7*.pdf'",
        "filename MATCHES '[a-zé]+ [0-9]+[.]pdf'",
        "filename UTI-CONFORMS-TO 'public.image'",
        "filename IN {'Résumé 7.pdf', 'x'}",
        "filename < 'm'",
    ])
    func borrowedStringsOfItems(_ rule: String) throws {
        var items = TestItems.make(3000)
        let stems = ["Résumé", "report", "写真", "IMG"]
        for index in items.indices {
            items[index].filename = "\(stems[index % stems.count]) \(index).\(index % 3 == 0 ? "pdf" : "PDF")"
            items[index].typeIdentifier = index % 5 == 0 ? nil : items[index].filename
        }
        let program = try TestRules.program(rule)
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, for: batchProgram)
        #expect(batchProgram.columnKeyPaths.allSatisfy { batch.storage(of: $0) == "borrowed strings" })
        let rows = items.map { Value.object($0) }
        let expected = TestRules.scalar(program, rows)
        for threads in [1, 2] {
            #expect(
                TestRules.outcomes(batchProgram.evaluate(batch, threads: threads)) == expected, "threads \(threads)")
        }
        for (steps, patternSteps) in [(6, 1_000), (40, 25)] {
            let environment = EvaluationEnvironment(
                limits: EvaluationLimits(maximumSteps: steps, maximumPatternSteps: patternSteps))
            let limited = BatchProgram(program, environment: environment)
            let expected = TestRules.scalar(program, rows, environment: environment)
            #expect(
                TestRules.outcomes(limited.evaluate(ColumnBatch(items: items, for: limited))) == expected,
                "steps \(steps), pattern steps \(patternSteps)")
        }
    }

    /// Content types of File Provider items are coded, and the UTI rule agrees with the VM.
    @Test func contentTypesOfItems() throws {
        let program = try TestRules.program("contentType.identifier UTI-CONFORMS-TO 'public.image'")
        let batchProgram = BatchProgram(program)
        let items = TestItems.make(2000)
        let batch = ColumnBatch(items: items, for: batchProgram)
        #expect(batchProgram.columnKeyPaths.map { batch.storage(of: $0) } == ["coded strings"])
        let expected = TestRules.scalar(program, items.map { .object($0) })
        #expect(TestRules.outcomes(batchProgram.evaluate(batch, threads: 2)) == expected)
    }
}
