import Foundation
import PredicateActions
import PredicateFileProvider
import PredicateSemantics

/// libFuzzer entry point: any bytes, as an `Info.plist`, through everything `predicate check`
/// and `predicate actions` do with one: the checker (this package's XML and binary readers, or
/// Foundation's for the UTF-16 and OpenStep forms), the action list, and its rules over a small
/// selection. Nothing may crash or hang, and every finding with a line must point inside the file.
///
/// Binary property lists are reached two ways: the seeds include binary files for libFuzzer to
/// mutate, and whatever Foundation reads in another form is written back as a binary plist and
/// read again, so the binary path sees every structure the XML inputs reach. Findings are not
/// compared between the two forms: the binary one has no lines, keeps no duplicate keys and
/// sorts its keys, so they rightly differ.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let check = exercise(bytes, lines: lineCount(bytes))
    // Only files this package's XML reader read: Foundation leaks an error object for each file it
    // refuses (suppressed, see .ci/lsan.supp), and every leak makes libFuzzer scan the heap,
    // which would slow this target thirtyfold.
    let readAsXML = bytes.contains(UInt8(ascii: "<")) && !bytes.starts(with: Array("bplist".utf8))
    if readAsXML, !check.fileFindings.contains(where: { $0.message.hasPrefix("not a valid XML property list") }),
        let value = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil),
        let binary = try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    {
        exercise(Array(binary), lines: nil)
    }
    return 0
}

/// The file's lines as XML counts them: LF, CRLF and a lone CR each end one.
private func lineCount(_ bytes: [UInt8]) -> Int {
    var lines = 1
    for (index, byte) in bytes.enumerated() {
        if byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A)) { lines += 1 }
    }
    return lines
}

/// One file through the checker and the action list; `lines` is the file's line count, or `nil`
/// when it is binary and no finding may have a line. Returns the check.
@discardableResult
private func exercise(_ bytes: [UInt8], lines: Int?) -> InfoPlistCheck {
    let check = InfoPlistCheck(propertyListBytes: bytes)
    for finding in check.findings {
        guard let line = finding.location.line else { continue }
        let column = finding.location.column ?? 0
        if lines.map({ !(1...$0).contains(line) }) ?? true || column < 1 {
            print("a finding outside the file\n  finding: \(finding.message) at \(line):\(column)")
            print("  lines:   \(lines.map { "\($0)" } ?? "none (binary)")\n  file:    \(bytes.prefix(400))")
            abort()
        }
    }
    guard let list = try? FileProviderActionList(propertyListBytes: bytes) else { return check }
    let items = [
        FileProviderItem(itemIdentifier: "1", parentItemIdentifier: "root", filename: "Notes.txt"),
        FileProviderItem(itemIdentifier: "2", parentItemIdentifier: "root", filename: "a.pdf"),
    ]
    _ = list.outcomes(
        selectedItems: items, limits: EvaluationLimits(maximumSteps: 100_000, maximumPatternSteps: 1_000_000))
    return check
}
