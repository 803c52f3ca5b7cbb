import PredicateFileProvider
import PredicateValue

/// `predicate help items`: the item JSON that `--items`, `--interaction` and `filter` read, one
/// line per property with its JSON type and its default. Generated from the item model itself
/// (its schema, and an item made with no properties), so it cannot drift from what is read.
enum ItemsHelp {
    static var text: String {
        let item = FileProviderItem(
            itemIdentifier: "", parentItemIdentifier: FileProviderItemIdentifier.rootContainer, filename: "")
        let schema = FileProviderItem.schema
        var lines = [
            "predicate help items - the properties of a File Provider item in JSON",
            "",
            "An item is a JSON object of these properties, under Apple's names or the aliases shown;",
            "every one may be left out and then takes its default. An unknown property is an error",
            "(with a did-you-mean), so a typo cannot silently become a default.",
            "",
            "PROPERTIES (name, aliases: JSON type = default)",
        ]
        for (slot, field) in schema.fields.enumerated() {
            let aliases = schema.keys.filter { $0 != field.name && schema.slot(forKey: $0) == slot }
            let name = ([field.name] + aliases).joined(separator: ", ")
            lines.append("  \(name): \(jsonType(field)) = \(defaultText(field, item.value(atSlot: slot)))")
        }
        lines += [
            "",
            "VALUES",
            "  dates       an ISO 8601 string (\"2026-12-02\", \"2026-12-02T09:30:00Z\",",
            "              \"2026-12-02T10:30:00+01:00\") or seconds since 2001-01-01 (a number or",
            "              {\"$date\": seconds})",
            "  data        a string (its UTF-8 bytes), an array of bytes, or {\"$data\": \"base64\"}",
            "  capabilities  a bit mask, a name, or an array of names and masks:",
        ]
        let names = FileProviderItem.capabilityNames.map { "\($0.name) (\($0.bits.rawValue))" }
        for start in stride(from: 0, to: names.count, by: 3) {
            lines.append("              " + names[start..<min(start + 3, names.count)].joined(separator: ", "))
        }
        lines += [
            "  contentType a type identifier string (\"public.plain-text\")",
            "  contentPolicy  0 inherited, 1 download lazily, 2 download eagerly, 3 lazily and evict",
            "  resolvedUserInfo  computed from inheritedUserInfo and userInfo; not given",
        ]
        return lines.joined(separator: "\n")
    }

    private static func jsonType(_ field: Schema.Field) -> String {
        switch field.name {
        case "capabilities": return "integer or array of capability names"
        case "contentType": return "type identifier string, optional"
        default: return describe(field.type)
        }
    }

    private static func describe(_ type: ValueType) -> String {
        switch type {
        case .any: return "any JSON value"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .array(let element): return "array of " + describe(element)
        case .dictionary(let element): return element == .any ? "object" : "object of " + describe(element)
        case .record: return "object"
        case .object(let reference):
            let fields = reference.schema.fields.map(\.name)
            return "object (" + fields.prefix(2).joined(separator: ", ") + (fields.count > 2 ? ", …)" : ")")
        case .optional(let wrapped): return describe(wrapped) + ", optional"
        }
    }

    private static func defaultText(_ field: Schema.Field, _ value: Value) -> String {
        switch field.name {
        case "itemIdentifier": return "the filename"
        case "parentItemIdentifier": return "\"\(FileProviderItemIdentifier.rootContainer)\" (the root container)"
        case "filename": return "\"\""
        default: break
        }
        switch value {
        case .nil, .null: return "absent (nil)"
        default: return JSON(value).serialized
        }
    }
}
