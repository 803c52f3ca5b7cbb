import Foundation
import PredicateActions
import Testing

/// The Info.plist reader on hostile bytes: truncations, flipped bytes and inserted markup of the
/// sample files never crash, and every finding points inside the file it is about.
@Suite struct PropertyListMutationTests {
    static let samples: [[UInt8]] = ["Info.plist", "Extension-Info.plist", "Broken-Info.plist"].map { name in
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/FileProvider/\(name)")
        return (try? Array(Data(contentsOf: url))) ?? []
    }

    /// Deterministic mutants of `bytes`: every 13th truncation, 300 seeded byte replacements, and
    /// XML's special characters inserted at seeded positions.
    static func mutants(of bytes: [UInt8]) -> [[UInt8]] {
        var mutants: [[UInt8]] = stride(from: 0, to: bytes.count, by: 13).map { Array(bytes[..<$0]) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
        let replacements: [UInt8] = Array("<>&;/![]\"'?\u{0}".utf8) + [0xFF, 0xC3]
        let insertions = ["&", "&&", "<", "]]>", "<![CDATA[", "<!--", "</dict>", "<dict>", "&#xD800;", "&#99999999;"]
        for _ in 0..<300 {
            var copy = bytes
            copy[next(copy.count)] = replacements[next(replacements.count)]
            mutants.append(copy)
            var inserted = bytes
            inserted.insert(contentsOf: Array(insertions[next(insertions.count)].utf8), at: next(inserted.count + 1))
            mutants.append(inserted)
        }
        return mutants
    }

    @Test func samplesAreRead() {
        #expect(Self.samples.allSatisfy { !$0.isEmpty })
    }

    @Test(arguments: 0..<3)
    func mutantsNeverCrashAndPointInsideTheFile(_ sample: Int) {
        for mutant in Self.mutants(of: Self.samples[sample]) {
            let lines = mutant.filter { $0 == 0x0A }.count + 1
            for finding in InfoPlistCheck(propertyListBytes: mutant).findings {
                if let line = finding.location.line, let column = finding.location.column {
                    #expect((1...lines).contains(line) && column >= 1, "\(finding.message)")
                }
            }
            _ = try? FileProviderActionList(propertyListBytes: mutant)
        }
    }

    /// Deep nesting and size are refused with a message, not recursed into or read whole.
    private static let limitCases: [(name: String, bytes: [UInt8], message: String)] = [
        (
            "arrays nested 100,000 deep",
            Array(("<plist>" + String(repeating: "<array>", count: 100_000)).utf8),
            "the property list nests deeper than 256 levels"
        ),
        (
            "17 MiB of white space", Array(repeating: 0x20, count: 17 << 20),
            "the file is 17825792 bytes; a property list is at most 16777216"
        ),
        ("an unclosed comment", Array("<plist><!-- …".utf8), "the comment '<!--' is never closed with '-->'"),
        ("an unclosed CDATA", Array("<plist><string><![CDATA[x".utf8), "the CDATA section is never closed"),
    ]

    @Test(arguments: limitCases)
    func limitsAreFindings(_ name: String, _ bytes: [UInt8], _ message: String) throws {
        let finding = try #require(InfoPlistCheck(propertyListBytes: bytes).findings.first, "\(name)")
        #expect(finding.message.contains(message), "\(name): \(finding.message)")
    }
}
