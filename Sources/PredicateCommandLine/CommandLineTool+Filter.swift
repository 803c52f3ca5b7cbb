import PredicateBatch
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Session {
    // MARK: filter

    /// `predicate filter '<rule>' --items FILE.jsonl`: streams the matching lines, a chunk of
    /// lines at a time, so the file's size does not matter.
    mutating func filter(_ arguments: ParsedArguments) throws(UsageError) -> Int32 {
        if arguments.has("--help") || arguments.has("-h") {
            output.write(HelpText.filter + "\n")
            return 0
        }
        guard let itemsSource = arguments.options["--items"] else {
            throw UsageError(message: "missing --items FILE.jsonl (one JSON item a line)", subcommand: .filter)
        }
        var chunkSize = 16384
        if let text = arguments.options["--chunk-size"] {
            guard let size = Int(text), size > 0 else {
                throw UsageError(message: "--chunk-size must be a positive number, got '\(text)'", subcommand: .filter)
            }
            chunkSize = size
        }
        guard let (rule, parsed) = try parseRuleOperand(arguments, for: .filter) else { return 2 }
        guard case .predicate(let predicate) = parsed else {
            throw UsageError(message: "filter needs a predicate, not an expression", subcommand: .filter)
        }
        let program: Program
        do throws(CompileError) {
            program = try Compiler.compile(predicate, source: rule)
        } catch {
            errorOutput.write("predicate: error: \(error)\n")
            return 2
        }
        let origin = itemsSource == "-" ? "--items (standard input)" : "--items '\(itemsSource)'"
        let environment = EvaluationEnvironment(limits: try stepLimits(arguments, for: .filter))
        var streamer = FilterStreamer(program: program, environment: environment, chunkSize: chunkSize, origin: origin)
        streamer.countOnly = arguments.has("--count")
        do throws(CommandLineIOError) {
            if itemsSource == "-" {
                var input = self.input
                defer { self.input = input }
                try streamer.run(&input, &output)
            } else {
                let descriptor = open(itemsSource, O_RDONLY)
                guard descriptor >= 0 else {
                    throw CommandLineIOError("cannot read '\(itemsSource)': \(String(cString: strerror(errno)))")
                }
                defer { close(descriptor) }
                var input = FileDescriptorInput(descriptor: descriptor)
                try streamer.run(&input, &output)
            }
        } catch {
            errorOutput.write(colorize("predicate: error: ", .red) + "\(error)\n")
            return 2
        }
        if let failure = streamer.failure {
            errorOutput.write(colorize("predicate: error: ", .red) + failure + "\n")
            return 2
        }
        if streamer.countOnly { output.write("\(streamer.matched)\n") }
        return streamer.matched > 0 ? 0 : 1
    }
}

/// Reads JSON lines, evaluates them a chunk at a time through ``ChunkFilter``, and writes the
/// matching lines as they were.
struct FilterStreamer {
    let program: BatchProgram
    let chunkSize: Int
    let origin: String
    var countOnly = false
    private(set) var matched = 0
    /// The first bad line, which stops the run (exit 2).
    private(set) var failure: String?
    private var lines: [String] = []
    private var values: [Value] = []
    private var lineNumber = 0

    init(program: Program, environment: EvaluationEnvironment, chunkSize: Int, origin: String) {
        self.program = BatchProgram(program, environment: environment)
        self.chunkSize = chunkSize
        self.origin = origin
        lines.reserveCapacity(chunkSize)
        values.reserveCapacity(chunkSize)
    }

    mutating func run(
        _ input: inout some CommandLineInput, _ output: inout some CommandLineOutput
    ) throws(CommandLineIOError) {
        try LineReader.forEachLineWhile(in: &input) { (line: UnsafeBufferPointer<UInt8>) -> Bool in
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return true }
            let json: JSON
            do throws(JSONParseError) {
                json = try JSON.parse(line)
            } catch {
                failure = "\(origin): line \(lineNumber): invalid JSON: \(error)"
                return false
            }
            do throws(JSONConversionError) {
                values.append(try Value(json: json))
            } catch {
                failure = "\(origin): line \(lineNumber): invalid value: \(error)"
                return false
            }
            lines.append(countOnly ? "" : String(decoding: line, as: UTF8.self))
            if values.count >= chunkSize { flush(&output) }
            return true
        }
        // Lines before a bad one are still answered: they were read and are valid.
        flush(&output)
    }

    private mutating func flush(_ output: inout some CommandLineOutput) {
        guard !values.isEmpty else { return }
        let indices = ChunkFilter.matchingIndices(program, values)
        matched += indices.count
        if !countOnly {
            for index in indices where index < lines.count { output.write(lines[index] + "\n") }
        }
        lines.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }
}
