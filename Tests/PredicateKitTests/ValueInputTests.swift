import Foundation
import PredicateKit
import Testing

@Suite struct ValueInputTests {
    @Test func literals() {
        let value: Value = ["name": "a", "size": 3, "ratio": 0.5, "ok": true, "tags": ["x", 1]]
        #expect(
            value
                == .dictionary([
                    "name": .string("a"), "size": .int(3), "ratio": .double(0.5), "ok": .bool(true),
                    "tags": .array([.string("x"), .int(1)]),
                ]))
    }

    /// JSONSerialization answers `true` and `1` both as NSNumber, and `as? Bool` takes either:
    /// only the Boolean class tells them apart.
    @Test func foundationNumbersKeepBooleansApart() throws {
        let data = Data(
            #"{"flag": true, "one": 1, "zero": 0, "half": 0.5, "big": 18446744073709551615, "none": null}"#.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let value = try Value(object)
        guard case .dictionary(let entries) = value else {
            Issue.record("not a dictionary: \(value)")
            return
        }
        #expect(entries["flag"] == .bool(true))
        #expect(entries["one"] == .int(1))
        #expect(entries["zero"] == .int(0))
        #expect(entries["half"] == .double(0.5))
        #expect(entries["none"] == .null)
        let rule = try Rule<Value>("flag == YES AND one == 1 AND half < 1")
        #expect(try rule.evaluate(with: object))
    }

    @Test func swiftValuesInAnAnyDictionary() throws {
        let when = Date(timeIntervalSinceReferenceDate: 100)
        let value = try Value(["b": true, "i": 1, "s": "x", "d": when, "list": [1, 2], "o": Int?.none as Any])
        #expect(
            value
                == .dictionary([
                    "b": .bool(true), "i": .int(1), "s": .string("x"), "d": .date(secondsSinceReferenceDate: 100),
                    "list": .array([.int(1), .int(2)]), "o": .nil,
                ]))
        #expect(throws: ValueConversionError.self) { try Value(["bad": NSObject()]) }
    }

    struct Note: Codable {
        var title: String
        var created: Date
        var pinned: Bool
        var size: Int
    }

    @Test func codableKeepsDates() throws {
        let note = Note(
            title: "t", created: Date(timeIntervalSinceReferenceDate: 817_844_795.37), pinned: true, size: 3)
        let rule = try Rule<Value>(
            "created > %@ AND pinned == YES AND #size == 3", Date(timeIntervalSinceReferenceDate: 0))
        #expect(try rule.evaluate(with: note))
        guard case .dictionary(let entries) = try Value(encoding: note) else { return }
        #expect(entries["created"] == .date(secondsSinceReferenceDate: 817_844_795.37))
    }

    @Test func jsonData() throws {
        let value = try Value(jsonData: Data(#"{"a": [1, true]}"#.utf8))
        #expect(value == ["a": [1, true]])
        #expect(throws: JSONParseError.self) { try Value(jsonData: Data("{".utf8)) }
    }

    @Test func filterValues() throws {
        let rows: [Value] = (0..<5000).map { ["n": .int(Int64($0))] }
        let rule = try Rule<Value>("modulus:by:(n, 1000) == 0")
        #expect(rows.filter(rule).count == 5)
        #expect(rule.filter(rows.prefix(10)).count == 1)
    }
}
