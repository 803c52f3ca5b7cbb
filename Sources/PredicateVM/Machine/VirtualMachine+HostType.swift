import PredicateSemantics
import PredicateSyntax
import PredicateValue

// The tables the machine derives from the type of the items it reads in place, made again
// whenever that type changes.

extension VirtualMachine {
    /// The item at `item`, read in place; its schema comes from its type when the type has a
    /// shared one.
    @inline(__always)
    mutating func reader<Item: KeyValueCoding>(_ item: UnsafePointer<Item>) -> ItemReader {
        guard let schema = adopt(Item.self) else { return ItemReader(item) }
        return ItemReader(address: UnsafeRawPointer(item), type: Item.self, schema: schema)
    }

    /// Makes `Item` the type the scalar sites load fields of in place, once per change of type;
    /// returns its shared schema's identity.
    @inline(__always)
    @usableFromInline
    mutating func adopt<Item: KeyValueCoding>(_: Item.Type) -> ObjectIdentifier? {
        if hostType == ObjectIdentifier(Item.self) { return hostSchema }
        resolveStoredFields(of: Item.self)
        return hostSchema
    }

    @inline(never)
    mutating func resolveStoredFields<Item: KeyValueCoding>(of _: Item.Type) {
        let type = ObjectIdentifier(Item.self)
        let schema = Item.sharedSchema.map(ObjectIdentifier.init)
        hostType = type
        hostSchema = schema
        var sites: [StoredSite] = []
        var strings: [StringSite] = []
        var dictionaries: [DictionarySite] = []
        dictionaries.reserveCapacity(scalarSites.count)
        sites.reserveCapacity(scalarSites.count)
        strings.reserveCapacity(scalarSites.count)
        for index in 0..<scalarSites.count {
            let site = scalarSites.base[index]
            var test: FieldTest?
            var string = StringSite.absent
            if site.isPresent, let schema, site.schema == schema {
                if let stored = Item.storedScalar(atSlot: site.slot), stored.root == type {
                    test = FieldTest(stored, site.decision)
                }
                if let stored = Item.storedString(atSlot: site.slot), stored.root == type, index < comparisons.count,
                    let prepared = comparisons[index]
                {
                    string = StringSite(field: stored, variable: site.variable, cost: site.cost, prepared: prepared)
                }
            } else if let schema {
                string = nestedStringSite(index, schema: schema, of: Item.self)
            }
            sites.append(StoredSite(test: test, variable: site.variable, cost: site.cost))
            strings.append(string)
            dictionaries.append(dictionarySite(index, schema: schema, of: Item.self))
        }
        // New tables rather than writing into the old ones: copies of this machine share them.
        storedSites = PlainStorage(sites)
        stringSites = PlainStorage(strings)
        dictionarySites = PlainStorage(dictionaries)
        selectionSites = Self.selectionSites(program, keys: selectionKeys, of: Item.self)
        machineCode = MachineWord.lower(program.code) { site in
            guard site < sites.count, sites[site].variable < 0, let test = sites[site].test else { return nil }
            return (test, sites[site].cost)
        } selfSite: { site in
            // In the order ``testByScalar(_:_:)`` tries them.
            if site < strings.count, strings[site].field != nil, strings[site].variable < 0 { return .testSelfString }
            if site < dictionaries.count, dictionaries[site].key != nil {
                return dictionaries[site].variable < 0 ? .testSelfDictionary : nil
            }
            if site < scalarSites.count, scalarSites.base[site].isPresent, scalarSites.base[site].variable < 0 {
                return .testSelfScalar
            }
            return nil
        }
        decisionTable = makeDecisionTable()
        siteTable = makeSiteTable()
        countLoops = makeCountLoops()
        wholeSelectionCount = makeWholeSelectionCount()
    }

    /// Comparison site `index` as a ``StringSite`` for items of type `Item`, when its key path is
    /// a field of `Item`'s schema holding a struct and one key of it that `Item` stores in place
    /// (``KeyValueCoding/storedString(atSlot:key:)``: `contentType.identifier`).
    private func nestedStringSite<Item: KeyValueCoding>(
        _ index: Int, schema: ObjectIdentifier, of _: Item.Type
    ) -> StringSite {
        guard index < program.comparisons.count, index < comparisons.count, let prepared = comparisons[index],
            Int(program.comparisons[index].keyPath) < boundFields.count,
            let field = boundFields[Int(program.comparisons[index].keyPath)], field.schema == schema,
            field.rest.count == 1, let key = field.rest[0].key,
            let stored = Item.storedString(atSlot: field.slot, key: key), stored.root == ObjectIdentifier(Item.self)
        else { return .absent }
        let (isDirect, scalarCost) = prepared._withUnsafeGuaranteedRef { ($0.quantifier == .direct, $0.scalarCost) }
        guard isDirect else { return .absent }
        let variable: Int
        switch program.comparisons[index].receiver {
        case .evaluatedObject: variable = -1
        case .variable(let slot): variable = Int(slot)
        }
        return StringSite(
            field: stored, variable: variable, cost: (variable < 0 ? 2 : 3) + scalarCost, prepared: prepared)
    }

    /// Comparison site `index` as a ``DictionarySite`` for items of type `Item`, when its key path
    /// is a field and one key: with the field's place when `Item` stores it as a dictionary.
    private func dictionarySite<Item: KeyValueCoding>(
        _ index: Int, schema: ObjectIdentifier?, of _: Item.Type
    ) -> DictionarySite {
        guard index < dictionaryKeys.count, let key = dictionaryKeys[index], index < program.comparisons.count,
            Int(program.comparisons[index].keyPath) < boundFields.count,
            let field = boundFields[Int(program.comparisons[index].keyPath)]
        else { return .absent }
        var stored: StoredDictionary?
        if field.schema == schema, let place = Item.storedDictionary(atSlot: field.slot),
            place.root == ObjectIdentifier(Item.self)
        {
            stored = place
        } else {
            // Read once and looked up only when the schema the rule was bound to says the field
            // holds a dictionary: anything else (an object: `contentType.identifier`) goes to
            // the general path at once, without a read first.
            guard field.holdsDictionary else { return .absent }
        }
        let variable: Int
        switch program.comparisons[index].receiver {
        case .evaluatedObject: variable = -1
        case .variable(let slot): variable = Int(slot)
        }
        return DictionarySite(
            key: Unmanaged.passUnretained(key), schema: field.schema, slot: field.slot, field: stored,
            variable: variable, loads: variable < 0 ? 2 : 3)
    }
}
