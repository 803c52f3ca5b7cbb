import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateValue

/// Reads the case files in `Cases/` (format: `Cases/README.md`).
enum ConformanceFiles {
    static let separator = " ⟫ "

    /// Every case of every file, in file and line order. A malformed line becomes a case that
    /// fails with the reason, so a typo in the data cannot silently drop a case.
    static let all: [ConformanceCase] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cases")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var cases: [ConformanceCase] = []
        for name in files.sorted() where name.hasSuffix(".txt") {
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            cases += parse(text, file: name)
        }
        return cases
    }()

    static func parse(_ text: String, file: String) -> [ConformanceCase] {
        var cases: [ConformanceCase] = []
        var named: [String: Value] = [:]
        var pending = ""
        var startLine = 0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            if pending.isEmpty {
                if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
                if line.hasPrefix("let ") {
                    let parts = line.dropFirst(4).split(separator: "=", maxSplits: 1)
                    if parts.count == 2, let value = try? value(fromJSON: String(parts[1]), named: named) {
                        named[parts[0].trimmingCharacters(in: .whitespaces)] = value
                    } else {
                        cases.append(broken("\(file):\(index + 1)", line, "malformed let"))
                    }
                    continue
                }
                startLine = index + 1
            }
            // A rule may contain raw line breaks: a case ends on the line that holds its fields.
            pending += pending.isEmpty ? line : "\n" + line
            guard pending.contains(separator) else { continue }
            cases.append(parseCase(pending, location: "\(file):\(startLine)", named: named))
            pending = ""
        }
        return cases
    }

    private static func parseCase(_ text: String, location: String, named: [String: Value]) -> ConformanceCase {
        let fields = text.components(separatedBy: separator)
        guard fields.count >= 3 else { return broken(location, text, "needs rule ⟫ object ⟫ expected") }
        var rule = fields[0]
        var isExpression = false
        if rule.hasPrefix("expr: ") {
            rule.removeFirst(6)
            isExpression = true
        }
        do {
            let objectText = fields[1].trimmingCharacters(in: .whitespaces)
            let object: Value
            if objectText == "-" {
                object = .nil
            } else if objectText.hasPrefix("@") {
                guard let value = named[String(objectText.dropFirst())] else {
                    throw CaseError("unknown name \(objectText)")
                }
                object = value
            } else {
                object = try value(fromJSON: objectText, named: named)
            }
            var variables: [String: Value] = [:]
            var arguments: [Value] = []
            for extra in fields.dropFirst(3) {
                if extra.hasPrefix("vars ") {
                    guard case .dictionary(let bound) = try value(fromJSON: String(extra.dropFirst(5)), named: named)
                    else {
                        throw CaseError("vars must be an object")
                    }
                    variables = bound
                } else if extra.hasPrefix("args ") {
                    guard case .array(let values) = try value(fromJSON: String(extra.dropFirst(5)), named: named) else {
                        throw CaseError("args must be an array")
                    }
                    arguments = values.map { $0 == .null ? .nil : $0 }
                } else {
                    throw CaseError("unknown field '\(extra)'")
                }
            }
            return ConformanceCase(
                location: location, rule: rule, isExpression: isExpression, object: object,
                expected: try expectation(fields[2].trimmingCharacters(in: .whitespaces), named: named),
                variables: variables, arguments: arguments)
        } catch {
            return broken(location, text, "\(error)")
        }
    }

    private static func expectation(_ text: String, named: [String: Value]) throws -> ConformanceCase.Expected {
        switch text {
        case "true": return .result(true)
        case "false": return .result(false)
        case "parse error": return .parseError
        default: break
        }
        if text.hasPrefix("error ") {
            guard let kind = EvaluationError.Kind(rawValue: String(text.dropFirst(6))) else {
                throw CaseError("unknown error kind in '\(text)'")
            }
            return .error(kind)
        }
        if text.hasPrefix("= ") {
            let json = String(text.dropFirst(2))
            let parsed = try JSON.parse(json)
            var floating: Bool?
            if case .number(let number) = parsed { floating = !number.isInteger }
            return .value(try value(fromJSON: json, named: named), floating: floating)
        }
        throw CaseError("unknown expectation '\(text)'")
    }

    private static func broken(_ location: String, _ text: String, _ reason: String) -> ConformanceCase {
        ConformanceCase(
            location: location, rule: "MALFORMED CASE (\(reason)): \(text)", isExpression: false, object: .nil,
            expected: .result(true), variables: [:], arguments: [])
    }

    struct CaseError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - JSON with test tags

    static func value(fromJSON text: String, named: [String: Value]) throws -> Value {
        try value(JSON.parse(text), isElement: false)
    }

    /// JSON to a value, with the tags tests need: `$item`, `$type`, `$set`, `$null`, `$uint`.
    private static func value(_ json: JSON, isElement: Bool) throws -> Value {
        switch json {
        case .object(let members) where members.count == 1:
            let (key, payload) = members[0]
            switch key {
            case "$item":
                guard case .dictionary(let properties) = try value(payload, isElement: false) else {
                    throw CaseError("$item needs an object")
                }
                return .object(try FileProviderItem(properties: properties))
            case "$type":
                guard case .string(let identifier) = payload else { throw CaseError("$type needs a string") }
                return .object(UniformType(identifier))
            case "$set":
                guard case .array(let elements) = try value(payload, isElement: false) else {
                    throw CaseError("$set needs an array")
                }
                return .set(elements)
            case "$null":
                return .null
            case "$uint":
                guard case .string(let digits) = payload, let number = UInt64(digits) else {
                    throw CaseError("$uint needs a string of digits")
                }
                return .uint(number)
            case "$date", "$data", "$double":
                return try Value(json: json)
            default:
                return .dictionary([key: try value(payload, isElement: false)])
            }
        case .object(let members):
            var entries: [String: Value] = [:]
            for (key, member) in members { entries[key] = try value(member, isElement: false) }
            return .dictionary(entries)
        case .array(let elements):
            return .array(try elements.map { try value($0, isElement: true) })
        case .null:
            return isElement ? .null : .nil
        default:
            return try Value(json: json)
        }
    }
}
