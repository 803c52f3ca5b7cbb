import Foundation

/// The median and spread of several timed runs of one piece of work.
struct Timing: Encodable {
    /// Nanoseconds per unit of work (one rule parsed, one item evaluated, …), per run.
    let samples: [Double]

    var median: Double { quantile(0.5) }
    var minimum: Double { samples.min() ?? .nan }
    var maximum: Double { samples.max() ?? .nan }

    /// The `fraction` quantile of the samples, interpolating between neighbours.
    func quantile(_ fraction: Double) -> Double {
        let sorted = samples.sorted()
        guard let first = sorted.first else { return .nan }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        guard lower >= 0, lower < sorted.count else { return first }
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// (max - min) / median, as a percentage: how much the runs disagreed.
    var spreadPercent: Double {
        guard median > 0 else { return .nan }
        return (maximum - minimum) / median * 100
    }

    /// Times `body`, which does `units` units of work per call: a warm-up call unless the caller
    /// has just made one, then `runs` runs, each repeating `body` until it has taken at least
    /// `minimumSeconds` (so that tiny workloads are not timed below the clock's resolution).
    static func measure(
        runs: Int, minimumSeconds: Double, units: Int, warmUp: Bool = true, _ body: () -> Void
    ) -> Timing {
        if warmUp { body() }
        return Timing(samples: (0..<runs).map { _ in sample(minimumSeconds: minimumSeconds, units: units, body) })
    }

    /// One timed run: `body` repeated until it has taken at least `minimumSeconds`; ns per unit.
    static func sample(minimumSeconds: Double, units: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var repetitions = 0
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            body()
            repetitions += 1
            elapsed = clock.now - start
        } while elapsed < .seconds(minimumSeconds)
        return seconds(elapsed) * 1e9 / Double(repetitions * max(1, units))
    }
}

extension Timing {
    /// Times `body` once per run, after a warm-up call, for work timed whole (a rule set over
    /// every input): `runs` samples (at least one) of nanoseconds per unit. `body` returns a
    /// count of what it found, kept so that the optimiser cannot drop the work.
    static func onePassPerRun(runs: Int, units: Int, _ body: () -> Int) -> Timing {
        var sink = body()
        let clock = ContinuousClock()
        let samples = (0..<max(1, runs)).map { _ in
            let start = clock.now
            sink &+= body()
            return seconds(clock.now - start) * 1e9 / Double(max(1, units))
        }
        blackHole(sink)
        return Timing(samples: samples)
    }
}

/// Keeps a computed value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The machine a run happened on, so figures are never quoted without it.
struct MachineDescription: Encodable {
    let cpu: String
    let cores: Int
    let memoryGiB: Double
    let os: String
    let swift: String

    enum CodingKeys: String, CodingKey {
        case cpu, cores, os, swift
        case memoryGiB = "memory_gib"
    }

    static func current() -> MachineDescription {
        let info = ProcessInfo.processInfo
        var cpu = "unknown CPU"
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let name = line.split(separator: ":", maxSplits: 1).last
        {
            cpu = name.trimmingCharacters(in: .whitespaces)
        }
        #if swift(>=6.3)
            let swift = "Swift 6.3+"
        #else
            let swift = "Swift 6"
        #endif
        return MachineDescription(
            cpu: cpu, cores: info.activeProcessorCount,
            memoryGiB: (Double(info.physicalMemory) / Double(1 << 30) * 10).rounded() / 10,
            os: info.operatingSystemVersionString, swift: swift)
    }

    var summary: String { "\(cpu), \(cores) cores, \(memoryGiB) GiB, \(os), \(swift)" }
}

/// Peak resident memory of this process so far, in MiB.
func peakMemoryMiB() -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    #else
        getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1024 / 1024
    #endif
}

/// Formats a number with a fixed number of decimals, right-aligned in `width` columns.
func column(_ value: Double, decimals: Int = 1, width: Int = 10) -> String {
    let text = value.isFinite ? String(format: "%.\(decimals)f", value) : "—"
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

func column(_ text: String, width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
