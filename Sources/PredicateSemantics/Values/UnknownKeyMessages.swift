import Foundation
import PredicateValue

/// The messages of unknown keys, each made once: a rule that misspells a key fails on every
/// item, and its message (a did-you-mean over every key of the schema) took about 40 µs to make,
/// so a million items spent 40 s on one misspelling, where the rule itself costs nanoseconds.
///
/// Bounded: past ``capacity`` messages the memory is emptied and starts again. A lock is taken
/// only when a key is unknown, which is an error.
final class UnknownKeyMessages: @unchecked Sendable {
    static let shared = UnknownKeyMessages()
    static let capacity = 256

    /// A schema (compared by identity, and kept alive by the entry so that no other schema can
    /// take its identity while the message is kept) and a key.
    private struct Entry: Hashable {
        let schema: Schema
        let key: String

        static func == (left: Entry, right: Entry) -> Bool { left.schema === right.schema && left.key == right.key }

        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(schema))
            hasher.combine(key)
        }
    }

    private let lock = NSLock()
    private var messages: [Entry: String] = [:]

    /// How many messages are kept.
    var count: Int { lock.withLock { messages.count } }

    /// "`FileProviderItem` has no key 'uploadded'; did you mean 'uploaded'?"
    func message(_ key: Substring, of schema: Schema) -> String {
        let entry = Entry(schema: schema, key: String(key))
        if let kept = lock.withLock({ messages[entry] }) { return kept }
        let made = KeyValueAccess.unknownKeyMessage(key, typeName: schema.typeName, known: schema.keys)
        lock.withLock {
            if messages.count >= Self.capacity { messages.removeAll(keepingCapacity: true) }
            messages[entry] = made
        }
        return made
    }
}
