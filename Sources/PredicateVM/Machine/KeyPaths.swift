import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A key path whose first component is a field of a schema (by identity: the program's key-path
/// table keeps the schema alive) and slot.
struct BoundField {
    let schema: ObjectIdentifier
    let slot: Int
    /// The components after the field (`rank` of `userInfo.rank`), read from the field's value
    /// as ``KeyValueAccess/value(along:from:variable:)`` would after reading the field.
    let rest: [KeyComponent]
    /// Whether the schema declares the field a string (optional or not).
    let holdsString: Bool
    /// Whether the schema declares the field a dictionary (optional or not).
    let holdsDictionary: Bool
}

/// What a key path reads from a selection's context, `{key: [items]}`.
enum SelectionPath: Equatable {
    /// One dotless key (an index into ``VirtualMachine/selectionKeys``): the items when it is
    /// the selection's key, nil otherwise.
    case key(Int)
    /// A dotless key, then `@count`: the number of items, or nil for another key.
    case count(Int)
    /// Anything else: read from the context built as a value.
    case other

    /// What `components` read from a selection's context; their keys are added to `keys`.
    init(_ components: [KeyComponent], keys: inout [String]) {
        func plain(_ component: KeyComponent) -> Int? {
            guard case .key(let key) = component, !key.utf8.contains(UInt8(ascii: ".")),
                key.utf8.first != UInt8(ascii: "@")
            else { return nil }
            if let index = keys.firstIndex(of: key) { return index }
            keys.append(key)
            return keys.count - 1
        }
        if components.count == 1, let key = plain(components[0]) {
            self = .key(key)
        } else if components.count == 2, components[1] == .key("@count"), let key = plain(components[0]) {
            self = .count(key)
        } else {
            // `key.field` is read from the context, but a quantified comparison over the selected
            // items (``SelectionSite``) finds its key among the keys.
            if components.count == 2, components[1].key != nil { _ = plain(components[0]) }
            self = .other
        }
    }
}

extension VirtualMachine {
    /// Key path `index` of the item at `item`: a leading field of the item's schema is read in
    /// place, the rest of the path from its value; `nil` when the path does not start with a
    /// field of the item's schema.
    @inline(__always)
    func keyPath(_ index: Int, of item: ItemReader) throws(EvaluationError) -> Value? {
        guard index < boundFields.count, let field = boundFields[index], item.schema == field.schema else {
            return nil
        }
        let head = item.value(atSlot: field.slot)
        if field.rest.isEmpty { return head }
        return try KeyValueAccess.value(along: field.rest, from: head) { name throws(EvaluationError) in
            try variable(named: name)
        }
    }

    /// Key path `index` of `SELF`: read in place from the item or the selection `SELF` is when
    /// it can be, otherwise from `SELF` as a value.
    @inline(__always)
    mutating func selfKeyPath(_ index: Int, _ item: ItemReader?) throws(EvaluationError) -> Value {
        if let item, let value = try keyPath(index, of: item) { return value }
        if let selection, !hasSelfValue, index < selectionPaths.count {
            switch selectionPaths[index] {
            case .key(let key) where key != selectionKey, .count(let key) where key != selectionKey:
                return .nil
            case .count:
                return .int(Int64(selection.count))
            case .key, .other:
                break
            }
        }
        return try keyPath(UInt16(truncatingIfNeeded: index), from: evaluatedObject(item))
    }

    /// `SELF` as a value: the item (or the selection's context) is boxed once per evaluation,
    /// and only when an instruction needs it whole.
    mutating func evaluatedObject(_ item: ItemReader?) -> Value {
        if hasSelfValue { return selfValue }
        let object: Value
        if let item {
            object = item.boxed()
        } else if let selection {
            object = .dictionary([selectionName ?? "": .array(selection.boxedItems())])
        } else {
            return .nil
        }
        selfValue = object
        hasSelfValue = true
        return object
    }

    /// `KEYPATH`: key path `index` read from `receiver`, charging what the walk costs.
    mutating func keyPath(_ index: UInt16, from receiver: Value) throws(EvaluationError) -> Value {
        let index = Int(index)
        guard index < program.keyPaths.count else { throw malformed("no key path \(index)") }
        // `KeyValueAccess.value(along:from:variable:)` for a single bound field reads the slot
        // and returns when the receiver is an object of the field's schema; that case, directly.
        if let field = boundFields[index], field.rest.isEmpty, case .object(let object) = receiver,
            ObjectIdentifier(object.schema) == field.schema
        {
            return object.value(atSlot: field.slot)
        }
        try charge(EvaluationCost.keyPath(program.keyPaths[index], from: receiver))
        return try KeyValueAccess.value(along: program.keyPaths[index], from: receiver) {
            name throws(EvaluationError) in try variable(named: name)
        }
    }
}
