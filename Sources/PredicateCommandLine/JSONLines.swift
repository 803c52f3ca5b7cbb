import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Splits a byte stream into lines without holding more than the current line and one chunk of
/// input in memory.
///
/// A line ends at LF; a CR before it stays part of the line (JSON treats it as whitespace). A
/// final line without LF counts as a line if it is not empty, so `a\nb` and `a\nb\n` both hold
/// two lines, as `wc -l` plus an unterminated last line would count them.
struct LineReader {
    static let chunkSize = 1 << 16

    /// Calls `body` with each line of `input`, without its line feed.
    static func forEachLine(
        in input: inout some CommandLineInput, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(CommandLineIOError) {
        try forEachLineWhile(in: &input) { line in
            body(line)
            return true
        }
    }

    /// Calls `body` with each line of `input`, without its line feed, until it returns false.
    static func forEachLineWhile(
        in input: inout some CommandLineInput, _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) throws(CommandLineIOError) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(chunkSize * 2)
        var lineStart = 0
        // Bytes before this index are known to hold no line feed after `lineStart`, so a long
        // line arriving in many chunks is scanned once, not once per chunk.
        var searchStart = 0
        var atEnd = false
        while true {
            let lineEnd = buffer.withUnsafeBufferPointer { firstLineFeed(in: $0, from: searchStart) }
            if let lineEnd {
                let more = buffer.withUnsafeBufferPointer {
                    body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd]))
                }
                guard more else { return }
                lineStart = lineEnd + 1
                searchStart = lineStart
                continue
            }
            if atEnd {
                if lineStart < buffer.count {
                    _ = buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[lineStart...])) }
                }
                return
            }
            buffer.removeSubrange(0..<lineStart)
            lineStart = 0
            searchStart = buffer.count
            let chunk = try input.read(maximumCount: chunkSize)
            if chunk.isEmpty {
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk)
            }
        }
    }
}

/// The `eval --jsonl` contract: one JSON test case in, one JSON result line out.
///
/// Every input line yields exactly one output line, whatever is wrong with it, so a harness can
/// pair results with cases by position as well as by `id`.
struct JSONLinesProcessor {
    let options: ParseOptions
    let evaluator: PredicateEvaluator?
    /// The limits of every case (`--max-steps`).
    var limits = EvaluationLimits()

    /// The result line for one input line, without its line feed.
    func process(_ line: UnsafeBufferPointer<UInt8>) -> String {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            return Self.resultLine(id: .null, error: "blank line: expected a JSON object")
        }
        let json: JSON
        do {
            json = try JSON.parse(line)
        } catch {
            return Self.resultLine(id: .null, error: "invalid JSON: \(error)")
        }
        guard case .object = json else {
            return Self.resultLine(id: .null, error: "expected a JSON object, found \(json.typeName)")
        }
        let id = json["id"] ?? .null
        switch testCase(from: json) {
        case .failure(let message):
            return Self.resultLine(id: id, error: message)
        case .success(let testCase):
            return run(testCase, id: id)
        }
    }

    private struct TestCase {
        var predicate: String
        var arguments: [Value]
        var variables: [String: Value]
        var object: Value
    }

    private enum Outcome<Success> {
        case success(Success)
        case failure(String)
    }

    private func testCase(from json: JSON) -> Outcome<TestCase> {
        guard let predicateJSON = json["predicate"] else { return .failure("missing key 'predicate'") }
        guard case .string(let predicate) = predicateJSON else {
            return .failure("'predicate' must be a string, found \(predicateJSON.typeName)")
        }
        var testCase = TestCase(predicate: predicate, arguments: [], variables: [:], object: .nil)
        // An explicit `null` reads as "not given" for every optional key.
        switch json["args"] ?? .null {
        case .null: break
        case .array(let elements):
            switch value(of: .array(elements), key: "args") {
            case .success(.array(let values)): testCase.arguments = values
            case .success: break
            case .failure(let message): return .failure(message)
            }
        case let other: return .failure("'args' must be an array, found \(other.typeName)")
        }
        switch json["vars"] ?? .null {
        case .null: break
        case .object(let members):
            // Member by member, so that a variable named `$date` stays a variable instead of
            // turning the whole object into a date.
            for (name, member) in members {
                switch value(of: member, key: "vars.\(name)") {
                case .success(let value): testCase.variables[name] = value
                case .failure(let message): return .failure(message)
                }
            }
        case let other: return .failure("'vars' must be an object, found \(other.typeName)")
        }
        switch value(of: json["object"] ?? .null, key: "object") {
        case .success(let object): testCase.object = object
        case .failure(let message): return .failure(message)
        }
        return .success(testCase)
    }

    /// Converts the value of `key`, naming the offending place as `key[0].$date` on failure.
    private func value(of json: JSON, key: String) -> Outcome<Value> {
        do throws(JSONConversionError) {
            return .success(try Value(json: json))
        } catch {
            return .failure("invalid value at \(key)\(error.path.dropFirst()): \(error.message)")
        }
    }

    private func run(_ testCase: TestCase, id: JSON) -> String {
        let parsed: ParsedPredicate
        do {
            parsed = try PredicateParser.parsePredicate(
                testCase.predicate, arguments: testCase.arguments, options: options)
        } catch {
            return Self.resultLine(id: id, error: error.description)
        }
        let format = parsed.predicate.format
        guard let evaluator else { return Self.resultLine(id: id, parsed: true, format: format) }
        do {
            let result = try evaluator(parsed.predicate, testCase.object, testCase.variables, limits)
            return Self.resultLine(id: id, parsed: true, format: format, result: result)
        } catch {
            // The language's own errors point into the rule; anything else is passed on as it is.
            let message =
                error is EvaluationError
                ? evaluationDiagnostic(error, source: testCase.predicate).description : String(describing: error)
            return Self.resultLine(id: id, parsed: true, format: format, error: message)
        }
    }

    /// `{"id":…,"parsed":…,"format":…,"result":…,"error":…}`, keys always in this order.
    static func resultLine(
        id: JSON, parsed: Bool = false, format: String? = nil, result: Bool? = nil, error: String? = nil
    ) -> String {
        var line = "{\"id\":"
        id.write(to: &line)
        line += parsed ? ",\"parsed\":true,\"format\":" : ",\"parsed\":false,\"format\":"
        if let format { JSON.writeString(format, to: &line) } else { line += "null" }
        line += ",\"result\":"
        line += result.map { $0 ? "true" : "false" } ?? "null"
        line += ",\"error\":"
        if let error { JSON.writeString(error, to: &line) } else { line += "null" }
        line += "}"
        return line
    }
}
