import Foundation

/// The `predicate` executable the build put next to these tests: in the same directory as the
/// test binary, whatever the build directory (`.build/debug`, or CI's sanitizer builds in
/// `--scratch-path .build/asan`), else the default `.build/debug/predicate`.
func builtTool(root: URL) -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        .appendingPathComponent("predicate")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    return root.appendingPathComponent(".build/debug/predicate")
}
