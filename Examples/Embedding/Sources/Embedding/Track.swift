import Foundation
import PredicateKit

/// Your own type, queryable through a table of key paths: no `UnsafePointer`, and the stored
/// Booleans and numbers are read in place by the engines.
struct Track: Queryable {
    var title: String
    var plays: Int
    var rating: Double?
    var isLiked: Bool
    var added: Date

    static let queryKeyPaths: KeyPathTable<Track> = [
        "title": \.title, "plays": \.plays, "rating": \.rating, "isLiked": \.isLiked, "added": \.added,
    ]
}

/// A value that is only `Codable`: rules read it through JSON, with its dates kept as dates.
struct Note: Codable {
    var title: String
    var created: Date
    var pinned: Bool
}
