import Foundation
import PredicateFileProvider
import PredicateValue

/// An item as Foundation's `#Predicate` can read it: plain stored properties of concrete types.
///
/// `#Predicate` has no dynamic type tests, so the mixed-type `userInfo` is split by value type
/// (integers, Booleans, strings, string arrays); a value of another type is simply absent from
/// these dictionaries, which is what the rules' type errors amount to. A class, not a struct:
/// `Predicate.evaluate` boxes its input into `Any` for every call, and boxing a reference is far
/// cheaper than copying a large struct.
final class ItemMirror: Sendable {
    let isUploaded: Bool
    let isShared: Bool
    let isSharedByCurrentUser: Bool
    let isTrashed: Bool
    let favoriteRank: UInt64?
    let documentSize: Int64?
    let filename: String
    let contentTypeIdentifier: String?
    let userInfoIntegers: [String: Int64]
    let userInfoBooleans: [String: Bool]
    let userInfoStrings: [String: String]
    let userInfoStringArrays: [String: [String]]

    init(_ item: FileProviderItem) {
        isUploaded = item.isUploaded
        isShared = item.isShared
        isSharedByCurrentUser = item.isSharedByCurrentUser
        isTrashed = item.isTrashed
        favoriteRank = item.favoriteRank
        documentSize = item.documentSize
        filename = item.filename
        contentTypeIdentifier = item.contentType?.identifier
        var integers: [String: Int64] = [:]
        var booleans: [String: Bool] = [:]
        var strings: [String: String] = [:]
        var stringArrays: [String: [String]] = [:]
        for (key, value) in item.userInfo ?? [:] {
            switch value {
            case .int(let number): integers[key] = number
            case .bool(let flag): booleans[key] = flag
            case .string(let text): strings[key] = text
            case .array(let elements):
                stringArrays[key] = elements.compactMap { element in
                    if case .string(let text) = element { return text }
                    return nil
                }
            default: break
            }
        }
        userInfoIntegers = integers
        userInfoBooleans = booleans
        userInfoStrings = strings
        userInfoStringArrays = stringArrays
    }
}

/// An activation context as `#Predicate` reads it: the selected items.
struct SelectionMirror: Sendable {
    let items: [ItemMirror]
}

/// A rule written by hand as Foundation's `#Predicate`, or why it cannot be on Linux.
enum FoundationRule: Sendable {
    case item(Foundation.Predicate<ItemMirror>)
    case selection(Foundation.Predicate<SelectionMirror>)
    /// A short reason, shown in the table in place of a figure.
    case unsupported(String)
}
