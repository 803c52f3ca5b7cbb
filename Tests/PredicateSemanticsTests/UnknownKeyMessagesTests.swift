import PredicateValue
import Testing

@testable import PredicateSemantics

/// A misspelt key's message is made once and then kept, in a memory that stays bounded.
@Suite struct UnknownKeyMessagesTests {
    static let schema = Schema(
        typeName: "Item", fields: [Schema.Field("isUploaded", .bool), Schema.Field("documentSize", .integer)])

    @Test(arguments: [
        ("uploadded", "Item has no key 'uploadded'; did you mean 'uploaded'?"),
        ("documentsize", "Item has no key 'documentsize'; did you mean 'documentSize'?"),
        ("zzz", "Item has no key 'zzz'"),
    ])
    func messageIsTheDidYouMean(key: String, message: String) {
        let kept = UnknownKeyMessages()
        #expect(kept.message(key[...], of: Self.schema) == message)
        #expect(kept.message(key[...], of: Self.schema) == message)
        #expect(kept.count == 1)
    }

    @Test func memoryStaysBounded() {
        let kept = UnknownKeyMessages()
        for index in 0..<(UnknownKeyMessages.capacity * 3) {
            let key = "key\(index)"
            #expect(kept.message(key[...], of: Self.schema) == "Item has no key '\(key)'")
            #expect(kept.count <= UnknownKeyMessages.capacity)
        }
    }

    /// Two schemas of one type name but other keys keep their own messages.
    @Test func schemasAreToldApart() {
        let kept = UnknownKeyMessages()
        let other = Schema(typeName: "Item", fields: [Schema.Field("uploadedAt", .date)])
        #expect(kept.message("uploadAt", of: Self.schema) == "Item has no key 'uploadAt'; did you mean 'uploaded'?")
        #expect(kept.message("uploadAt", of: other) == "Item has no key 'uploadAt'; did you mean 'uploadedAt'?")
    }
}
