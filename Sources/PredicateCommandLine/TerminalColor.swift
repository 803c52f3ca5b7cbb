/// ANSI colours for readable output on a terminal; the tool decides per stream whether to use
/// them (a terminal, and `NO_COLOR` unset).
enum TerminalColor: String {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case cyan = "36"
    case bold = "1"
    case dim = "2"

    /// `text` wrapped in this colour's escape sequences.
    func wrap(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }
}

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
