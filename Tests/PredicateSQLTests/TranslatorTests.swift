import PredicateSQL
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// One rule, its clause in one dialect, and whether the clause is exact.
struct ClauseCase: Sendable, CustomTestStringConvertible {
    let rule: String
    let dialect: SQLDialect
    let sql: String
    let parameters: [SQLValue]
    let residual: String?

    init(_ rule: String, _ dialect: SQLDialect, _ sql: String, _ parameters: [SQLValue], residual: String? = nil) {
        self.rule = rule
        self.dialect = dialect
        self.sql = sql
        self.parameters = parameters
        self.residual = residual
    }

    var testDescription: String { "\(rule) (\(dialect))" }
}

@Suite("SQL translation")
struct TranslatorTests {
    static let cases: [ClauseCase] = [
        ClauseCase("bytes > 100", .sqlite, #"("items"."bytes" IS NOT NULL AND "items"."bytes" > ?)"#, [.integer(100)]),
        ClauseCase(
            "bytes > 100", .postgres, #"("items"."bytes" IS NOT NULL AND "items"."bytes" > $1::bigint)"#,
            [.integer(100)]),
        ClauseCase("bytes == nil", .sqlite, #"("items"."bytes" IS NULL)"#, []),
        ClauseCase("bytes != nil", .postgres, #"(NOT ("items"."bytes" IS NULL))"#, []),
        ClauseCase("bytes <= nil", .sqlite, #"("items"."bytes" IS NULL)"#, []),
        ClauseCase("bytes < nil", .sqlite, "FALSE", []),
        ClauseCase(
            "NOT bytes > 5", .sqlite, #"(NOT ("items"."bytes" IS NOT NULL AND "items"."bytes" > ?))"#, [.integer(5)]),
        ClauseCase(
            "bytes > 2.5", .postgres, #"("items"."bytes" IS NOT NULL AND "items"."bytes" >= $1::bigint)"#, [.integer(3)]
        ),
        ClauseCase("bytes < 2.5", .sqlite, #"("items"."bytes" IS NOT NULL AND "items"."bytes" <= ?)"#, [.integer(2)]),
        ClauseCase("bytes == 2.5", .sqlite, "FALSE", []),
        ClauseCase("bytes != 'a'", .sqlite, "TRUE", []),
        ClauseCase("bytes < 'a'", .sqlite, "TRUE", [], residual: #"bytes < "a""#),
        ClauseCase("bytes > 1e19", .sqlite, "FALSE", []),
        ClauseCase("bytes < 1e19", .sqlite, #"("items"."bytes" IS NOT NULL)"#, []),
        ClauseCase(
            "bytes IN {1, 2, 'a'}", .sqlite, #"("items"."bytes" IS NOT NULL AND "items"."bytes" IN (?, ?))"#,
            [.integer(1), .integer(2)]),
        ClauseCase(
            "bytes BETWEEN {10, 1}", .sqlite,
            #"(("items"."bytes" IS NOT NULL AND "items"."bytes" >= ?) AND ("items"."bytes" IS NOT NULL AND "items"."bytes" <= ?))"#,
            [.integer(1), .integer(10)]),
        ClauseCase("bytes BETWEEN {1, 'z'}", .sqlite, "TRUE", [], residual: #"bytes BETWEEN {1, "z"}"#),
        ClauseCase(
            "score > 9007199254740993", .sqlite, #"("items"."score" IS NOT NULL AND "items"."score" > ?)"#,
            [.integer(9_007_199_254_740_993)]),
        ClauseCase("score > 9007199254740993", .postgres, "TRUE", [], residual: "score > 9007199254740993"),
        ClauseCase(
            "flag == YES", .postgres, #"("items"."flag" IS NOT NULL AND "items"."flag" = $1::bigint)"#, [.integer(1)]),
        ClauseCase(
            "modified > CAST(0, 'NSDate')", .sqlite, #"("items"."modified" IS NOT NULL AND "items"."modified" > ?)"#,
            [.real(0)]),
        ClauseCase(
            "bytes > 1024 * 1024", .sqlite, #"("items"."bytes" IS NOT NULL AND "items"."bytes" > ?)"#,
            [.integer(1_048_576)]),
        ClauseCase(
            "name ==[c] 'abc'", .sqlite, #"("items"."name" IS NOT NULL AND pvm_equal("items"."name", ?, 1))"#,
            [.text("abc")]),
        ClauseCase("name ==[c] 'abc'", .postgres, "TRUE", [], residual: #"name ==[c] "abc""#),
        ClauseCase(
            "name ==[n] 'abc'", .postgres, #"("items"."name" IS NOT NULL AND "items"."name" = $1::text)"#,
            [.text("abc")]),
        ClauseCase(
            "name < 'b'", .sqlite, #"("items"."name" IS NOT NULL AND pvm_compare("items"."name", ?, 0) < 0)"#,
            [.text("b")]),
        ClauseCase("name < 'b'", .postgres, "TRUE", [], residual: #"name < "b""#),
        ClauseCase(
            "name BEGINSWITH 'a'", .postgres,
            #"("items"."name" IS NOT NULL AND starts_with("items"."name", $1::text))"#, [.text("a")]),
        ClauseCase(
            "name ENDSWITH 'a'", .postgres,
            #"("items"."name" IS NOT NULL AND right("items"."name", length($1::text)) = $2::text)"#,
            [.text("a"), .text("a")]),
        ClauseCase("name CONTAINS ''", .sqlite, "FALSE", []),
        ClauseCase(
            "name IN 'abc'", .sqlite, #"("items"."name" IS NOT NULL AND pvm_contains(?, "items"."name", 0))"#,
            [.text("abc")]),
        ClauseCase(
            "name LIKE[cd] 'a*'", .sqlite, #"("items"."name" IS NOT NULL AND pvm_like("items"."name", ?, 3))"#,
            [.text("a*")]),
        ClauseCase("name MATCHES '['", .sqlite, "TRUE", [], residual: #"name MATCHES "[""#),
        ClauseCase(
            "kind UTI-EQUALS 'public.jpeg'", .postgres,
            #"("items"."kind" IS NOT NULL AND lower("items"."kind") = lower($1::text))"#, [.text("public.jpeg")]),
        ClauseCase(
            "ANY tags.weight > 2", .sqlite,
            #"EXISTS (SELECT 1 FROM "tags" AS "c1" WHERE "c1"."item_id" = "items"."id" AND "c1"."weight" > ?)"#,
            [.integer(2)]),
        ClauseCase(
            "ALL tags.label == 'a'", .postgres,
            #"(NOT EXISTS (SELECT 1 FROM "tags" AS "c1" WHERE "c1"."item_id" = "items"."id" AND (NOT ("c1"."label" IS NOT NULL AND "c1"."label" = $1::text))))"#,
            [.text("a")]),
        ClauseCase("ANY tags.label < 'a'", .sqlite, "TRUE", [], residual: #"ANY tags.label < "a""#),
        ClauseCase("ANY tags.label == nil", .sqlite, "FALSE", []),
        ClauseCase(
            "tags.@count > 1", .sqlite,
            #"(SELECT COUNT(*) FROM "tags" AS "c1" WHERE "c1"."item_id" = "items"."id") > ?"#,
            [.integer(1)]),
        ClauseCase(
            "SUBQUERY(tags, $t, $t.weight > 1).@count > 0", .postgres,
            #"(SELECT COUNT(*) FROM "tags" AS "c1" WHERE "c1"."item_id" = "items"."id" AND "c1"."weight" > $1::bigint) > $2::bigint"#,
            [.integer(1), .integer(0)]),
        ClauseCase(
            "userInfo.note == 'x'", .sqlite,
            #"(COALESCE(json_type("items"."user_info", ?), 'null') = 'text' AND json_extract("items"."user_info", ?) = ?)"#,
            [.text(#"$."note""#), .text(#"$."note""#), .text("x")]),
        ClauseCase(
            "userInfo.rank == nil", .postgres,
            #"COALESCE(jsonb_typeof("items"."user_info" -> $1::text), 'null') = 'null'"#, [.text("rank")]),
        ClauseCase("userInfo.rank > 1", .sqlite, "TRUE", [], residual: "userInfo.rank > 1"),
        // The negation of a superset is a subset: the whole NOT is re-checked.
        ClauseCase("NOT name < 'b'", .postgres, "TRUE", [], residual: #"NOT name < "b""#),
        // AND pushes what it can: a re-checked operand that cannot raise does not stop it...
        ClauseCase(
            "name ==[c] 'x' AND bytes > 5", .postgres,
            #"("items"."bytes" IS NOT NULL AND "items"."bytes" > $1::bigint)"#,
            [.integer(5)], residual: #"name ==[c] "x""#),
        // ...but one that may raise does: a row it raises on must reach the re-check.
        ClauseCase("bytes < 'a' AND bytes > 5", .sqlite, "TRUE", [], residual: #"bytes < "a" AND bytes > 5"#),
        ClauseCase(
            "bytes > 5 AND bytes < 'a'", .sqlite, #"("items"."bytes" IS NOT NULL AND "items"."bytes" > ?)"#,
            [.integer(5)],
            residual: #"bytes < "a""#),
        // OR keeps a superset of each operand, and re-checks the whole OR.
        ClauseCase(
            "bytes > 5 OR score > 1", .postgres,
            #"(("items"."bytes" IS NOT NULL AND "items"."bytes" > $1::bigint) OR ("items"."score" IS NOT NULL AND "items"."score" > $2::double precision))"#,
            [.integer(5), .real(1)]),
        ClauseCase("bytes > 5 OR name < 'b'", .postgres, "TRUE", [], residual: #"bytes > 5 OR name < "b""#),
        ClauseCase("1 < 2", .sqlite, "TRUE", []),
        ClauseCase("TRUEPREDICATE AND FALSEPREDICATE", .sqlite, "FALSE", []),
    ]

    @Test(arguments: cases)
    func clause(_ testCase: ClauseCase) throws {
        let rule = try PredicateParser.parsePredicate(testCase.rule).predicate
        let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: testCase.dialect)
        #expect(translation.sql == testCase.sql)
        #expect(translation.parameters == testCase.parameters)
        #expect(translation.residual?.format == testCase.residual)
        #expect(translation.isExact == (testCase.residual == nil))
    }

    /// A rule bound against a schema reads its keys by slot; the clause is the same.
    @Test func boundRulesTranslateAsTheirKeys() throws {
        let schema = Schema(typeName: "Item", fields: [Schema.Field("bytes", .integer), Schema.Field("name", .string)])
        let rule = try PredicateParser.parsePredicate("bytes > 5 AND name BEGINSWITH 'a'").predicate
        let bound = Binder.bind(rule, selfType: .object(SchemaReference(schema)))
        #expect(Binder.boundFieldCount(bound) == 2)
        let plain = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .sqlite)
        let prepared = try SQLTranslator.translate(bound, mapping: TestMapping.mapping, dialect: .sqlite)
        #expect(plain.sql == prepared.sql)
        #expect(plain.parameters == prepared.parameters)
    }

    @Test func functionsAreListed() throws {
        let rule = try PredicateParser.parsePredicate("name LIKE[c] 'a*' OR kind UTI-CONFORMS-TO 'public.image'")
            .predicate
        let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .sqlite)
        #expect(translation.functions == ["pvm_like", "pvm_uti_conforms_to"])
        #expect(translation.comparisons.map(\.isExact) == [true, true])
    }

    /// A comparison inside a SUBQUERY that is re-checked is re-checked with it.
    @Test func subqueryComparisonsShareTheirCountsFate() throws {
        let rule = try PredicateParser.parsePredicate(
            "SUBQUERY(tags, $t, $t.weight > 1).@count < 'x' OR SUBQUERY(tags, $t, $t.weight > 1).@count > 0"
        ).predicate
        let translation = try SQLTranslator.translate(rule, mapping: TestMapping.mapping, dialect: .sqlite)
        #expect(translation.comparisons.map(\.isExact) == [false, false, true, true])
    }

    /// A key the mapping lacks is an error at its place, not a silent nil.
    @Test(arguments: [("bytes > 1 AND sise > 2", 14, 18), ("ANY tagz.label == 'a'", 4, 14)])
    func unknownKeysAreReported(_ rule: String, _ start: Int, _ end: Int) throws {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        #expect(throws: TranslationError.self) {
            try SQLTranslator.translate(parsed, mapping: TestMapping.mapping, dialect: .sqlite)
        }
        do {
            _ = try SQLTranslator.translate(parsed, mapping: TestMapping.mapping, dialect: .sqlite)
        } catch {
            #expect(error.range == SourceRange(start, end))
            #expect(error.message.contains("has no column"))
        }
    }
}
