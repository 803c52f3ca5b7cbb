import PredicateValue

/// `actions --expect FILE`: which actions a selection should show (and which interactions an
/// operation should match), so that a selection becomes a regression test in CI.
///
/// The file is a JSON array of action identifiers, or an object with `"enabled"` (identifiers)
/// and/or `"matched"` (interaction positions such as `"1.1"`); the output of `actions --json`
/// is such an object (its `"interactions"` entries give `"matched"`), so a reviewed run can be
/// saved as the expectation.
struct ActionExpectation {
    var enabled: [String]?
    var matched: [String]?

    init(json bytes: [UInt8], origin: String) throws(CommandLineIOError) {
        let document: JSON
        do throws(JSONParseError) {
            document = try JSON.parse(bytes)
        } catch {
            throw CommandLineIOError("\(origin): invalid JSON: \(error)")
        }
        switch document {
        case .array:
            enabled = try Self.strings(document, "\(origin): the array")
        case .object(let members):
            for (key, value) in members {
                switch key {
                case "enabled": enabled = try Self.strings(value, "\(origin): \"enabled\"")
                case "matched": matched = try Self.strings(value, "\(origin): \"matched\"")
                case "interactions" where matched == nil: matched = try Self.matchedPositions(value, origin)
                default: continue
                }
            }
            guard enabled != nil || matched != nil else {
                throw CommandLineIOError("\(origin) has neither \"enabled\" nor \"matched\"")
            }
        default:
            throw CommandLineIOError(
                "\(origin) must be a JSON array of action identifiers or an object with \"enabled\" or \"matched\"")
        }
    }

    /// What differs from the run, one sentence each; empty when the run is as expected. A kind
    /// the run did not evaluate (`nil`) or the file does not state is not compared.
    func differences(enabled actual: [String]?, matched actualMatched: [String]?) -> [String] {
        var differences: [String] = []
        if let expected = enabled, let actual {
            for identifier in expected where !actual.contains(identifier) {
                differences.append("'\(identifier)' is expected to be shown, and is hidden")
            }
            for identifier in actual where !expected.contains(identifier) {
                differences.append("'\(identifier)' is shown, and is not expected to be")
            }
        }
        if let expected = matched, let actualMatched {
            for position in expected where !actualMatched.contains(position) {
                differences.append("interaction \(position) is expected to match, and does not")
            }
            for position in actualMatched where !expected.contains(position) {
                differences.append("interaction \(position) matches, and is not expected to")
            }
        }
        return differences
    }

    private static func strings(_ json: JSON, _ what: String) throws(CommandLineIOError) -> [String] {
        guard case .array(let elements) = json else { throw CommandLineIOError("\(what) must be an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard case .string(let text) = element else {
                throw CommandLineIOError("\(what) must be an array of strings")
            }
            strings.append(text)
        }
        return strings
    }

    /// The positions of the entries of `actions --json`'s `"interactions"` that matched.
    private static func matchedPositions(_ json: JSON, _ origin: String) throws(CommandLineIOError) -> [String] {
        guard case .array(let entries) = json else {
            throw CommandLineIOError("\(origin): \"interactions\" must be an array")
        }
        var positions: [String] = []
        for entry in entries {
            guard case .object(let members) = entry,
                let position = members.first(where: { $0.key == "position" })?.value,
                case .string(let text) = position
            else { throw CommandLineIOError("\(origin): each interaction needs a \"position\" string") }
            if case .bool(true)? = members.first(where: { $0.key == "matched" })?.value { positions.append(text) }
        }
        return positions
    }
}
