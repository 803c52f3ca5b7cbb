import Foundation
import PredicateBatch
import PredicateFileProvider
import PredicatePostgres
import PredicateSQL
import PredicateSQLite
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Rules where the items live (issue 19): the same items as rows of SQLite (in memory, without
/// and then with an index on the filtered column) and of PostgreSQL (when `PREDICATE_POSTGRES`
/// names a server), each rule pushed down through the item store's `query` against loading every
/// row through the same store and filtering in memory with the VM and the batch engine.
///
/// Every figure is what a caller pays for the answer, divided by the rows in the table: a
/// push-down includes translating the rule, the database's work, decoding the matching rows and
/// re-checking a residual; the in-memory engines include fetching and decoding every row (and,
/// for the batch engine, building its columns), because the items are in the database, not in
/// memory, when the question is asked.
enum DatabaseBenchmark {
    /// The variable the tests use too: a libpq connection string.
    static let postgresVariable = "PREDICATE_POSTGRES"
    /// Where the PostgreSQL tables live, dropped at the end.
    static let postgresSchema = "predicate_bench"

    struct Rule {
        let name: String
        let text: String
    }

    /// Two selective ranges (half a per cent and four per cent of the rows: where an index pays,
    /// and where it stops paying), the README's item filter (a quarter of the rows), and a string
    /// operator with an option (exact in SQLite through this package's functions, re-checked on
    /// PostgreSQL).
    static let rules = [
        Rule(name: "very selective range", text: "documentSize > 19900000"),
        Rule(name: "selective range", text: "documentSize > 19000000"),
        Rule(name: "not uploaded and large", text: "isUploaded == NO AND documentSize > 1e6"),
        Rule(name: "ENDSWITH[c]", text: "filename ENDSWITH[c] '.pdf'"),
    ]

    static let mapping = TableMapping(
        table: "items",
        columnTypes: ["filename": .text, "documentSize": .integer, "isUploaded": .boolean, "isShared": .boolean])

    /// The engines, in column order.
    static let engines = [
        "sqlite_pushdown", "sqlite_pushdown_indexed", "sqlite_load_vm", "sqlite_load_batch", "postgres_pushdown",
        "postgres_pushdown_indexed", "postgres_load_vm", "postgres_load_batch",
    ]

    struct WorkloadResult: Encodable {
        let name: String
        let rule: String
        let matches: Int
        /// Microseconds to translate the rule, per dialect.
        let translationMicroseconds: [String: Double]
        /// Whether the clause is exact, per dialect.
        let exact: [String: Bool]
        let timings: [(engine: String, timing: Timing)]
        /// The rows each push-down fetched before the re-check.
        let rowsFetched: [String: Int]
        let rows: Int

        enum CodingKeys: String, CodingKey {
            case name, rule, matches, exact, rows
            case translationMicroseconds = "translation_us"
            case nsPerItem = "ns_per_item"
            case rowsPerSecond = "rows_per_second"
            case spread = "ns_per_item_spread"
            case rowsFetched = "rows_fetched"
        }

        func nanosecondsPerItem(_ engine: String) -> Double? {
            timings.first { $0.engine == engine }?.timing.median
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(rule, forKey: .rule)
            try container.encode(rows, forKey: .rows)
            try container.encode(matches, forKey: .matches)
            try container.encode(exact, forKey: .exact)
            try container.encode(translationMicroseconds, forKey: .translationMicroseconds)
            let figures = DatabaseBenchmark.engines.map { ($0, nanosecondsPerItem($0)) }
            try container.encode(BenchmarkReport.NullableFigures(figures), forKey: .nsPerItem)
            try container.encode(
                BenchmarkReport.NullableFigures(figures.map { ($0.0, $0.1.map { 1e9 / $0 }) }), forKey: .rowsPerSecond)
            var spread: [String: BenchmarkReport.Spread] = [:]
            for (engine, timing) in timings { spread[engine] = BenchmarkReport.Spread(timing) }
            try container.encode(spread, forKey: .spread)
            try container.encode(rowsFetched, forKey: .rowsFetched)
        }
    }

    struct Result: Encodable {
        let rows: Int
        let workloads: [WorkloadResult]
        /// Loading every row through the store (`query(TRUEPREDICATE)`), ns per row, per database.
        let loadNanosecondsPerRow: [String: Double]
        /// Inserting the rows and building the index, per database (not part of any figure).
        let setupSeconds: [String: Double]
        /// Why PostgreSQL was not measured, when it was not.
        let postgresSkipped: String?

        enum CodingKeys: String, CodingKey {
            case rows, workloads
            case loadNanosecondsPerRow = "load_ns_per_row"
            case setupSeconds = "setup_seconds"
            case postgresSkipped = "postgres_skipped"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rows, forKey: .rows)
            try container.encode(workloads, forKey: .workloads)
            try container.encode(loadNanosecondsPerRow, forKey: .loadNanosecondsPerRow)
            try container.encode(setupSeconds, forKey: .setupSeconds)
            // Always present, null when PostgreSQL ran, so a reader need not guess.
            try container.encode(postgresSkipped, forKey: .postgresSkipped)
        }
    }

    /// The item as a row: the mapped properties, a missing size left out (nil).
    static func row(_ item: FileProviderItem) -> [String: Value] {
        var row: [String: Value] = [
            "filename": .string(item.filename), "isUploaded": .bool(item.isUploaded), "isShared": .bool(item.isShared),
        ]
        if let size = item.documentSize { row["documentSize"] = .int(size) }
        return row
    }

    static func run(options: BenchmarkOptions, dataset: Dataset) -> Result {
        let count = options.databaseRows
        let items: [StoredItem]
        if dataset.items.count >= count {
            items = dataset.items[..<count].enumerated().map { StoredItem(id: Int64($0), item: row($1)) }
        } else {
            var generator = ItemGenerator(seed: 0x5EED)
            items = (0..<count).map { StoredItem(id: Int64($0), item: row(generator.item($0))) }
        }
        let selected = rules.filter { options.includes($0.name) }
        var setup: [String: Double] = [:]
        var load: [String: Double] = [:]
        var timings: [[(String, Timing)]] = Array(repeating: [], count: selected.count)
        var fetched: [[String: Int]] = Array(repeating: [:], count: selected.count)
        var matches: [Int?] = Array(repeating: nil, count: selected.count)
        let parsed = selected.map { parse($0.text) }

        func record(_ index: Int, _ engine: String, _ answer: (matches: Int, fetched: Int?), _ timing: Timing) {
            if let expected = matches[index], expected != answer.matches {
                fail("\(engine) finds \(answer.matches) rows for '\(selected[index].text)', others \(expected)")
            }
            matches[index] = answer.matches
            if let rows = answer.fetched { fetched[index][engine] = rows }
            timings[index].append((engine, timing))
        }

        // SQLite: the store, measured before and after the index exists.
        let start = ContinuousClock.now
        let sqlite = orFail { () throws(ItemStoreError) in try SQLiteItemStore(mapping: mapping) }
        orFail { () throws(ItemStoreError) in try sqlite.insert(contentsOf: items) }
        setup["sqlite_insert"] = seconds(ContinuousClock.now - start)
        let sqliteSource = Source(
            name: "sqlite", load: { orFail { () throws(ItemStoreError) in try sqlite.query(truePredicate) } },
            query: { rule in orFail { () throws(ItemStoreError) in try sqlite.query(rule) } })
        measure(sqliteSource, "sqlite_pushdown", parsed, options, count, record)
        let indexStart = ContinuousClock.now
        orFail { () throws(SQLiteError) in
            try sqlite.database.execute(#"CREATE INDEX "items_documentSize" ON "items" ("documentSize")"#)
            try sqlite.database.execute("ANALYZE")
        }
        setup["sqlite_index"] = seconds(ContinuousClock.now - indexStart)
        measure(sqliteSource, "sqlite_pushdown_indexed", parsed, options, count, record)
        load["sqlite"] = measureInMemory(sqliteSource, parsed, options, count, record)

        // PostgreSQL, when a server is named.
        var skipped: String?
        if let connectionString = ProcessInfo.processInfo.environment[postgresVariable], !connectionString.isEmpty {
            let connection = orFail { () throws(PostgresError) in
                let connection = try PostgresConnection(connectionString)
                try connection.execute("DROP SCHEMA IF EXISTS \(postgresSchema) CASCADE")
                try connection.execute("CREATE SCHEMA \(postgresSchema)")
                try connection.execute("SET search_path TO \(postgresSchema)")
                return connection
            }
            defer { try? connection.execute("DROP SCHEMA IF EXISTS \(postgresSchema) CASCADE") }
            let store = PostgresItemStore(mapping: mapping, connection: connection)
            let start = ContinuousClock.now
            orFail { () throws(PostgresStoreError) in try store.createTables() }
            insert(items, into: connection)
            orFail { () throws(PostgresError) in try connection.execute("ANALYZE items") }
            setup["postgres_insert"] = seconds(ContinuousClock.now - start)
            let source = Source(
                name: "postgres", load: { orFail { () throws(PostgresStoreError) in try store.query(truePredicate) } },
                query: { rule in orFail { () throws(PostgresStoreError) in try store.query(rule) } })
            measure(source, "postgres_pushdown", parsed, options, count, record)
            let indexStart = ContinuousClock.now
            orFail { () throws(PostgresError) in
                try connection.execute(#"CREATE INDEX ON "items" ("documentSize")"#)
                try connection.execute("ANALYZE items")
            }
            setup["postgres_index"] = seconds(ContinuousClock.now - indexStart)
            measure(source, "postgres_pushdown_indexed", parsed, options, count, record)
            load["postgres"] = measureInMemory(source, parsed, options, count, record)
        } else {
            skipped = "\(postgresVariable) is not set (scripts/with-postgres sets it)"
        }

        let workloads = selected.indices.map { index in
            var translation: [String: Double] = [:]
            var exact: [String: Bool] = [:]
            for dialect in SQLDialect.allCases {
                var clause: SQLTranslation?
                let timing = Timing.measure(
                    runs: options.databaseRuns, minimumSeconds: options.minimumRunSeconds, units: 1
                ) {
                    clause = try? SQLTranslator.translate(parsed[index], mapping: mapping, dialect: dialect)
                }
                translation[dialect.rawValue] = timing.median / 1_000
                exact[dialect.rawValue] = clause?.isExact
            }
            return WorkloadResult(
                name: selected[index].name, rule: selected[index].text, matches: matches[index] ?? 0,
                translationMicroseconds: translation, exact: exact, timings: timings[index],
                rowsFetched: fetched[index], rows: count)
        }
        let result = Result(
            rows: count, workloads: workloads, loadNanosecondsPerRow: load, setupSeconds: setup,
            postgresSkipped: skipped)
        printTable(result)
        return result
    }

    /// A store as the stage uses it: load every item, or query a rule.
    struct Source {
        let name: String
        let load: () -> QueryResult
        let query: (PredicateSyntax.PredicateNode) -> QueryResult
    }

    private static func measure(
        _ source: Source, _ engine: String, _ rules: [PredicateSyntax.PredicateNode], _ options: BenchmarkOptions,
        _ count: Int,
        _ record: (Int, String, (matches: Int, fetched: Int?), Timing) -> Void
    ) {
        for (index, rule) in rules.enumerated() {
            var answer = source.query(rule)
            let timing = Timing.measure(
                runs: options.databaseRuns, minimumSeconds: options.minimumRunSeconds, units: count, warmUp: false
            ) { answer = source.query(rule) }
            guard answer.errors.isEmpty else { fail("\(engine) raised on \(answer.errors.count) rows") }
            record(index, engine, (answer.items.count, answer.rowsFetched), timing)
        }
    }

    /// Every row loaded through the store, then each rule on the VM and on the batch engine (all
    /// cores, its columns built from the loaded rows); returns the load alone, ns per row.
    private static func measureInMemory(
        _ source: Source, _ rules: [PredicateSyntax.PredicateNode], _ options: BenchmarkOptions, _ count: Int,
        _ record: (Int, String, (matches: Int, fetched: Int?), Timing) -> Void
    ) -> Double {
        let loadTiming = Timing.measure(
            runs: options.databaseRuns, minimumSeconds: options.minimumRunSeconds, units: count
        ) {
            blackHole(source.load().items.count)
        }
        for (index, rule) in rules.enumerated() {
            let program = orFail { () throws(CompileError) in try Compiler.compile(rule) }
            let batchProgram = BatchProgram(program)
            var machine = VirtualMachine(program: program)
            func viaVM() -> Int {
                source.load().items.reduce(0) { total, stored in
                    total + ((try? machine.evaluate(on: .dictionary(stored.item))) == true ? 1 : 0)
                }
            }
            func viaBatch() -> Int {
                let rows = source.load().items.map { Value.dictionary($0.item) }
                return batchProgram.evaluate(ColumnBatch(rows: rows, for: batchProgram), threads: BatchProgram.allCores)
                    .matchCount
            }
            var found = viaVM()
            let vm = Timing.measure(runs: options.databaseRuns, minimumSeconds: options.minimumRunSeconds, units: count)
            {
                found = viaVM()
            }
            record(index, source.name + "_load_vm", (found, nil), vm)
            let batch = Timing.measure(
                runs: options.databaseRuns, minimumSeconds: options.minimumRunSeconds, units: count
            ) {
                found = viaBatch()
            }
            record(index, source.name + "_load_batch", (found, nil), batch)
        }
        return loadTiming.median
    }

    /// Many rows a statement: one `INSERT` a row would make loading a million rows a minute of
    /// round trips, and loading is not what is measured.
    private static func insert(_ items: [StoredItem], into connection: PostgresConnection) {
        let codec = ItemCodec(mapping: mapping)
        let columns = ([mapping.primaryKey] + codec.columnNames).map { "\"\($0)\"" }.joined(separator: ", ")
        let perStatement = 1_000
        orFail { () throws(PostgresError) in try connection.execute("BEGIN") }
        for first in stride(from: 0, to: items.count, by: perStatement) {
            let chunk = items[first..<min(first + perStatement, items.count)]
            var parameters: [SQLValue] = []
            var tuples: [String] = []
            for stored in chunk {
                let encoded = orFail { () throws(ItemEncodingError) in try codec.encode(stored.item, for: .postgres) }
                let values = [SQLValue.integer(stored.id)] + encoded.values
                let base = parameters.count
                tuples.append("(" + (1...values.count).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
                parameters += values
            }
            let statement = "INSERT INTO \"items\" (\(columns)) VALUES " + tuples.joined(separator: ", ")
            orFail { () throws(PostgresError) in try connection.execute(statement, parameters) }
        }
        orFail { () throws(PostgresError) in try connection.execute("COMMIT") }
    }

    static func printTable(_ result: Result) {
        print(
            "\nRules where the items live (\(result.rows) rows; ns/item = the caller's whole cost ÷ rows in the table)")
        for (database, nanoseconds) in result.loadNanosecondsPerRow.sorted(by: { $0.key > $1.key }) {
            print("  loading every row from \(database): \(column(nanoseconds, decimals: 0, width: 0)) ns/row")
        }
        if let skipped = result.postgresSkipped { print("  postgres: skipped, \(skipped)") }
        for workload in result.workloads {
            let translation = SQLDialect.allCases.map { dialect in
                let exact = workload.exact[dialect.rawValue] == true ? "exact" : "residual"
                let micros = column(workload.translationMicroseconds[dialect.rawValue] ?? .nan, decimals: 1, width: 0)
                return "\(dialect.rawValue) \(micros) µs, \(exact)"
            }
            print(
                "  \(workload.rule)  (\(workload.matches) matches; translation: \(translation.joined(separator: "; ")))"
            )
            for engine in engines {
                guard let nanoseconds = workload.nanosecondsPerItem(engine) else { continue }
                let fetched = workload.rowsFetched[engine].map { "  \($0) rows fetched" } ?? ""
                print(
                    "    \(column(engine, width: 26)) \(column(nanoseconds, decimals: 1, width: 9)) ns/item "
                        + "\(column(1e3 / nanoseconds, decimals: 2, width: 9)) M rows/s\(fetched)")
            }
        }
        for (label, value) in result.setupSeconds.sorted(by: { $0.key < $1.key }) {
            print("  setup \(column(label, width: 18)) \(column(value, decimals: 2, width: 7)) s (not timed)")
        }
    }

    /// What loading every item asks the store for.
    private static let truePredicate = parse("TRUEPREDICATE")

    private static func parse(_ text: String) -> PredicateSyntax.PredicateNode {
        do {
            return try PredicateParser.parsePredicate(text).predicate
        } catch {
            fail("'\(text)' does not parse: \(error)")
        }
    }

    private static func orFail<T, E: Error>(_ body: () throws(E) -> T) -> T {
        do {
            return try body()
        } catch {
            fail("\(error)")
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("predicate-bench: database stage: \(message)\n".utf8))
        exit(1)
    }
}
