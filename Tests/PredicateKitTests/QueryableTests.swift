import Foundation
import PredicateKit
import Testing

struct Track: Queryable, Equatable {
    var title: String
    var artist: String?
    var plays: Int
    var rating: Double?
    var isLiked: Bool
    var added: Date
    var tags: [String]

    static let queryKeyPaths: KeyPathTable<Track> = [
        "title": \.title, "artist": \.artist, "plays": \.plays, "rating": \.rating, "isLiked": \.isLiked,
        "added": \.added, "tags": \.tags,
    ]

    /// The same track as a dictionary, which the reference interpreter reads without the table.
    var dictionary: Value {
        var entries: [String: Value] = [:]
        entries["title"] = .string(title)
        entries["artist"] = artist.predicateValue
        entries["plays"] = plays.predicateValue
        entries["rating"] = rating.predicateValue
        entries["isLiked"] = .bool(isLiked)
        entries["added"] = added.predicateValue
        entries["tags"] = tags.predicateValue
        return .dictionary(entries)
    }
}

func sampleTracks(_ count: Int) -> [Track] {
    (0..<count).map { (index: Int) -> Track in
        let artist: String? = index % 4 == 0 ? nil : "Artist \(index % 5)"
        let rating: Double? = index % 3 == 0 ? nil : Double(index % 10) / 2
        let added = Date(timeIntervalSinceReferenceDate: Double(index) * 86_400)
        let tags: [String] = index % 2 == 0 ? ["a"] : ["b", "c"]
        return Track(
            title: "Song \(index)", artist: artist, plays: index * 3, rating: rating, isLiked: index % 2 == 0,
            added: added, tags: tags)
    }
}

@Suite struct QueryableTests {
    @Test func theTableMakesTheSchemaAndStoredFields() {
        let schema = Track.queryKeyPaths.schema
        #expect(schema.typeName == "Track")
        #expect(schema.fields.map(\.name) == ["title", "artist", "plays", "rating", "isLiked", "added", "tags"])
        #expect(
            schema.fields.map(\.type) == [
                .string, .optional(.string), .integer, .optional(.number), .bool, .date, .any,
            ])
        // The scalars stored in the struct are loaded by offset; the rest are read.
        #expect(
            (0..<7).map { Track.storedScalar(atSlot: $0) != nil } == [false, false, true, true, true, false, false])
        #expect(Track.storedScalar(atSlot: 99) == nil)
        // The strings stored in the struct are compared where they lie.
        #expect(
            (0..<7).map { Track.storedString(atSlot: $0) != nil } == [true, true, false, false, false, false, false])
        #expect(Track.storedString(atSlot: 1)?.isOptional == true)
        #expect(Track.storedString(atSlot: 99) == nil)
        #expect(Track.sharedSchema === schema)
    }

    static let rules = [
        "isLiked == YES AND plays > 30", "rating >= 2.5", "rating == nil", "artist BEGINSWITH 'Artist 1'",
        "artist == nil OR title ENDSWITH '7'", "added > CAST(864000, 'NSDate')", "ANY tags == 'c'",
        "plays < 'x'", "title CONTAINS[c] 'SONG 1' AND artist LIKE '*3'", "artist MATCHES 'Artist [12]'",
    ]

    /// Every field read through the table means what the same field of a dictionary means, on the
    /// VM (below the batch threshold) and on the batch engine (above it).
    @Test(arguments: rules, [40, Rule<Track>.batchThreshold + 3])
    func rulesOverTheTableMatchTheInterpreter(rule: String, count: Int) throws {
        let tracks = sampleTracks(count)
        let predicate = try PredicateParser.parsePredicate(rule).predicate
        let expected = tracks.filter { (try? Interpreter().evaluate(predicate, on: $0.dictionary)) == true }
        let compiled = try Rule<Track>(rule)
        #expect(tracks.filter(compiled) == expected)
        for track in tracks.prefix(12) {
            let reference = try? Interpreter().evaluate(predicate, on: track.dictionary)
            #expect((try? compiled.evaluate(with: track)) == reference, "\(rule) on \(track.title)")
        }
    }

    @Test func unknownKeysAreCaughtAgainstTheTable() throws {
        let rule = try Rule<Track>("plyas > 3")
        #expect(throws: EvaluationError.self) { try rule.evaluate(with: sampleTracks(1)[0]) }
    }
}

struct Sloppy: Queryable {
    var name: String
    var size: Int
    var label: String

    static let queryKeyPaths: KeyPathTable<Sloppy> = ["name": \.name, "size": \.size, "label": \.label]
}

/// A hand-written conformance whose schema declares `a` twice.
struct Twice: KeyValueCoding {
    static let schema = Schema(typeName: "Twice", fields: [.init("a", .integer), .init("a", .string)])
    var schema: Schema { Self.schema }
    static var sharedSchema: Schema? { schema }
    func value(atSlot slot: Int) -> Value { .int(1) }
}

@Suite struct SchemaProblemTests {
    @Test(arguments: [
        (
            Schema(typeName: "T", fields: [.init("a", .integer), .init("b", .integer, aliases: ["a"])]),
            ["T declares the key 'a' more than once; only the first field is read"]
        ),
        (
            Schema(typeName: "T", fields: [.init("a", .integer), .init("a", .string)]),
            ["T declares the key 'a' more than once; only the first field is read"]
        ),
        (
            Schema(typeName: "T", fields: [.init("size", .integer), .init("first", .string), .init("ok", .bool)]),
            [
                "T's field 'size' is a reserved word; rules must write it #size",
                "T's field 'first' is a reserved word; rules must write it #first",
            ]
        ),
        (FileProviderItem.schema, []),
        (Track.queryKeyPaths.schema, []),
    ])
    func problems(schema: Schema, expected: [String]) {
        #expect(schema.problems.map(\.description) == expected)
    }

    @Test func aReservedFieldNameIsAWarningAndReadAsHashName() throws {
        let rule = try Rule<Sloppy>("#size > 2")
        #expect(rule.warnings.map(\.message) == ["Sloppy's field 'size' is a reserved word; rules must write it #size"])
        #expect(try rule.evaluate(with: Sloppy(name: "a", size: 3, label: "")))
    }

    @Test func aDuplicateKeyStopsTheRule() {
        #expect {
            try Rule<Twice>("a == 1")
        } throws: { error in
            (error as? Diagnostic)?.message == "Twice declares the key 'a' more than once; only the first field is read"
        }
    }
}
