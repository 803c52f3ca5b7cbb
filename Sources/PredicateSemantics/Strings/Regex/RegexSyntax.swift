/// A regular expression as the automaton understands it: the subset of ICU syntax that rules
/// use, whose meaning an automaton reproduces exactly (issue 14).
indirect enum RegexNode: Equatable {
    /// The empty string.
    case empty
    /// One character of the subject that passes the test.
    case unit(RegexUnit)
    /// One after the other.
    case sequence([RegexNode])
    /// Either.
    case alternation([RegexNode])
    /// `node{minimum,maximum}` (`maximum` nil: unbounded); greedy or lazy alike, since
    /// `MATCHES` only asks whether some path covers the whole string.
    case repeated(RegexNode, minimum: Int, maximum: Int?)

    /// Whether the node matches the empty string.
    var canBeEmpty: Bool {
        switch self {
        case .empty: return true
        case .unit: return false
        case .sequence(let items): return items.allSatisfy(\.canBeEmpty)
        case .alternation(let branches): return branches.contains { $0.canBeEmpty }
        case .repeated(let inner, let minimum, _): return minimum == 0 || inner.canBeEmpty
        }
    }
}

/// What one character of the subject (one Unicode scalar, as ICU reads UTF-16 by code point)
/// must be.
enum RegexUnit: Equatable {
    /// This scalar (either case under the case-insensitive flag, for ASCII letters).
    case scalar(Unicode.Scalar)
    /// Any scalar: `.` matches line terminators too (`.dotMatchesLineSeparators`).
    case any
    /// A class: the scalar is one of `items` (or none of them, when `negated`).
    case set([RegexClassItem], negated: Bool)
}

/// One member of a character class.
enum RegexClassItem: Equatable {
    case scalar(Unicode.Scalar)
    /// `lower...upper`, by scalar value.
    case range(Unicode.Scalar, Unicode.Scalar)
    /// `\d`, `\w`, `\s` or their complements.
    case property(RegexProperty, negated: Bool)
}

/// The Unicode classes behind `\d`, `\w` and `\s`: decided here only for ASCII subjects, where
/// they are plain sets; a subject with other scalars goes to ICU (see ``RegexProgram``).
enum RegexProperty: Equatable {
    case digit
    case word
    case space

    /// Whether the ASCII `byte` is in the class, as ICU defines it.
    func contains(ascii byte: UInt32) -> Bool {
        switch self {
        case .digit: return (0x30...0x39).contains(byte)
        case .word:
            return (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F
        case .space: return (0x09...0x0D).contains(byte) || byte == 0x20
        }
    }
}
