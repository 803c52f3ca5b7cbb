import Foundation
import PredicateFileProvider
import PredicateSemantics
import PredicateValue

/// Cases as lines of a conformance file (`Tests/ConformanceTests/Cases/README.md`): the object
/// as JSON with the test tags (`$item`, `$set`, `$null`, `$uint`, `$date`, `$data`, `$double`).
enum CaseText {
    static let separator = " ⟫ "

    /// `<rule> ⟫ <object> ⟫ <expected> [⟫ vars {…}]`, on one line.
    static func line(_ testCase: DifferentialCase, expected: String) -> String {
        var text = (testCase.rule.isExpression ? "expr: " : "") + oneLine(testCase.rule.format)
        text += separator + (testCase.object == .nil ? "-" : json(testCase.object, isElement: false))
        text += separator + expected
        if !testCase.variables.isEmpty {
            text += separator + "vars " + json(.dictionary(testCase.variables), isElement: false)
        }
        return text
    }

    /// The expectation a conformance file would state for an outcome.
    static func expectation(_ outcome: Outcome?) -> String {
        switch outcome {
        case .result(let flag): return "\(flag)"
        case .value(let value): return "= " + json(value, isElement: false)
        case .error(let error): return "error \(error.kind.rawValue)"
        case .compileError, nil: return "parse error"
        }
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\\n")
    }

    static func json(_ value: Value, isElement: Bool) -> String {
        switch value {
        case .nil: return "null"
        case .null: return isElement ? "null" : "{\"$null\": true}"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .uint(let number): return "{\"$uint\": \"\(number)\"}"
        case .double(let number): return double(number)
        case .decimal(let number): return number.description
        case .string(let text): return quoted(text)
        case .date(let seconds): return "{\"$date\": \(double(seconds))}"
        case .data(let bytes): return "{\"$data\": \"\(Data(bytes).base64EncodedString())\"}"
        case .array(let elements): return "[" + elements.map { json($0, isElement: true) }.joined(separator: ", ") + "]"
        case .set(let elements):
            return "{\"$set\": [" + elements.map { json($0, isElement: true) }.joined(separator: ", ") + "]}"
        case .dictionary(let entries): return object(entries)
        case .object(let object):
            if let item = object as? FileProviderItem { return "{\"$item\": \(self.object(properties(of: item)))}" }
            if let type = object as? UniformType { return "{\"$type\": \(quoted(type.identifier))}" }
            return quoted("<\(object.schema.typeName)>")
        }
    }

    private static func object(_ entries: [String: Value]) -> String {
        "{"
            + entries.keys.sorted().map { quoted($0) + ": " + json(entries[$0] ?? .nil, isElement: false) }
            .joined(separator: ", ") + "}"
    }

    private static func double(_ number: Double) -> String {
        if number.isNaN { return "{\"$double\": \"NaN\"}" }
        if number.isInfinite { return number < 0 ? "{\"$double\": \"-Infinity\"}" : "{\"$double\": \"Infinity\"}" }
        let text = "\(number)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    // MARK: - Items

    /// The properties that rebuild `item` with `FileProviderItem(properties:)`: those that differ
    /// from a new item's defaults.
    static func properties(of item: FileProviderItem) -> [String: Value] {
        var properties: [String: Value] = [
            "itemIdentifier": .string(item.itemIdentifier), "filename": .string(item.filename),
            "parentItemIdentifier": .string(item.parentItemIdentifier),
        ]
        func set(_ key: String, _ value: Value?) {
            if let value { properties[key] = value }
        }
        set("contentType", item.contentType.map { .string($0.identifier) })
        set("typeIdentifier", item.typeIdentifier.map(Value.string))
        set(
            "typeAndCreator",
            item.typeAndCreator.map { .dictionary(["type": .int(Int64($0.type)), "creator": .int(Int64($0.creator))]) })
        if item.capabilities.rawValue != 0 { set("capabilities", .int(item.capabilities.rawValue)) }
        set("fileSystemFlags", item.fileSystemFlags.map { .int($0.rawValue) })
        set("documentSize", item.documentSize.map(Value.int))
        set("childItemCount", item.childItemCount.map(Value.int))
        set("creationDate", item.creationDate.map { .date(secondsSinceReferenceDate: $0) })
        set("contentModificationDate", item.contentModificationDate.map { .date(secondsSinceReferenceDate: $0) })
        set("extendedAttributes", item.extendedAttributes.map { .dictionary($0.mapValues(Value.data)) })
        set("lastUsedDate", item.lastUsedDate.map { .date(secondsSinceReferenceDate: $0) })
        set("tagData", item.tagData.map(Value.data))
        set("favoriteRank", item.favoriteRank.map(Value.uint))
        let flags: [(String, Bool, Bool)] = [
            ("isTrashed", item.isTrashed, false), ("isUploaded", item.isUploaded, true),
            ("isUploading", item.isUploading, false), ("isDownloaded", item.isDownloaded, true),
            ("isDownloading", item.isDownloading, false),
            ("isMostRecentVersionDownloaded", item.isMostRecentVersionDownloaded, true),
            ("isShared", item.isShared, false), ("isSharedByCurrentUser", item.isSharedByCurrentUser, false),
        ]
        for (key, flag, initial) in flags where flag != initial { set(key, .bool(flag)) }
        set("uploadingError", item.uploadingError.map { error($0) })
        set("downloadingError", item.downloadingError.map { error($0) })
        set("ownerNameComponents", item.ownerNameComponents.map { name($0) })
        set("mostRecentEditorNameComponents", item.mostRecentEditorNameComponents.map { name($0) })
        set("versionIdentifier", item.versionIdentifier.map(Value.data))
        set(
            "itemVersion",
            item.itemVersion.map {
                .dictionary(["contentVersion": .data($0.contentVersion), "metadataVersion": .data($0.metadataVersion)])
            })
        set("symlinkTargetPath", item.symlinkTargetPath.map(Value.string))
        set("userInfo", item.userInfo.map(Value.dictionary))
        if !item.inheritedUserInfo.isEmpty { set("inheritedUserInfo", .dictionary(item.inheritedUserInfo)) }
        if item.contentPolicy != .inherited { set("contentPolicy", .int(item.contentPolicy.rawValue)) }
        return properties
    }

    private static func error(_ error: FileProviderError) -> Value {
        var entries: [String: Value] = ["domain": .string(error.domain), "code": .int(error.code)]
        if !error.localizedDescription.isEmpty { entries["localizedDescription"] = .string(error.localizedDescription) }
        if !error.userInfo.isEmpty { entries["userInfo"] = .dictionary(error.userInfo) }
        return .dictionary(entries)
    }

    private static func name(_ name: PredicateFileProvider.FileProviderNameComponents) -> Value {
        var entries: [String: Value] = [:]
        let parts: [(String, String?)] = [
            ("givenName", name.givenName), ("familyName", name.familyName), ("middleName", name.middleName),
            ("namePrefix", name.namePrefix), ("nameSuffix", name.nameSuffix), ("nickname", name.nickname),
        ]
        for (key, part) in parts { if let part { entries[key] = .string(part) } }
        return .dictionary(entries)
    }
}
