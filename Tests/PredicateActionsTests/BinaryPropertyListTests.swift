import Foundation
import PredicateActions
import Testing

/// A binary property list of `objects` (each one's encoded bytes, in order), with a trailer
/// that points at them; the sizes and the top object may be set wrong on purpose.
private func bplist(
    _ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 2, referenceSize: UInt8 = 1,
    count: UInt64? = nil
) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(bytes.count)
        bytes += object
    }
    let table = bytes.count
    for offset in offsets {
        bytes += (0..<Int(offsetSize)).reversed().map { UInt8(truncatingIfNeeded: offset >> (8 * $0)) }
    }
    let bigEndian = { (value: UInt64) in (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
    bytes += bigEndian(count ?? UInt64(objects.count)) + bigEndian(top) + bigEndian(UInt64(table))
    return bytes
}

/// Arrays `levels` deep, each holding its next twice, ending in `last`: a few bytes that
/// unfold into 2^levels copies of it.
private func doubling(_ levels: Int, last: [UInt8]) -> [UInt8] {
    bplist((0..<levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [last])
}

/// The file libFuzzer found (CI, 2026-12-02): a mutated Info.plist whose objects made
/// Foundation's reader crash in the Swift runtime.
private let fuzzerCrash = Array(
    Data(
        base64Encoded:
            "YnBsaXN0MDDSAQIDBF8QEkNGQnVuZGxlSWRlbnRpZmllcltOU0V4dGVuc2lvbl8QF2NvbS5leGFtcGxlLnByb3ZpZGVyLnVp0gUGByNfEB5OU0V4dGVuc2lvbkZpbGVQcm92aWRlckFjdGlvbnNfEBpOU0V4dGVuc2lvblBvaW50SWRlbnRpZmllcqYIDxMXGx/TCQoLDA0OXxArTlNFeHRlbnNpb25GaWxlUHJvdmlkZXJBY3Rpb25BY3RpdmF0aW9uUnVsZV8QJ05TRXh0ZW5zaW9uRmlsZVByb3ZpZGVyQWN0aW9uSWRlbnRpZmllcl8QIU5TRXh0ZW5zaW9uRmlsZVByb3ZpZGVyQWN0aW9uTmFtZV8QXVNVQlFVRVJZKGZpbGVwcm92aWRlckl0ZW1zLCAkZmlsZXByb3ZpZGVySXRlbSwgJGZpbGVwcm92aWRlckl0ZW0udXBsb2FkZGVkID09IFlFUykuQGNvdW50ID4gMF8QGGNvbS5leGFtcGxlLmFjdGlvbi5zaGFyZVpTaGFyZSBMaW5r0wkKCxAREl8QXlNVQlFVRVJZKGZpbGVwcm92aWRlckl0ZW1zLCAkZmllbHByb3ZpZGVySXRlbSwgJGZpbGVwcm92aWRlckl0ZW0uaXNVcGxvYWRlZCA9PSBZRVMpLkBjb3VudCA+IDBfEBpjb20uZXhhbXBsZS5hY3Rpb24ucHVibGlzaFdQdWJsaXNo0wkKCxQVFl8QcVNVQlFVRVJZKGZpbGVwcm92aWRlckl0ZW1zLCAkZmlsZXByb3ZpZGVySXRlbSwgJGZpbGVwcm92aWRlckl0ZW0udXNlckluZm8uImNvbS5leGFtcGxlLmxvY2tlZCIgPT0gWUVTKTdAY291bnQgPo0wXxAZY29tLmV4YW1wbGUuYWN0aW9uLnVubG9ja1ZVbmxvY2vDCQoLGBkaXxAdZmlsZXByb3ZpZGVySXRlbXMuQGNvdW50ID09IDFfEBljb20uZXhhbXBsZS5hY3Rpb24ucmVuYW1lZwBSAGUAbgBhAG0AZSAm0wkKCxwdHl8QfVNVQlFVRVJZKGZpbGVwcm92aWRlckl0ZW1zLCAkaSwgJGkuY29udGVudFR5cGUuaWRlbnBpZmllciBVVEktQ09ORk9STVMtVE8gInB1YmxpYy5mb2xkZXIiKS5AY291bnQgPT0gZmlsYXByb3ZpZGVySXRlbXMuQGNvdW50XxAbY29tLmV4YW1wbGUuYWN0aW9uLmNvbXByZXNzXxAQQ29tcHJlc3MgRm9sZGVyc9MJCgsgISJfEDFBTlkgZmlsZXByb3ZpZGVySXRlbXMuZmlsZW5hZU5FbVMgRFdJVEhbY10gIi50eHQiXxAaY29tLmV4YW1wbGUuYWN0aW9uLnByZXZpZXdcUHJldmlldyBUZXh0XxAgY29tLmFwcGxlLmZpbBRwcm92aWRlci1hY3Rpb25zdWkACAANACIALgBIAE0AbgCLAJIAmQDHAPEBFQF1AZABmwGiAgMCIAIoAi8CowK/AsYCzQLtAwkDGAMfA58DvQPQA9cECwQoBAAAADMAAAACAQAAAAAAAAAkAAAAAAAAAAAAAAAAAAAEWA=="
    ) ?? Data())

/// One line a case; appended one by one, as one literal of them all is too much for the type checker.
private let corruptBinaryCases: [(String, [UInt8], String)] = {
    var cases: [(String, [UInt8], String)] = []
    cases.append(("the fuzzer's crash", fuzzerCrash, "binary property list"))
    cases.append(("shorter than its trailer", bplist([]).dropLast(32) + [0xD0], "shorter than a header and a trailer"))
    cases.append(("an offset size of 3", bplist([[0x09]], offsetSize: 3), "not 1, 2, 4 or 8"))
    cases.append(("the top object past the count", bplist([[0x09]], top: 5), "out of the file"))
    cases.append(("more objects than bytes", bplist([[0x09]], count: 1 << 40), "out of the file"))
    cases.append(("an array that contains itself", bplist([[0xA1, 0x00]]), "object 0 contains itself"))
    cases.append(("a reference past the objects", bplist([[0xA1, 0x07], [0x09]]), "object 7 is outside the file"))
    cases.append(
        ("shared arrays unfolding into 2^40 values", doubling(40, last: [0x09]), "unfold into more than 65536 values")
    )
    cases.append(
        (
            "a shared string unfolding into 2 MB",
            doubling(11, last: [0x5F, 0x11, 0x03, 0xE8] + Array(repeating: 0x61, count: 1000)),
            "unfold into more than 1048576 bytes"
        ))
    cases.append(
        (
            "a key that is not a string", bplist([[0xD1, 0x01, 0x02], [0x10, 0x05], [0x09]]),
            "is an integer, not a string"
        ))
    cases.append(("an ASCII string with a byte above 0x7F", bplist([[0x51, 0xC3]]), "holds a byte above 0x7F"))
    cases.append(("a string longer than the file", bplist([[0x5F, 0x10, 0xFF, 0x61]]), "runs past the objects"))
    cases.append(
        (
            "a count that overflows", bplist([[0xDF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]),
            "too many elements"
        ))
    cases.append(("a count that is not an integer", bplist([[0xAF, 0x51, 0x61]]), "is not an integer"))
    cases.append(("an unknown marker", bplist([[0x70]]), "unknown marker 0x70"))
    cases.append(("a 32-byte integer", bplist([[0x15] + Array(repeating: 0, count: 32)]), "has 32 bytes"))
    let nested: [[UInt8]] = (0..<300).map { index in [0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)] }
    cases.append(("values nested 300 deep", bplist(nested + [[0x09]], referenceSize: 2), "nest more than 256 deep"))
    return cases
}()

/// Every corrupt binary file is refused with what is wrong with it, never a crash or a hang, in
/// both readers of an `Info.plist`.
@Test(arguments: corruptBinaryCases)
func corruptBinaryPropertyListsAreRefusedWithTheReason(_ name: String, _ bytes: [UInt8], _ message: String) throws {
    let finding = try #require(InfoPlistCheck(propertyListBytes: bytes).findings.first, "\(name)")
    #expect(finding.message.contains("binary property list (bplist) but is truncated or corrupt"), "\(name)")
    #expect(finding.message.contains(message), "\(name): \(finding.message)")
    #expect(finding.location.line == nil, "\(name)")
    #expect(throws: (any Error).self, "\(name)") { try FileProviderActionList(propertyListBytes: bytes) }
}

/// Infos.plists of every shape the checker reports on: the binary form Foundation writes gives
/// the findings the XML form gives (ordered alike: Foundation's writer does not keep the order
/// of keys).
private let roundTripDocuments: [String] = [
    """
    <plist><dict><key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key>
    <string>com.apple.fileprovider-actionsui</string><key>NSExtensionFileProviderActions</key><array>
    <dict><key>NSExtensionFileProviderActionIdentifier</key><string>a</string>
    <key>NSExtensionFileProviderActionName</key><string>Ä ☃ 𝄞</string>
    <key>NSExtensionFileProviderActionActivationRule</key>
    <string>SUBQUERY(fileproviderItems, $i, $i.uploadded == YES).@count &gt; 0</string></dict>
    <dict><key>NSExtensionFileProviderActionIdentifier</key><string>b</string>
    <key>NSExtensionFileProviderActionName</key><string>B</string>
    <key>NSExtensionFileProviderActionActivationRule</key><true/></dict>
    <dict><key>NSExtensionFileProviderActionIdentifier</key><integer>-7</integer>
    <key>NSExtensionFileProviderActionActivationRule</key><real>2.5</real></dict>
    </array></dict></dict></plist>
    """,
    """
    <plist><dict><key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key>
    <string>com.apple.fileprovider-nonui</string><key>NSExtensionAttributes</key><dict>
    <key>NSExtensionFileProviderSupportsEnumeration</key><false/><key>Big</key><integer>18446744073709551615</integer>
    <key>When</key><date>2026-12-02T18:00:00Z</date><key>Bytes</key><data>AAEC</data></dict>
    </dict></dict></plist>
    """,
]

@Test(arguments: roundTripDocuments.indices)
func binaryPropertyListsGiveTheFindingsOfTheirXML(_ index: Int) throws {
    let xml = Array(roundTripDocuments[index].utf8)
    let value = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil)
    let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    let fromXML = InfoPlistCheck(propertyListBytes: xml).findings
    let fromBinary = InfoPlistCheck(propertyListBytes: Array(binary)).findings
    #expect(!fromXML.isEmpty)
    #expect(fromBinary.map(\.message).sorted() == fromXML.map(\.message).sorted())
    #expect(fromBinary.map(\.location.keyPath).sorted() == fromXML.map(\.location.keyPath).sorted())
    #expect(fromBinary.allSatisfy { $0.location.line == nil })
}
