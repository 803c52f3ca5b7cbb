import Foundation
import PredicateValue

/// Equality and ordering of values as the language defines them (SPEC §4.4): Apple's `isEqual:`
/// and `compare:`.
public enum ValueComparison {
    /// Apple's `isEqual:` (SPEC §4.4.1). Numbers compare by value across kinds (`1 == 1.0`,
    /// `TRUE == 1`); strings by UTF-16 code units with no normalisation; collections element by
    /// element; values of different kinds are unequal (`"1" == 1` is false).
    public static func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        if let a = Number(lhs), let b = Number(rhs) { return Number.compare(a, b) == .same }
        switch (lhs, rhs) {
        case (.nil, .nil), (.null, .null):
            return true
        case (.string(let a), .string(let b)):
            return a.utf16.elementsEqual(b.utf16)
        case (.date(let a), .date(let b)):
            return a == b
        case (.data(let a), .data(let b)):
            return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { isEqual($0, $1) }
        case (.set(let a), .set(let b)):
            return a.count == b.count && a.allSatisfy { element in b.contains { isEqual(element, $0) } }
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count
                && a.allSatisfy { key, value in b[key].map { isEqual(value, $0) } ?? false }
        case (.object(let a), .object(let b)):
            return a.isEqual(to: b)
        default:
            return false
        }
    }

    /// Apple's `compare:` (SPEC §4.4.2): numbers by value, strings by UTF-16 code unit after
    /// canonical decomposition, dates chronologically. Anything else cannot be ordered.
    ///
    /// - Throws: `typeMismatch` for values that cannot be ordered against each other (a string
    ///   and a number, `null`, collections).
    public static func compare(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Ordering {
        if let a = Number(lhs), let b = Number(rhs) { return Number.compare(a, b) }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            return compareStrings(a, b)
        case (.date(let a), .date(let b)):
            return Ordering(a, b)
        default:
            throw EvaluationError.cannotOrder(lhs, rhs)
        }
    }

    /// Strings in Apple's `compare:` order: canonically equivalent strings are the same, and
    /// otherwise UTF-16 code units decide (SPEC §4.4.2, §9 item 24).
    static func compareStrings(_ lhs: String, _ rhs: String) -> Ordering {
        if let decided = orderAtFirstDifference(lhs, rhs) { return decided }
        return lexicographic(
            lhs.decomposedStringWithCanonicalMapping.utf16, rhs.decomposedStringWithCanonicalMapping.utf16)
    }

    /// The order of two strings decided from their UTF-8 bytes, when the first byte where they
    /// differ is ASCII in both, or one string ends there and the other goes on with an ASCII
    /// byte or after a shared prefix that is empty or ends with an ASCII byte; `nil` otherwise
    /// (the full comparison is needed).
    ///
    /// Sound because an ASCII character is a starter that decomposes to itself: the shared
    /// prefix decomposes alike in both strings, canonical reordering never moves a mark across a
    /// starter, and ASCII bytes and UTF-16 units order alike; a prefix ending with a starter
    /// decomposes to a prefix of the longer string's decomposition. (Ending with a mark it may
    /// not: `a` U+0345 + U+0301 decomposes to `a` U+0301 U+0345, which sorts before `a` U+0345.)
    /// So non-ASCII text costs a byte scan unless it differs at a non-ASCII character
    /// (`"é" < "f"` decomposes to `e` + U+0301).
    static func orderAtFirstDifference(_ lhs: String, _ rhs: String) -> Ordering? {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { a in
            rhs.withUTF8 { b -> Ordering? in
                let shared = min(a.count, b.count)
                var index = 0
                while index < shared, a[index] == b[index] { index += 1 }
                let prefixEndsWithStarter = index == 0 || a[index - 1] < 0x80
                switch (index < a.count ? a[index] : nil, index < b.count ? b[index] : nil) {
                case (nil, nil): return .same
                case (nil, let next?): return next < 0x80 || prefixEndsWithStarter ? .ascending : nil
                case (let next?, nil): return next < 0x80 || prefixEndsWithStarter ? .descending : nil
                case (let left?, let right?):
                    guard left < 0x80, right < 0x80 else { return nil }
                    return left < right ? .ascending : .descending
                }
            }
        }
    }

    private static func lexicographic<C: Collection>(_ lhs: C, _ rhs: C) -> Ordering
    where C.Element: Comparable {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .same
            case (nil, _): return .ascending
            case (_, nil): return .descending
            case (let a?, let b?) where a != b: return a < b ? .ascending : .descending
            default: continue
            }
        }
    }

    /// A value as messages name it: its kind, and a short rendering of small values.
    public static func describe(_ value: Value) -> String {
        switch value {
        case .nil: return "nil"
        case .null: return "null"
        case .bool(let flag): return "the boolean \(flag ? "YES" : "NO")"
        case .int(let number): return "the number \(number)"
        case .uint(let number): return "the number \(number)"
        case .double(let number): return "the number \(number)"
        case .decimal(let number): return "the number \(number)"
        case .string(let text):
            let shown = text.count <= 40 ? text : text.prefix(37) + "..."
            return "the string \"\(shown)\""
        default: return "a value of kind \(value.kindName)"
        }
    }
}
