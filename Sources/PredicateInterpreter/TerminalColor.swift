/// ANSI colours for readable output on a terminal; the tool decides per stream whether to use
/// them (a terminal, and `NO_COLOR` unset).
package enum TerminalColor: String {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case cyan = "36"
    case bold = "1"
    case dim = "2"

    /// `text` wrapped in this colour's escape sequences.
    package func wrap(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }
}
