import Foundation
import PackagePlugin

/// `swift package check-file-provider-rules [FILE|DIRECTORY ...] [predicate check options]`:
/// runs `predicate check --format xcode` on the given files, or on every `*Info.plist` of the
/// package it runs in, so that File Provider rules are checked by the package's own tooling.
///
/// Options (anything starting with `-`) go to `predicate check` unchanged: `--fail-on warning`,
/// `--format github` in a GitHub workflow, …. The command fails when `predicate check` does.
@main
struct CheckFileProviderRules: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "predicate")
        // Arguments keep their order, so that an option keeps its value (`--format github`).
        var arguments = arguments
        if !arguments.contains(where: { $0 == "--format" || $0.hasPrefix("--format=") || $0 == "--json" }) {
            arguments = ["--format", "xcode"] + arguments
        }
        if !Self.hasOperand(arguments) { arguments.append(context.package.directoryURL.path) }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["check"] + arguments
        try process.run()
        process.waitUntilExit()
        // Thrown, not only reported, so that `swift package` exits non-zero as CI needs.
        guard process.terminationStatus == 0 else { throw CheckFailed(status: process.terminationStatus) }
    }

    /// Whether `arguments` name a file or directory: an argument that is neither an option nor
    /// the value of one of `predicate check`'s valued options.
    static func hasOperand(_ arguments: [String]) -> Bool {
        let valued: Set = ["--format", "--fail-on", "--context"]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if valued.contains(argument) {
                index += 2
                continue
            }
            if argument == "-" || !argument.hasPrefix("-") { return true }
            index += 1
        }
        return false
    }
}

/// `predicate check` failed: it found problems (1) or could not read a file (2).
struct CheckFailed: Error, CustomStringConvertible {
    let status: Int32
    var description: String {
        status == 1 ? "predicate check found problems (exit code 1)" : "predicate check failed (exit code \(status))"
    }
}
