/// The reserved words of the language (SPEC §2.3), matched case-insensitively against whole
/// identifiers. A reserved word can be used as a key only when escaped: `#size`.
public enum Keyword: String, CaseIterable, Hashable, Sendable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case any = "ANY"
    case some = "SOME"
    case all = "ALL"
    case none = "NONE"
    case `in` = "IN"
    case like = "LIKE"
    case matches = "MATCHES"
    case tokenMatches = "TOKENMATCHES"
    case contains = "CONTAINS"
    case between = "BETWEEN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case utiEquals = "UTI-EQUALS"
    case utiConformsTo = "UTI-CONFORMS-TO"
    case null = "NULL"
    case `nil` = "NIL"
    case `self` = "SELF"
    case `true` = "TRUE"
    case yes = "YES"
    case `false` = "FALSE"
    case no = "NO"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case first = "FIRST"
    case last = "LAST"
    case size = "SIZE"
    case subquery = "SUBQUERY"
    case function = "FUNCTION"
    case cast = "CAST"
    case anyKey = "ANYKEY"
    case union = "UNION"
    case intersection = "INTERSECTION"
    case minus = "MINUS"
    case apply = "APPLY"

    /// Keywords by their upper-case spelling packed into two words, so that the lexer can look
    /// a word up without building an upper-cased copy of it.
    private static let bySpelling: [PackedWord: Keyword] = Dictionary(
        uniqueKeysWithValues: allCases.compactMap { keyword in
            PackedWord(keyword.rawValue.utf8).map { ($0, keyword) }
        })

    /// The keyword spelled by `word` in any letter case, or `nil` when `word` is not reserved.
    /// (`UTI-EQUALS` and `UTI-CONFORMS-TO` are lexed as operators and never come through here.)
    public init?(spelling word: some StringProtocol) {
        guard let packed = PackedWord(word.utf8), let keyword = Keyword.bySpelling[packed] else { return nil }
        self = keyword
    }

    /// The keyword spelled by `bytes` (ASCII, any letter case), or `nil`.
    init?(bytes: ArraySlice<UInt8>) {
        guard let packed = PackedWord(bytes), let keyword = Keyword.bySpelling[packed] else { return nil }
        self = keyword
    }

    /// Whether `word`, in any letter case, is reserved and so must be written `#word` as a key.
    public static func isReserved(_ word: some StringProtocol) -> Bool {
        Keyword(spelling: word) != nil
    }
}

/// Up to 16 ASCII bytes, upper-cased and packed into two integers: a cheap dictionary key.
struct PackedWord: Hashable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count <= 16 else { return nil }
        for (index, byte) in bytes.enumerated() {
            guard byte < 0x80 else { return nil }
            let upper = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
            if index < 8 {
                low |= UInt64(upper) << (index * 8)
            } else {
                high |= UInt64(upper) << ((index - 8) * 8)
            }
        }
    }
}
