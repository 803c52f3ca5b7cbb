import PredicateSQL
import PredicateSyntax
import PredicateValue
import Testing

/// What `predicate sql` needs: a mapping from a file or inferred from the rule, and the
/// translation as JSON or explained.
@Suite("Mappings and output")
struct MappingTests {
    @Test(arguments: [
        ("documentSize > 1e6", "documentSize", "documentSize", SQLColumnType.real),
        ("documentSize > 10", "documentSize", "documentSize", .integer),
        ("isUploaded == NO", "isUploaded", "isUploaded", .boolean),
        ("filename ENDSWITH '.pdf'", "filename", "filename", .text),
        ("parent.filename == 'a'", "parent.filename", "parent_filename", .text),
        ("rating BETWEEN {1, 5} OR 3 < rating", "rating", "rating", .integer),
        ("contentType UTI-CONFORMS-TO 'public.image' AND rank == nil", "rank", "rank", .text),
        // Typed by the value of a sub-expression that reads neither the item nor a variable.
        ("documentSize > 1024 * 1024", "documentSize", "documentSize", .integer),
        ("modified < CAST(0, 'NSDate')", "modified", "modified", .date),
        ("modified < now()", "modified", "modified", .text),
        // A collection operator is computed from the stored value, not a column of its own.
        ("tags.@count > 1", "tags", "tags", .text),
        ("a[0] == 1", "a", "a", .text),
    ])
    func inferredColumns(_ rule: String, _ key: String, _ column: String, _ type: SQLColumnType) throws {
        let parsed = try PredicateParser.parsePredicate(rule, options: ParseOptions()).predicate
        let mapping = TableMapping.inferred(for: parsed)
        #expect(mapping.columns[key] == ColumnMapping(column: column, type: type))
        #expect(throws: Never.self) { try SQLTranslator.translate(parsed, mapping: mapping, dialect: .sqlite) }
    }

    @Test func collectionOperatorsAreNotColumns() throws {
        let rule = try PredicateParser.parsePredicate("tags.@count > 1 AND userInfo.@count == 2").predicate
        #expect(TableMapping.inferred(for: rule).columns.keys.sorted() == ["tags", "userInfo"])
    }

    @Test func userInfoIsAJSONColumn() throws {
        let rule = try PredicateParser.parsePredicate("userInfo.rank == 1 AND userInfo.owner == 'me'").predicate
        let mapping = TableMapping.inferred(for: rule)
        #expect(mapping.jsonColumns == ["userInfo": "userInfo"])
        #expect(mapping.columns.isEmpty)
        #expect(try SQLTranslator.translate(rule, mapping: mapping, dialect: .sqlite).isExact)
    }

    static let mappingFile = """
        {"table": "items", "primaryKey": "item_id",
         "columns": {"documentSize": {"column": "size", "type": "integer", "nullable": false},
                     "filename": {"type": "text"}},
         "json": {"userInfo": "user_info"},
         "children": {"tags": {"table": "tags", "foreignKey": "owner",
                               "columns": {"label": {"column": "label", "type": "text"}}}}}
        """

    @Test func mappingFilesAreRead() throws {
        let mapping = try TableMapping(json: JSON.parse(Self.mappingFile))
        #expect(
            mapping
                == TableMapping(
                    table: "items", primaryKey: "item_id",
                    columns: [
                        "documentSize": ColumnMapping(column: "size", type: .integer, isNullable: false),
                        "filename": ColumnMapping(column: "filename", type: .text),
                    ],
                    jsonColumns: ["userInfo": "user_info"],
                    children: [
                        "tags": ChildTableMapping(
                            table: "tags", foreignKey: "owner",
                            columns: ["label": ColumnMapping(column: "label", type: .text)])
                    ]))
    }

    @Test(arguments: [
        (#"[]"#, "$: a mapping must be a JSON object"),
        (#"{}"#, "$.table: missing"),
        (#"{"table": ""}"#, "$.table: must be a non-empty string"),
        (#"{"table": "t", "columns": {"a": {"type": "float"}}}"#, "$.columns.a.type: unknown type 'float'"),
        (
            #"{"table": "t", "columns": {"a": {"type": "text", "nullable": 1}}}"#,
            "$.columns.a.nullable: must be true or false"
        ),
        (#"{"table": "t", "json": {"u": 3}}"#, "$.json.u: must be a non-empty string"),
        (#"{"table": "t", "children": {"c": {}}}"#, "$.children.c.table: missing"),
    ])
    func badMappingFilesAreReported(_ text: String, _ message: String) throws {
        let json = try JSON.parse(text)
        #expect {
            try TableMapping(json: json)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func translationsPrintAsJSON() throws {
        let rule = try PredicateParser.parsePredicate("filename LIKE[c] '*.pdf' AND userInfo.rank > 2").predicate
        let mapping = try TableMapping(json: JSON.parse(Self.mappingFile))
        let translation = try SQLTranslator.translate(rule, mapping: mapping, dialect: .sqlite)
        #expect(
            translation.json.serialized
                == #"{"sql":"(\"items\".\"filename\" IS NOT NULL AND pvm_like(\"items\".\"filename\", ?, 1))","#
                + #""parameters":["*.pdf"],"exact":false,"residual":"userInfo.rank > 2","functions":["pvm_like"]}"#)
    }

    @Test func explanationsMarkEachComparison() throws {
        let source = "documentSize > 5 AND filename < 'b'"
        let rule = try PredicateParser.parsePredicate(source).predicate
        let mapping = try TableMapping(json: JSON.parse(Self.mappingFile))
        let text = try SQLTranslator.translate(rule, mapping: mapping, dialect: .postgres).explained(source: source)
        #expect(
            text == """
                WHERE "items"."size" > $1::bigint
                  $1 = 5
                residual: filename < "b"
                  exact       documentSize > 5
                  re-checked  filename < 'b'
                """)
    }
}
