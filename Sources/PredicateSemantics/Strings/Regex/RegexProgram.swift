/// A parsed regular expression compiled to a Thompson NFA: instructions that consume one
/// scalar (`unit`), fork (`split`), jump, or accept.
struct RegexProgram: Sendable {
    enum Instruction: Sendable, Equatable {
        case unit(RegexUnit)
        case split(Int, Int)
        case jump(Int)
        case match
    }

    let code: [Instruction]
    let caseInsensitive: Bool
    /// Whether the answer for a subject with non-ASCII scalars could depend on Unicode tables
    /// (`\d`, `\w`, `\s`, case folding) that this engine does not reproduce: such subjects are
    /// ICU's.
    let needsASCIISubject: Bool
    /// Whether `.` occurs: ICU's `.` consumes `\r\n` as one character, so subjects holding it
    /// are ICU's.
    let hasAny: Bool
    /// The program as a DFA over ASCII subjects, when its state sets are few.
    private(set) var dfa: RegexDFA?

    /// The most instructions a program may have (counted repetitions are expanded); a bigger
    /// one is left to ICU, so the state set stays small.
    static let maximumSize = 4_096

    /// `parsed` compiled, or `nil` when it would be too big.
    init?(_ parsed: RegexParser.Parsed) {
        var builder = Builder()
        guard builder.emit(parsed.root) else { return nil }
        builder.code.append(.match)
        code = builder.code
        caseInsensitive = parsed.caseInsensitive
        var usesProperty = false
        var usesAny = false
        for instruction in code {
            guard case .unit(let unit) = instruction else { continue }
            switch unit {
            case .any: usesAny = true
            case .set(let items, _):
                if items.contains(where: { if case .property = $0 { return true } else { return false } }) {
                    usesProperty = true
                }
            case .scalar: break
            }
        }
        needsASCIISubject = parsed.caseInsensitive || usesProperty
        hasAny = usesAny
        dfa = RegexDFA(self)
    }

    private struct Builder {
        var code: [Instruction] = []

        /// Appends `node`'s code; `false` once the program is too big.
        mutating func emit(_ node: RegexNode) -> Bool {
            guard code.count < RegexProgram.maximumSize else { return false }
            switch node {
            case .empty: return true
            case .unit(let unit):
                code.append(.unit(unit))
                return true
            case .sequence(let items):
                for item in items where !emit(item) { return false }
                return true
            case .alternation(let branches):
                // split L1, next; L1: branch; jump end; next: split …; the last branch plain.
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = code.count
                        code.append(.split(split + 1, 0))
                        guard emit(branch) else { return false }
                        jumps.append(code.count)
                        code.append(.jump(0))
                        code[split] = .split(split + 1, code.count)
                    } else {
                        guard emit(branch) else { return false }
                    }
                }
                for jump in jumps { code[jump] = .jump(code.count) }
                return true
            case .repeated(let inner, let minimum, let maximum):
                for _ in 0..<minimum where !emit(inner) { return false }
                guard let maximum else {
                    // L: split body, end; body; jump L
                    let loop = code.count
                    code.append(.split(loop + 1, 0))
                    guard emit(inner) else { return false }
                    code.append(.jump(loop))
                    code[loop] = .split(loop + 1, code.count)
                    return true
                }
                // Each optional copy: split body, end-of-all.
                var splits: [Int] = []
                for _ in minimum..<maximum {
                    splits.append(code.count)
                    code.append(.split(code.count + 1, 0))
                    guard emit(inner) else { return false }
                }
                for split in splits { code[split] = .split(split + 1, code.count) }
                return code.count <= RegexProgram.maximumSize
            }
        }
    }
}
