import PredicateFileProvider
import PredicateValue
import Testing

/// Item JSON as a developer writes it: ISO 8601 dates, capability names, and a did-you-mean for
/// a misspelt property.
private let dateCases: [(text: String, seconds: Double?)] = [
    ("2001-01-01", 0),
    ("2001-01-01T00:00:01Z", 1),
    ("2026-12-02T09:30:00Z", 817_896_600),
    ("2026-12-02T10:30:00+01:00", 817_896_600),
    ("2026-12-02T04:30:00-05:00", 817_896_600),
    ("2026-12-02T09:30:00.25Z", 817_896_600.25),
    ("2026-12-02T09:30Z", 817_896_600),
    ("2000-02-29", -86_400 * 307),
    ("1970-01-01T00:00:00Z", -978_307_200),
    ("2026-02-29", nil),
    ("2026-13-01", nil),
    ("2026-12-02T25:00:00Z", nil),
    ("2026-12-02T09:30:00Zjunk", nil),
    ("yesterday", nil),
    ("", nil),
]

@Test(arguments: dateCases)
func isoDates(_ text: String, _ seconds: Double?) throws {
    let properties: [String: Value] = ["filename": .string("a"), "creationDate": .string(text)]
    guard let seconds else {
        #expect(throws: FileProviderItemError.self) { try FileProviderItem(properties: properties) }
        return
    }
    #expect(try FileProviderItem(properties: properties).creationDate == seconds)
}

private let capabilityCases: [(value: Value, bits: Int64?)] = [
    (.int(24), 24),
    (.string("allowsRenaming"), 8),
    (.array([.string("allowsRenaming"), .string("allowsTrashing")]), 24),
    (.array([.string("allowsReading"), .int(64)]), 65),
    (.array([]), 0),
    (.string("allowsRenamin"), nil),
    (.bool(true), nil),
]

@Test(arguments: capabilityCases)
func capabilityNames(_ value: Value, _ bits: Int64?) throws {
    let properties: [String: Value] = ["filename": .string("a"), "capabilities": value]
    guard let bits else {
        #expect(throws: FileProviderItemError.self) { try FileProviderItem(properties: properties) }
        return
    }
    #expect(try FileProviderItem(properties: properties).capabilities.rawValue == bits)
}

private let unknownPropertyCases: [(key: String, message: String)] = [
    ("uploadded", "not a property of a File Provider item; did you mean 'uploaded'?"),
    ("isUplaoded", "not a property of a File Provider item; did you mean 'isUploaded'?"),
    ("fileName", "not a property of a File Provider item; did you mean 'filename'?"),
    ("zzzzzzzz", "not a property of a File Provider item"),
]

@Test(arguments: unknownPropertyCases)
func unknownPropertiesSuggestTheNearest(_ key: String, _ message: String) {
    let error = #expect(throws: FileProviderItemError.self) {
        try FileProviderItem(properties: [key: .bool(true)])
    }
    #expect(error?.key == key)
    #expect(error?.message == message)
}

@Test(arguments: [
    ("allowsRenamin", "allowsRenaming"), ("reading", "allowsReading"), ("Writing", "allowsWriting"),
    ("trashing", "allowsTrashing"),
])
func misspeltCapabilityNameSuggestsTheNearest(_ name: String, _ suggestion: String) {
    let error = #expect(throws: FileProviderItemError.self) {
        try FileProviderItem(properties: ["capabilities": .string(name)])
    }
    #expect(error?.message == "'\(name)' is not a capability; did you mean '\(suggestion)'?")
}
