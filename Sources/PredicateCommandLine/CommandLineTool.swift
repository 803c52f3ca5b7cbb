/// The `predicate` command-line tool.
public enum CommandLineTool {
    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    public static func run(arguments: [String]) -> Int32 { 0 }
}
