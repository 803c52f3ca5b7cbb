import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// A comparison site `ANY key.field op constant` (or `ALL`, or `NONE`, which is `NOT ANY`) with
/// `SELF` a selection (``VirtualMachine/evaluate(selection:key:variables:)``): when `field` is
/// stored in the selected items, unboxed and never nil, each item is decided by the field's
/// ``FieldTest`` in place, without building the context, the items' values or their array.
struct SelectionSite {
    /// The test of one item's field; `nil` when the site is not of this form for the host type.
    let test: FieldTest?
    /// The key the path starts with, an index into ``VirtualMachine/selectionKeys``.
    let key: Int
    /// `ALL` rather than `ANY`.
    let all: Bool
    /// ``EvaluationCost/size(_:)`` of the constant: what each element's comparison costs.
    let constantSize: Int

    static let absent = SelectionSite(test: nil, key: -1, all: false, constantSize: 0)
}

extension VirtualMachine {
    /// The selection sites of a program run on selections of `Item`s.
    static func selectionSites<Item: KeyValueCoding>(
        _ program: Program, keys: [String], of _: Item.Type
    ) -> PlainStorage<SelectionSite> {
        let type = ObjectIdentifier(Item.self)
        let sites = program.comparisons.indices.map { index -> SelectionSite in
            guard index < program.prepared.sites.count, let prepared = program.prepared.sites[index],
                program.comparisons[index].receiver == .evaluatedObject, prepared.quantifier != .direct,
                let schema = Item.sharedSchema, Int(program.comparisons[index].keyPath) < program.keyPaths.count
            else { return .absent }
            let components = program.keyPaths[Int(program.comparisons[index].keyPath)]
            // `key.field`, both plain keys: the context's array, then each item's field by key.
            guard components.count == 2, case .key(let head) = components[0], let field = components[1].key,
                let key = keys.firstIndex(of: head), field != "self", !field.utf8.contains(UInt8(ascii: ".")),
                field.utf8.first != UInt8(ascii: "@"), let slot = schema.slot(forKey: field),
                let stored = Item.storedScalar(atSlot: slot), stored.root == type
            else { return .absent }
            // A missing value is `null` inside the array, not nil: only fields that are never missing.
            switch stored.storage {
            case .bool, .int64, .uint64, .double: break
            case .optionalInt64, .optionalUInt64, .optionalDouble: return .absent
            }
            guard let test = FieldTest(stored, prepared.scalar) else { return .absent }
            return SelectionSite(
                test: test, key: key, all: prepared.quantifier == .all,
                constantSize: EvaluationCost.size(prepared.constant))
        }
        return PlainStorage(sites)
    }

    /// Site `index` decided over the selected items in place, charging what reading the path
    /// and the quantified comparison charge on the general path; `nil` when the site is not a
    /// selection site, `SELF` is not a selection of the host type, or an item's value needs the
    /// general path.
    mutating func decideOverSelection(_ index: Int) throws(EvaluationError) -> Bool? {
        guard index < selectionSites.count, let selection else { return nil }
        let site = selectionSites.base + index
        guard let test = site.pointee.test, site.pointee.key == selectionKey,
            selection.first.map({ ObjectIdentifier($0.type) == hostType }) ?? true
        else { return nil }
        let all = site.pointee.all
        var result = all
        var position = 0
        while position < selection.count, let item = selection.item(position) {
            guard let decided = test.decide(item.address) else { return nil }
            if decided != all {
                result = !all
                break
            }
            position += 1
        }
        // Decided before anything is charged, so that the general path can still take over.
        // `PUSH_CONST` and `CMP`, then the comparison of every element with the constant.
        steps -= 2
        if steps < 0 { try charge(0) }
        let pairs = max(1, selection.count).multipliedReportingOverflow(by: site.pointee.constantSize)
        try charge(pairs.overflow ? Int.max : pairs.partialValue)
        return result
    }
}
