import PredicateSyntax
import PredicateValue

/// A mistake in a ``Schema``: found when a rule is made for it, before any rule runs.
public struct SchemaProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// Two fields (or a field and another's alias) answer the same key: only the first is
        /// ever read.
        case duplicateKey
        /// The field's name is a reserved word of the language (`size`, `first`, `in`…): rules
        /// must write it `#name`.
        case reservedWord
    }

    /// What is wrong.
    public let kind: Kind
    /// The key concerned.
    public let key: String
    /// The schema's type name.
    public let typeName: String

    /// A sentence naming the type, the key and what to do.
    public var description: String {
        switch kind {
        case .duplicateKey:
            return "\(typeName) declares the key '\(key)' more than once; only the first field is read"
        case .reservedWord:
            return "\(typeName)'s field '\(key)' is a reserved word; rules must write it #\(key)"
        }
    }
}

extension Schema {
    /// The schema's mistakes: keys declared twice, and field names that are reserved words.
    public var problems: [SchemaProblem] {
        var seen: Set<String> = []
        var problems: [SchemaProblem] = []
        for field in fields {
            for key in [field.name] + field.aliases where !seen.insert(key).inserted {
                problems.append(SchemaProblem(kind: .duplicateKey, key: key, typeName: typeName))
            }
            if Keyword.isReserved(field.name) {
                problems.append(SchemaProblem(kind: .reservedWord, key: field.name, typeName: typeName))
            }
        }
        return problems
    }
}
