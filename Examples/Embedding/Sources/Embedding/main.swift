import Foundation
import PredicateKit

let tracks = (0..<1_000_000).map { i in
    Track(title: "Song \(i)", plays: i % 500, rating: i % 3 == 0 ? nil : 4.5, isLiked: i % 2 == 0, added: Date())
}

// 1. Filter a million of your own structs by a rule with arguments (read in place, all cores).
let popular = try Rule<Track>("isLiked == YES AND plays > %d", 400)
let liked = tracks.filter(popular)
print("liked and popular:", liked.count)  // 98000

// 2. An activation rule on a selection of File Provider items.
let selection = [FileProviderItem(itemIdentifier: "1", parentItemIdentifier: "root", filename: "a.pdf")]
let rule = try ActivationRule("SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.PDF').@count > 0")
print("action shown:", rule.isEnabled(for: selection))  // true

// 3. A Codable value (dates stay dates) and a [String: Any] (JSON's `true` stays a Boolean).
let note = Note(title: "Plan", created: Date(), pinned: true)
let recent = try Rule<Value>("pinned == YES AND created > %@", Date(timeIntervalSinceNow: -60))
print("recent pinned note:", try recent.evaluate(with: note))  // true
let json = try JSONSerialization.jsonObject(with: Data(#"{"flag": true, "count": 1}"#.utf8)) as? [String: Any] ?? [:]
print("dictionary:", try Rule<Value>("flag == YES AND count == 1").evaluate(with: json))  // true

// 4. A rule set's bitmask: every rule in one pass, rule r is bit r.
let rules = try RuleSet(["isLiked == YES", "plays > 100", "rating == nil"], for: Track.self)
print("mask:", String(rules.evaluate(with: tracks[3]).mask, radix: 2))  // 100: only rating == nil

// 5. A syntax error and an evaluation error, each with line:column, the line and a caret.
do { _ = try Rule<Track>("plays > AND isLiked") } catch { print(error.rendered()) }
let strict = try Rule<Track>("title < 3")
do { _ = try strict.evaluate(with: tracks[0]) } catch { print(strict.diagnostic(for: error).rendered()) }

// 6. Serialize a rule set and load it back whole (rule texts, footprints, failed rules).
let bytes = try rules.serialized()
let loaded = try RuleSet(serialized: bytes, for: Track.self)
print("loaded:", loaded.rules, loaded.evaluate(with: tracks[3]).mask == rules.evaluate(with: tracks[3]).mask)
