/// Command-line options of `predicate-bench`.
struct BenchmarkOptions {
    var quick = false
    var showHelp = false
    var filter: String?
    var jsonPath: String?
    var problem: String?

    static let usage = """
        usage: predicate-bench [--quick] [--filter NAME] [--json FILE]

          --quick        small sizes and few runs, so CI can check that every benchmark still runs
          --filter NAME  only the workloads whose name contains NAME
          --json FILE    also write the figures as JSON
          --help         this text
        """

    init(arguments: [String]) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--help", "-h": showHelp = true
            case "--filter", "--json":
                guard let value = remaining.popFirst() else {
                    problem = "\(argument) needs a value"
                    return
                }
                if argument == "--filter" { filter = value } else { jsonPath = value }
            default:
                problem = "unknown option \(argument)"
                return
            }
        }
    }

    /// Timed runs per measurement (the median is reported) and the minimum time per run.
    var runs: Int { quick ? 3 : 9 }
    var minimumRunSeconds: Double { quick ? 0.005 : 0.05 }

    func includes(_ name: String) -> Bool {
        guard let filter else { return true }
        return name.localizedCaseInsensitiveContains(filter)
    }
}
