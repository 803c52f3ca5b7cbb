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

    private static let bySpelling: [String: Keyword] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// The keyword spelled by `word` in any letter case, or `nil` when `word` is not reserved.
    /// (`UTI-EQUALS` and `UTI-CONFORMS-TO` are lexed as operators and never come through here.)
    public init?(spelling word: some StringProtocol) {
        guard word.utf8.count <= 14 else { return nil }
        guard let keyword = Keyword.bySpelling[word.uppercased()] else { return nil }
        self = keyword
    }

    /// Whether `word`, in any letter case, is reserved and so must be written `#word` as a key.
    public static func isReserved(_ word: some StringProtocol) -> Bool {
        Keyword(spelling: word) != nil
    }
}
