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
            }
            sites.append(StoredSite(test: test, variable: site.variable, cost: site.cost))
            strings.append(string)
        }
        // New tables rather than writing into the old ones: copies of this machine share them.
        storedSites = PlainStorage(sites)
        stringSites = PlainStorage(strings)
        selectionSites = Self.selectionSites(program, keys: selectionKeys, of: Item.self)
        machineCode = MachineWord.lower(program.code) { site in
            guard site < sites.count, sites[site].variable < 0, let test = sites[site].test else { return nil }
            return (test, sites[site].cost)
        }
        decisionTable = makeDecisionTable()
        countLoops = makeCountLoops()
    }
}
