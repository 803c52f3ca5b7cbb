import PredicateInterpreter

extension Session {
    /// `text` coloured for standard error, when its colours are on.
    func colorize(_ text: String, _ color: TerminalColor) -> String {
        tool.colorDiagnostics ? color.wrap(text) : text
    }

    /// `text` coloured for standard output, when its colours are on.
    func colorizeOutput(_ text: String, _ color: TerminalColor) -> String {
        tool.colorOutput ? color.wrap(text) : text
    }
}
