import Foundation
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Why serialized rule-set bytes could not be loaded.
public struct RuleSetLoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// `the rule set does not load: message`.
    public var description: String { "the rule set does not load: \(message)" }
}

extension RuleSet {
    /// The whole rule set as bytes: every rule's text, its footprint, which rules did not
    /// parse, and the compiled program (``Program/serialized()``), as a JSON document
    /// `{"format": "predicate-rule-set", "version": 1, "rules", "footprints", "failed", "program"}`.
    /// ``init(serialized:schemas:limits:)`` loads it without compiling again.
    ///
    /// - Throws: ``ProgramEncodingError`` when a constant is a host object.
    public func serialized() throws(ProgramEncodingError) -> [UInt8] {
        let program = try self.program.serialized()
        let document = JSON.object([
            ("format", .string(Self.format)),
            ("version", .number(JSON.Number(Int64(Self.version)))),
            ("rules", .array(rules.map(JSON.string))),
            ("footprints", .array(footprints.map { .array($0.map(JSON.string)) })),
            ("failed", .array(problems.keys.sorted().map { .number(JSON.Number(Int64($0))) })),
            ("program", .string(Data(program).base64EncodedString())),
        ])
        return Array(document.serialized.utf8)
    }

    /// Loads a rule set written by ``serialized()``: the same rules, footprints and answers. The
    /// program is checked and verified as ``Program/init(bytes:schemas:limits:)`` checks it; the
    /// rules that did not parse are parsed again for their diagnostics, and must still fail.
    ///
    /// - Parameters:
    ///   - bytes: The serialized rule set.
    ///   - schemas: The schemas the rules were prepared against (see ``Program/init(bytes:schemas:limits:)``).
    ///   - limits: How large a program to accept.
    /// - Throws: ``RuleSetLoadError`` naming what is wrong.
    public init(
        serialized bytes: [UInt8], schemas: [Schema] = [], limits: ProgramLimits = ProgramLimits()
    ) throws(RuleSetLoadError) {
        let document: JSON
        do throws(JSONParseError) {
            document = try JSON.parse(bytes)
        } catch {
            throw RuleSetLoadError("not JSON: \(error)")
        }
        guard case .string(Self.format)? = document["format"] else { throw RuleSetLoadError("not a rule set") }
        guard case .number(let version)? = document["version"], version.text == "\(Self.version)" else {
            throw RuleSetLoadError("unsupported version (this library reads version \(Self.version))")
        }
        let rules = try Self.strings(document["rules"], "rules")
        guard case .array(let footprintList)? = document["footprints"], footprintList.count == rules.count else {
            throw RuleSetLoadError("'footprints' must be an array with one entry per rule")
        }
        var footprints: [[String]] = []
        for entry in footprintList { footprints.append(try Self.strings(entry, "footprints")) }
        guard case .array(let failedList)? = document["failed"] else { throw RuleSetLoadError("'failed' is missing") }
        var problems: [Int: Diagnostic] = [:]
        for entry in failedList {
            guard case .number(let number) = entry, let index = Int(number.text), rules.indices.contains(index) else {
                throw RuleSetLoadError("'failed' must hold rule indices")
            }
            let reparsed = Result { () throws(Diagnostic) in try PredicateParser.parsePredicate(rules[index]) }
            guard case .failure(let diagnostic) = reparsed else {
                throw RuleSetLoadError("rule \(index) is marked failed but parses")
            }
            problems[index] = diagnostic
        }
        guard case .string(let encoded)? = document["program"], let programBytes = Data(base64Encoded: encoded) else {
            throw RuleSetLoadError("'program' must be base64 text")
        }
        let program: Program
        do throws(ProgramLoadError) {
            program = try Program(bytes: Array(programBytes), schemas: schemas, limits: limits)
        } catch {
            throw RuleSetLoadError("program: \(error)")
        }
        guard program.kind == .ruleSet, program.source == RuleSetSource(sources: rules).text else {
            throw RuleSetLoadError("the program is not the one compiled from these rules")
        }
        self.init(rules: rules, program: program, problems: problems, footprints: footprints)
    }

    private static let format = "predicate-rule-set"
    private static let version = 1

    private static func strings(_ json: JSON?, _ name: String) throws(RuleSetLoadError) -> [String] {
        guard case .array(let elements)? = json else { throw RuleSetLoadError("'\(name)' must be an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard case .string(let string) = element else {
                throw RuleSetLoadError("'\(name)' must be an array of strings")
            }
            strings.append(string)
        }
        return strings
    }
}
