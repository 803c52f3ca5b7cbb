import PredicateValue
import Testing

@testable import PredicateSemantics

/// ``DictionaryKeyLookup`` answers what `valueForKeyPath:` answers for a key on a dictionary
/// (``KeyValueAccess/value(forKeyPath:of:)``, which walks a dotted key's parts itself and does
/// not use the look-up), by scanning small dictionaries and hashing large ones, and leaves to
/// the general path only a dotted key whose first part the dictionary holds.
@Suite struct DictionaryKeyLookupTests {
    private static let kelvin = "\u{212A}"
    private static let decomposed = "e\u{301}"

    /// Few entries (scanned) and the same with filler entries (hashed).
    private static let dictionaries: [[String: Value]] = {
        let small: [[String: Value]] = [
            [:],
            ["rank": 3, "tags": ["red"]],
            ["com.example.testBit": true, "rank": "x"],
            ["com.example.testBit": .nil, "com": ["example": ["testBit": false]]],
            ["com.example.testBit": .null, "com": .nil],
            ["com": ["example.testBit": 1]],
            ["com": "not a dictionary", "a.b": 1, "a": ["b": 2]],
            ["K": 1, "é": 2, "": 3],
            [kelvin: 1, decomposed: 2],
            ["rank": .nil, "empty": .null],
            ["a": .nil, "a.b": .nil],
        ]
        let filler = Dictionary(uniqueKeysWithValues: (0..<20).map { ("filler\($0)", Value.int(Int64($0))) })
        return small + small.map { $0.merging(filler) { old, _ in old } }
    }()

    private static let keys = [
        "rank", "tags", "missing", "com.example.testBit", "com.example", "com", "a.b", "a", "K", kelvin, "é",
        decomposed, "", "empty", "filler3", "a.missing", ".", "a.",
    ]

    @Test(arguments: keys)
    func answersWhatKeyValueAccessAnswers(_ key: String) {
        let lookup = DictionaryKeyLookup(key)
        for (index, entries) in Self.dictionaries.enumerated() {
            // The general path may throw (`.` walks into the number at key ``), the look-up never.
            let expected = try? KeyValueAccess.value(forKeyPath: Substring(key), of: .dictionary(entries))
            let found = lookup.value(in: entries)
            if let found {
                #expect(found == expected, "\(key) in dictionary \(index)")
            } else {
                // Only a dotted key whose first part is present needs the parts walked.
                let head = String(key.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0])
                #expect(key.contains("."), "\(key) in dictionary \(index)")
                #expect(!(entries[head] ?? .nil).isNil, "\(key) in dictionary \(index)")
            }
        }
    }

    /// Short ASCII keys are compared by their bits: that says what `==` says, for strings written
    /// as literals and built at run time alike, and strings stored otherwise are left to `==`.
    @Test func smallASCIIBitsSayWhatEqualitySays() {
        let built = [
            "co" + "m", String(repeating: "r", count: 1) + "ank", String("x.rank".dropFirst(2)), "abcdefghijklmn" + "o",
        ]
        let strings =
            ["com", "rank", "owner", "", "abcdefghijklmno", "abcdefghijklmnop", "é", Self.decomposed, Self.kelvin, "K"]
            + built
        for string in strings {
            let isSmallASCII = string.utf8.count <= 15 && string.utf8.allSatisfy { $0 < 0x80 }
            #expect((DictionaryKeyLookup.smallASCIIBits(string) != nil) == isSmallASCII, "\(string)")
        }
        for left in strings {
            for right in strings {
                guard let leftBits = DictionaryKeyLookup.smallASCIIBits(left),
                    let rightBits = DictionaryKeyLookup.smallASCIIBits(right)
                else { continue }
                #expect((leftBits == rightBits) == (left == right), "\(left) against \(right)")
            }
        }
    }

    /// Keys are equal as `String`s are: canonically equivalent spellings find each other, as the
    /// hashed look-up finds them, whatever their lengths in bytes.
    @Test func equivalentSpellingsFindEachOther() {
        #expect(DictionaryKeyLookup("K").value(in: [Self.kelvin: 7]) == .int(7))
        #expect(DictionaryKeyLookup(Self.kelvin).value(in: ["K": 7]) == .int(7))
        #expect(DictionaryKeyLookup("é").value(in: [Self.decomposed: 7]) == .int(7))
        #expect(DictionaryKeyLookup("K.x").value(in: [Self.kelvin: ["x": 1]]) == nil)
        #expect(DictionaryKeyLookup("K.x").value(in: ["k": ["x": 1]]) == .nil)
    }
}
