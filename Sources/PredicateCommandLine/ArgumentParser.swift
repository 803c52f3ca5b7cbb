/// A mistake in how the tool was invoked; reported with the subcommand's usage line, exit 2.
struct UsageError: Error {
    let message: String
    /// The subcommand whose usage to show, or `nil` for the tool's.
    let subcommand: Subcommand?
}

/// The subcommands, with the options each accepts.
enum Subcommand: String, CaseIterable {
    case format
    case eval
    case disasm
    case check
    case actions
    case filter
    case explain
    case sql
    case help

    /// Options that take no value.
    var flags: Set<String> {
        switch self {
        case .format: return ["--expression", "--strict", "--round-trip", "--help", "-h"]
        case .disasm: return ["--expression", "--strict", "--help", "-h"]
        case .eval: return ["--jsonl", "--json", "--strict", "--help", "-h"]
        case .check: return ["--json", "--plist", "--help", "-h"]
        case .actions: return ["--json", "--explain", "--help", "-h"]
        case .filter: return ["--count", "--strict", "--help", "-h"]
        case .explain: return ["--json", "--strict", "--help", "-h"]
        case .sql: return ["--json", "--explain", "--strict", "--help", "-h"]
        case .help: return ["--help", "-h"]
        }
    }

    /// Options that take a value, as `--name VALUE` or `--name=VALUE`.
    var valuedOptions: Set<String> {
        switch self {
        case .format, .disasm: return ["--args"]
        case .eval: return ["--args", "--vars", "--object", "--engine", "--max-steps"]
        case .actions: return ["--items", "--interaction", "--expect", "--max-steps"]
        case .filter: return ["--items", "--chunk-size", "--args", "--max-steps"]
        case .explain: return ["--object", "--items", "--args", "--vars", "--max-steps"]
        case .check: return ["--context", "--format", "--fail-on"]
        case .sql: return ["--dialect", "--mapping", "--args"]
        case .help: return []
        }
    }
}

/// A subcommand's arguments, sorted into options and operands.
struct ParsedArguments {
    var operands: [String] = []
    /// Option values by name; flags map to the empty string.
    var options: [String: String] = [:]

    func has(_ option: String) -> Bool { options[option] != nil }

    /// Sorts `arguments` for `subcommand`. Options may come before or after operands; `--` ends
    /// the options, so a rule that starts with `-` can still be given; a lone `-` is an operand.
    init(_ arguments: ArraySlice<String>, for subcommand: Subcommand) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                operands += remaining
                return
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                operands.append(argument)
                continue
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            if subcommand.flags.contains(name) {
                guard value == nil else {
                    throw UsageError(message: "option '\(name)' takes no value", subcommand: subcommand)
                }
                value = ""
            } else if subcommand.valuedOptions.contains(name) {
                if value == nil {
                    guard let next = remaining.popFirst() else {
                        throw UsageError(message: "option '\(name)' needs a value", subcommand: subcommand)
                    }
                    value = next
                }
            } else {
                throw UsageError(
                    message: "unknown option '\(name)' for '\(subcommand.rawValue)'", subcommand: subcommand)
            }
            guard options[name] == nil else {
                throw UsageError(message: "option '\(name)' given more than once", subcommand: subcommand)
            }
            options[name] = value
        }
    }
}
