import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

/// The string vectors of SPEC §8.2 and §8.3, format strings verbatim, and the ordering examples
/// of §4.4.2.
@Suite struct SpecStringVectors {
    /// §8.2: the rows whose operands are both strings (or nil against a string operator).
    static let comparisonVectors: [StringVector] = [
        StringVector("self = 'Hello'", "He", .no),
        StringVector("self == \"Goodbye\"", "goodbye", .no),
        StringVector("self =< 'abc'", "ABC", .yes),
        StringVector("self =< 'abc'", "XYZ", .yes),
        StringVector("self =< 'abc'", "123", .yes),
        StringVector("self =< 'abc'", "", .yes),
        StringVector("self =< 'abc'", "aabbcc", .yes),
        StringVector("self =< 'abc'", "abcd", .no),
        StringVector("self =< 'abc'", "acb", .no),
        StringVector("self =< 'abc'", "b", .no),
        StringVector("self => 'x z'", "x Z", .no),
        StringVector("self < %@", "01", .yes, arguments: [.string("1")]),
        StringVector("self > ''", " ", .yes),
        StringVector("self > ''", "", .no),
        StringVector("self like 'nil'", nil, .no),
        StringVector("s ==[c] 'ABC'", "abc", .yes),
        StringVector("s ==[n] 'abc'", "abc", .yes),
        StringVector("'\u{E9}' == 'e\\u0301'", nil, .no),
        StringVector("'\u{E9}' ==[d] 'e'", nil, .yes),
    ]

    /// §8.3, every row but `5 beginswith '5'` (a type error raised before any string operator).
    static let operatorVectors: [StringVector] = [
        StringVector("'aBcDeF' beginswith self", "aBc", .yes),
        StringVector("'aBcDeF' beginswith self", "aa", .no),
        StringVector("'aBcDeF' beginswith self", "", .no),
        StringVector("self endswith 'XXY'", "XYXXY", .yes),
        StringVector("self endswith 'XXY'", "XXYY", .no),
        StringVector("self endswith 'XXY'", "", .no),
        StringVector("self CONTAINS 'abc'", "XYZabc", .yes),
        StringVector("self CONTAINS 'abc'", "bca", .no),
        StringVector("s CONTAINS ''", "abc", .no),
        StringVector("self like 'abc'", "ABC", .no),
        StringVector("self like 'a*c'", "ac", .yes),
        StringVector("self like 'a*c'", "acc", .yes),
        StringVector("self like 'a*c'", "abcdefc", .yes),
        StringVector("self like 'a*c'", "ab", .no),
        StringVector("self like 'a?c'", "abc", .yes),
        StringVector("self like 'a?c'", "ac", .no),
        StringVector("self like 'a?c'", "abbc", .no),
        StringVector("self like '*?'", "a", .yes),
        StringVector("self like '*?'", "", .no),
        StringVector("self like 'a*b*c?e'", "abcfebbcce", .yes),
        StringVector("self like 'a*b*c?e'", "abcde", .yes),
        StringVector("self like 'a*b*c?e'", "aaabbbcccdddeeebbbccce", .yes),
        StringVector("self like 'a*b*c?e'", "abcccccccde", .yes),
        StringVector("self like 'a*b*c?e'", "acbe", .no),
        StringVector("self like 'a*b*c?e'", "aaabbbcccc", .no),
        StringVector("self like 'a*b*c?e'", "acde", .no),
        StringVector(#"self like '?a*z?\\?'"#, "aazz?", .yes),
        StringVector(#"self like '?a*z?\\?'"#, "aabbcczzeeffzZ?", .yes),
        StringVector(#"self like '?a*z?\\?'"#, "Aabcz?", .no),
        StringVector(#"self like '?a*z?\\?'"#, "aabbccz???", .no),
        StringVector("self like[c] 'NEXT'", "NeXT", .yes),
        StringVector(#"self like 'ab\\'"#, "ab", .evaluationError(.invalidPattern)),
        StringVector(#"self like 'ab\\'"#, "ab\\", .evaluationError(.invalidPattern)),
        StringVector(#"self like 'ab\'"#, "ab", .parseError),
        StringVector("self like ''", "", .no),
        StringVector("self matches 'a.c'", "abc", .yes),
        StringVector("self matches 'a.c'", "xabc", .no),
        StringVector("self matches 'a.c'", "a\nc", .yes),
        StringVector("self matches ''", "", .no),
        StringVector("self matches '('", "x", .evaluationError(.invalidPattern)),
    ]

    @Test(arguments: comparisonVectors) func comparisonAndNil(_ vector: StringVector) { vector.check() }

    @Test(arguments: operatorVectors) func stringOperators(_ vector: StringVector) { vector.check() }

    /// §4.4.2: without options, ordering is by UTF-16 code unit (not localised, case-sensitive).
    @Test(arguments: [("", " "), ("ABC", "abc"), ("XYZ", "abc"), ("01", "1"), ("abc", "abcd")])
    func orderingExamples(_ smaller: String, _ larger: String) {
        #expect(StringOperators.compare(smaller, larger, options: []) == .orderedAscending)
        #expect(StringOperators.compare(larger, smaller, options: []) == .orderedDescending)
        #expect(StringMatcher(larger, options: []).order(of: smaller) == .orderedAscending)
        #expect(StringMatcher(smaller, options: []).order(of: larger) == .orderedDescending)
    }
}
