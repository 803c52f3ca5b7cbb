/// Command-line options of `predicate-bench`.
struct BenchmarkOptions {
    var quick = false
    /// Whether to run the database stage (`--no-database` skips it).
    var database = true
    var showHelp = false
    var filter: String?
    var jsonPath: String?
    var svgPath: String?
    var problem: String?
    private var itemsOption: Int?
    private var sampleOption: Int?
    private var sizesOption: [Int]?
    private var scalingOption: [String]?
    private var runsOption: Int?
    private var databaseRowsOption: Int?
    /// The engines to run (``Engine/name``s), or every engine.
    private(set) var engines: [String]?

    static let usage = """
        usage: predicate-bench [--quick] [--filter NAME] [--engines NAME,…] [--items N] [--sample N]
                               [--sizes N,N,…] [--scaling NAME,NAME,…] [--runs N] [--database-rows N]
                               [--no-database] [--json FILE] [--svg FILE]

          --quick         small sizes and few runs, so CI can check that every benchmark still runs
          --filter NAME   only the workloads (and parse rules) whose name contains NAME
          --engines LIST  only these engines of the evaluation table (e.g. vm,native_rows), as
                          when profiling one of them
          --items N       items the fast engines run on (default 1,000,000; 1e6 is accepted)
          --sample N      items the slow per-item engines (interpreter, vm, foundation_predicate,
                          idiomatic) run on: the first N of the same items (default 50,000)
          --sizes LIST    item counts of the scaling sweep (default 1e3,1e4,1e5,1e6; up to 1e7 fits
                          in about 10 GiB); the slow engines stop at --sample
          --scaling LIST  workloads of the scaling sweep (default: numeric range,one selection: test bit);
                          "none" skips the sweep
          --runs N        timed runs per figure, after the warm-up (default 5, and 3 in the database
                          stage); the median is shown
          --database-rows N
                          rows of the database stage, in SQLite and, when PREDICATE_POSTGRES names a
                          server, in PostgreSQL (default 1,000,000; 20,000 with --quick)
          --no-database   skip the database stage
          --json FILE     also write the figures as JSON
          --svg FILE      also draw the scaling and speed-up charts as an SVG image
          --help          this text
        """

    init(arguments: [String]) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--help", "-h": showHelp = true
            case "--no-database": database = false
            case "--filter", "--engines", "--json", "--svg", "--items", "--sample", "--sizes", "--scaling", "--runs",
                "--database-rows":
                guard let value = remaining.popFirst() else {
                    problem = "\(argument) needs a value"
                    return
                }
                set(argument, value)
                if problem != nil { return }
            default:
                problem = "unknown option \(argument)"
                return
            }
        }
    }

    private mutating func set(_ option: String, _ value: String) {
        switch option {
        case "--filter": filter = value
        case "--engines":
            let names = value.split(separator: ",").map(String.init)
            if let unknown = names.first(where: { name in !Engine.all.contains { $0.name == name } }) {
                problem =
                    "--engines: no engine '\(unknown)' (engines: \(Engine.all.map(\.name).joined(separator: ", ")))"
                return
            }
            engines = names
        case "--json": jsonPath = value
        case "--svg": svgPath = value
        case "--scaling": scalingOption = value == "none" ? [] : value.split(separator: ",").map(String.init)
        case "--sizes":
            let sizes = value.split(separator: ",").map { Self.count(String($0)) }
            guard !sizes.isEmpty, sizes.allSatisfy({ $0 != nil }) else {
                problem = "--sizes needs item counts such as 1e3,1e4,100000, not '\(value)'"
                return
            }
            sizesOption = sizes.compactMap { $0 }
        default:
            guard let count = Self.count(value) else {
                problem = "\(option) needs a whole number between 1 and 100,000,000, not '\(value)'"
                return
            }
            switch option {
            case "--items": itemsOption = count
            case "--runs": runsOption = count
            case "--database-rows": databaseRowsOption = count
            default: sampleOption = count
            }
        }
    }

    /// `1000`, `1_000`, `1,000` or `1e3`; between 1 and 10⁸.
    private static func count(_ text: String) -> Int? {
        let digits = text.filter { $0 != "_" }
        let value: Double?
        if let integer = Int(digits) { value = Double(integer) } else { value = Double(digits) }
        guard let value, value.isFinite, value >= 1, value <= 1e8, value == value.rounded() else { return nil }
        return Int(value)
    }

    /// Items the `.all` engines run on.
    var items: Int { itemsOption ?? (quick ? 20_000 : 1_000_000) }
    /// Rows of the database stage: small under `--quick`, where CI runs it, so it takes seconds.
    var databaseRows: Int { databaseRowsOption ?? (quick ? 20_000 : 1_000_000) }
    /// Items the `.sample` engines run on.
    var sampleItems: Int { min(items, sampleOption ?? (quick ? 2_000 : 50_000)) }
    var sizes: [Int] { (sizesOption ?? (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000])).sorted() }
    var scalingWorkloads: [String] {
        scalingOption ?? ["numeric range", "one selection: test bit"]
    }
    /// How many items to generate: enough for the ladder and for the largest size of the sweep.
    var generatedItems: Int { max(items, scalingWorkloads.isEmpty ? 0 : sizes.last ?? 0) }

    /// Timed runs per measurement (the median is reported) and the minimum time per run.
    var runs: Int { runsOption ?? (quick ? 2 : 5) }
    /// Timed runs of each database-stage figure: fewer by default, since one run over a million
    /// rows loaded from a database takes seconds.
    var databaseRuns: Int { runsOption ?? (quick ? 2 : 3) }
    var minimumRunSeconds: Double { quick ? 0.001 : 0.02 }

    /// Whether the evaluation table runs the engine named `name`.
    func runsEngine(_ name: String) -> Bool { engines?.contains(name) ?? true }

    func includes(_ name: String) -> Bool {
        guard let filter else { return true }
        return name.localizedCaseInsensitiveContains(filter)
    }
}
