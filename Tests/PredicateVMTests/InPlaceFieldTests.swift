import PredicateFileProvider
import PredicateInterpreter
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue
import Testing

/// A note with a stored `String` and a stored `String?`, declared as ``StoredString``s, one
/// string that is stored but not declared (read through ``KeyValueCoding/value(atSlot:of:)``),
/// two dictionaries declared as ``StoredDictionary``s, and an optional struct whose identifier is
/// declared as a nested ``StoredString``, so that the VM's in-place tests meet every storage and
/// the general path beside them.
private struct Note: KeyValueCoding, Equatable {
    var title: String
    var subtitle: String?
    var hidden: String
    var info: [String: Value]?
    var extra: [String: Value] = [:]
    var kind: Kind? = nil

    static let schema = Schema(
        typeName: "Note",
        fields: [
            .init("title", .string), .init("subtitle", .optional(.string)), .init("hidden", .string),
            .init("info", .optional(.dictionary(.any))), .init("extra", .dictionary(.any)),
            .init("kind", .optional(.object(SchemaReference(Kind.schema)))),
        ])
    var schema: Schema { Note.schema }
    static var sharedSchema: Schema? { schema }

    static let stored: [StoredString?] = [.string(\Note.title), .string(\Note.subtitle), nil]
    static func storedString(atSlot slot: Int) -> StoredString? { slot < stored.count ? stored[slot] : nil }
    static func storedString(atSlot slot: Int, key: String) -> StoredString? {
        slot == 5 && key == "identifier" ? .string(\Note.kind, \Kind.identifier) : nil
    }
    static func storedDictionary(atSlot slot: Int) -> StoredDictionary? {
        switch slot {
        case 3: return .dictionary(\Note.info)
        case 4: return .dictionary(\Note.extra)
        default: return nil
        }
    }

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .string(title)
        case 1: return subtitle.map(Value.string) ?? .nil
        case 2: return .string(hidden)
        case 3: return info.map(Value.dictionary) ?? .nil
        case 4: return .dictionary(extra)
        case 5: return kind.map { .object($0) } ?? .nil
        default: return .nil
        }
    }
}

/// A type identifier with other fields around it (so the string is not at the struct's start),
/// stored in ``Note`` as an optional.
private struct Kind: KeyValueCoding, Equatable {
    var isDeclared: Bool
    var identifier: String
    var note: String?

    static let schema = Schema(
        typeName: "Kind",
        fields: [.init("isDeclared", .bool), .init("identifier", .string), .init("note", .optional(.string))])
    var schema: Schema { Kind.schema }

    func value(atSlot slot: Int) -> Value {
        switch slot {
        case 0: return .bool(isDeclared)
        case 1: return .string(identifier)
        case 2: return note.map(Value.string) ?? .nil
        default: return .nil
        }
    }
}

/// The same note with no stored strings or dictionaries declared: every comparison of its strings takes the
/// general path, the reference for what the in-place path answers and charges.
private struct PlainNote: KeyValueCoding {
    let note: Note

    var schema: Schema { Note.schema }
    static var sharedSchema: Schema? { Note.schema }
    func value(atSlot slot: Int) -> Value { note.value(atSlot: slot) }
}

@Suite struct InPlaceFieldTests {
    /// ASCII, non-ASCII (folding and decomposition matter), empty, small and heap-allocated
    /// strings, and an absent optional.
    private static let notes: [Note] = [
        Note(title: "Report.PDF", subtitle: nil, hidden: "x"),
        Note(
            title: "Résumé final.pdf", subtitle: "ÉTÉ été", hidden: "Résumé",
            kind: Kind(isDeclared: true, identifier: "public.jpeg", note: "x")),
        Note(title: "", subtitle: "", hidden: "", kind: Kind(isDeclared: false, identifier: "", note: nil)),
        Note(title: "img_0001 a much longer title than fits inline.jpg", subtitle: "img_", hidden: "img_1"),
        Note(
            title: "ﬁle ｎａｍｅ", subtitle: "e\u{301}", hidden: "é",
            info: ["rank": 4, "name": "Box.PDF", "flag": true, "a.b": 1, "a": ["b": 2], "empty": .null],
            extra: ["tags": ["red", "blue"], "rank": 2.5]),
        Note(
            title: "x", subtitle: nil, hidden: "x", info: ["rank": "high", "a": ["b": 3], "flag": 0],
            extra: ["rank": .uint(.max)],
            kind: Kind(isDeclared: false, identifier: "com.example.Unknown.JPEG", note: nil)),
        Note(title: "y", subtitle: nil, hidden: "y", info: [:], extra: ["tags": "red", "rank": .double(.nan)]),
    ]

    static let rules = [
        "title == 'Report.PDF'", "title ==[c] 'report.pdf'", "title != 'x'", "title ==[cd] 'resume final.pdf'",
        "title BEGINSWITH 'img_'", "title BEGINSWITH[c] 'RÉ'", "title ENDSWITH[c] '.pdf'",
        "title ENDSWITH[cd] 'PDF'", "title CONTAINS[cd] 'resume'", "title CONTAINS 'a'", "title CONTAINS ''",
        "title IN {'Report.PDF', ''}", "title IN {'x', 1}", "title LIKE[c] 'img_*'", "title LIKE '*.pdf'",
        "title LIKE 'file name'", "title MATCHES '.*\\\\.(pdf|PDF)'", "title MATCHES[c] 'r.*'",
        "title == nil", "title != nil", "title > 'M'", "title == 3", "title UTI-CONFORMS-TO 'public.image'",
        "subtitle == nil", "subtitle != nil", "subtitle ==[cd] 'ete ete'", "subtitle BEGINSWITH 'img'",
        "subtitle ENDSWITH 'é'", "subtitle LIKE '*'", "subtitle MATCHES 'e.'", "subtitle CONTAINS[c] 'É'",
        "subtitle IN {'', nil}", "subtitle < 'z'",
        "hidden == 'x'", "hidden ENDSWITH 'é'", "title ENDSWITH[c] '.pdf' AND subtitle == nil OR hidden == ''",
        "NOT (title CONTAINS[cd] 'resume') AND subtitle LIKE[c] 'IMG*'",
        "info.rank >= 3", "info.rank == nil", "info.rank != nil", "info.rank < 'x'", "info.rank BETWEEN {1, 4}",
        "info.rank IN {4, 'high'}", "info.name ENDSWITH[c] '.pdf'", "info.name LIKE 'Box*'", "info.flag == YES",
        "info.\"a.b\" == 1", "info.\"a.b\" == nil", "info.a.b > 1", "info.empty == nil", "info.@count > 1",
        "info.missing == nil", "extra.rank > 2", "extra.rank == 18446744073709551615", "extra.tags CONTAINS 'red'",
        "ANY extra.tags == 'red'", "extra.rank > 2 AND info.flag == YES OR info == nil", "info.rank == 4",
        "info.rank != 4", "info.name == YES", "info.name != CAST(0, 'NSDate')", "title != nil", "info.rank == 4.0",
        "info.name > 3", "hidden < YES", "title >= CAST(0, 'NSDate')", "info.rank <= 1.5",
        "kind.identifier == 'public.jpeg'", "kind.identifier UTI-CONFORMS-TO 'public.image'",
        "kind.identifier UTI-CONFORMS-TO 'public.data'", "kind.identifier UTI-EQUALS 'PUBLIC.JPEG'",
        "kind.identifier ENDSWITH[c] 'jpeg'", "kind.identifier == nil", "kind.identifier LIKE 'public.*'",
        "kind.identifier MATCHES '[a-z.]+'", "kind.identifier > 'a'", "kind.identifier IN {'', 'public.jpeg'}",
        "kind.identifier == 3", "kind.note == nil", "kind.isDeclared == YES",
    ]

    /// A machine for `rule` bound to ``Note``, and one for the same rule compiled without `TEST`
    /// (every load and comparison its own instruction, so none of the in-place paths runs): the
    /// reference for what those paths answer and charge.
    private static func machines(
        _ rule: String, steps: Int = EvaluationLimits().maximumSteps
    ) throws -> (
        fused: VirtualMachine, plain: VirtualMachine, bound: PredicateNode
    ) {
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: .object(SchemaReference(Note.schema)))
        let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: steps))
        return (
            VirtualMachine(program: try Compiler.compile(bound, source: rule), environment: environment),
            VirtualMachine(program: try Compiler.compile(bound, source: rule, fusing: false), environment: environment),
            bound
        )
    }

    /// Each rule gives, on each note read in place, the interpreter's result or error; and on
    /// the general path the same.
    @Test(arguments: rules)
    func fieldsReadInPlaceMeanTheComparison(_ rule: String) throws {
        var (machine, _, bound) = try Self.machines(rule)
        let interpreter = Interpreter()
        for (index, note) in Self.notes.enumerated() {
            let expected = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try interpreter.evaluate(bound, on: .object(note))
            }
            let inPlace = withUnsafePointer(to: note) { pointer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
            }
            let general = withUnsafePointer(to: PlainNote(note: note)) { pointer in
                FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
            }
            #expect(inPlace == expected, "\(rule) on note \(index)")
            #expect(general == expected, "\(rule) on note \(index)")
        }
    }

    /// At every budget around the limit, a note read in place (its declared fields where they
    /// lie), and the same note with nothing declared (each field's value read once), stop where
    /// the rule compiled without `TEST` stops, with the same steps left: the in-place tests
    /// charge what the instructions they stand for charge, and leave a comparison they cannot
    /// afford to the general path.
    @Test(arguments: [
        "title ENDSWITH[c] '.pdf'", "subtitle == nil", "title LIKE[c] 'img_*'", "title MATCHES '.*\\\\.(pdf|PDF)'",
        "title IN {'Report.PDF', ''} OR subtitle CONTAINS[cd] 'ete'", "title == 3", "info.rank >= 3",
        "info.rank < 'x'", "info.\"a.b\" == nil", "extra.rank > 2 OR info.name LIKE 'Box*'", "hidden > 'a'",
        "info.rank == 4 OR title != 3", "info.name > 3", "kind.identifier UTI-CONFORMS-TO 'public.image'",
        "kind.identifier ENDSWITH[c] 'jpeg' OR kind.identifier == nil", "kind.identifier > 'a'",
    ])
    func fieldsReadInPlaceSpendTheBudgetAlike(_ rule: String) throws {
        var outcomes: Set<String> = []
        for budget in 0...40 {
            var (machine, plain, _) = try Self.machines(rule, steps: budget)
            for (index, note) in Self.notes.enumerated() {
                let expected = withUnsafePointer(to: note) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in try plain.evaluate(item: pointer) }
                }
                let stepsLeft = plain.remainingSteps
                let inPlace = withUnsafePointer(to: note) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
                }
                let inPlaceStepsLeft = machine.remainingSteps
                let undeclared = withUnsafePointer(to: PlainNote(note: note)) { pointer in
                    FusedComparisonTests.outcome { () throws(EvaluationError) in try machine.evaluate(item: pointer) }
                }
                let context = "\(rule) with \(budget) steps on note \(index)"
                #expect(inPlace == expected, "\(context)")
                #expect(inPlaceStepsLeft == stepsLeft, "\(context)")
                #expect(undeclared == expected, "\(context), nothing declared")
                #expect(machine.remainingSteps == stepsLeft, "\(context), nothing declared")
                outcomes.insert(expected.hasPrefix("limitExceeded") ? "limitExceeded" : "answered")
            }
        }
        #expect(outcomes == ["limitExceeded", "answered"], "\(rule)")
    }

    /// A `SUBQUERY` over selected items tests each item's stored string through the loop's
    /// variable: the same answers, errors and steps as over the context as a value.
    @Test(arguments: [
        "SUBQUERY(fileproviderItems, $i, $i.filename ENDSWITH[c] '.pdf').@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.typeIdentifier == nil AND $i.filename LIKE 'b*').@count == 1",
        "ANY fileproviderItems.filename CONTAINS[cd] 'resume'",
        "SUBQUERY(fileproviderItems, $i, $i.symlinkTargetPath MATCHES '/tmp/.*').@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.\"com.example.testBit\" == YES).@count > 0",
        "SUBQUERY(fileproviderItems, $i, $i.userInfo.rank >= 3 OR $i.inheritedUserInfo.rank < 0).@count == 1",
    ])
    func selectedItemsReadInPlace(_ rule: String) throws {
        var first = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "Résumé.PDF")
        first.typeIdentifier = "com.adobe.pdf"
        first.symlinkTargetPath = "/tmp/x"
        first.userInfo = ["com.example.testBit": true, "rank": "x"]
        var second = FileProviderItem(itemIdentifier: "b", parentItemIdentifier: "root", filename: "b.txt")
        second.userInfo = ["rank": 3]
        second.inheritedUserInfo = ["rank.inherited": 1]
        let items = [first, second]
        let context = FileProviderContext.activation(selectedItems: items)
        let parsed = try PredicateParser.parsePredicate(rule).predicate
        let bound = Binder.bind(parsed, selfType: Binder.type(describing: context))
        let program = try Compiler.compile(bound, source: rule)
        for maximumSteps in 0...60 {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: maximumSteps))
            var machine = VirtualMachine(program: program, environment: environment)
            let expected = FusedComparisonTests.outcome { () throws(EvaluationError) in
                try machine.evaluate(on: context)
            }
            let stepsLeft = machine.remainingSteps
            let onSelection = items.withUnsafeBufferPointer { items in
                FusedComparisonTests.outcome { () throws(EvaluationError) in
                    try machine.evaluate(selection: items, key: FileProviderContext.selectionKey)
                }
            }
            #expect(onSelection == expected, "\(rule) with \(maximumSteps) steps")
            #expect(machine.remainingSteps == stepsLeft, "\(rule) with \(maximumSteps) steps")
        }
    }

    /// Every stored string of ``FileProviderItem`` reads what its ``KeyValueCoding/value(atSlot:of:)``
    /// answers, on items with every such field set and unset.
    @Test func fileProviderItemStoresItsStrings() {
        var full = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "Résumé.pdf")
        full.typeIdentifier = "com.adobe.pdf"
        full.symlinkTargetPath = "/tmp/a long path that does not fit in a small string"
        let empty = FileProviderItem(itemIdentifier: "", parentItemIdentifier: "", filename: "")
        var storedCount = 0
        for item in [full, empty] {
            withUnsafePointer(to: item) { pointer in
                for slot in FileProviderItem.schema.fields.indices {
                    guard let stored = FileProviderItem.storedString(atSlot: slot) else { continue }
                    storedCount += 1
                    #expect(stored.root == ObjectIdentifier(FileProviderItem.self))
                    let name = FileProviderItem.schema.fields[slot].name
                    let answered = FileProviderItem.value(atSlot: slot, of: pointer)
                    #expect(stored.value(in: UnsafeRawPointer(pointer)) == answered, "slot \(slot) (\(name))")
                    let borrowed = stored.withString(in: UnsafeRawPointer(pointer), whenNil: { Value.nil }) {
                        Value.string($0)
                    }
                    #expect(borrowed == answered, "slot \(slot) (\(name))")
                }
            }
        }
        #expect(storedCount == 2 * 5)
        #expect(FileProviderItem.storedString(atSlot: 3) == nil)
        #expect(FileProviderItem.storedString(atSlot: 99) == nil)
    }

    /// `contentType.identifier` of ``FileProviderItem``, stored inside its optional content type,
    /// reads what reading the key of the field's value answers, with and without a content type.
    @Test func fileProviderItemStoresItsContentTypeIdentifier() throws {
        let stored = try #require(FileProviderItem.storedString(atSlot: 3, key: "identifier"))
        #expect(FileProviderItem.storedString(atSlot: 3, key: "preferredMIMEType") == nil)
        #expect(FileProviderItem.storedString(atSlot: 2, key: "identifier") == nil)
        var typed = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "a.pdf")
        typed.contentType = UniformType("com.adobe.pdf")
        var unknown = typed
        unknown.contentType = UniformType("com.example.a-type-nobody-declared-with-a-long-name")
        var untyped = typed
        untyped.contentType = nil
        for item in [typed, unknown, untyped] {
            withUnsafePointer(to: item) { pointer in
                let answered = item.contentType.map { Value.string($0.identifier) } ?? .nil
                #expect(stored.value(in: UnsafeRawPointer(pointer)) == answered)
            }
        }
    }

    /// `userInfo` and `inheritedUserInfo` of ``FileProviderItem`` read what its
    /// ``KeyValueCoding/value(atSlot:of:)`` answers, set and unset; `resolvedUserInfo` is computed.
    @Test func fileProviderItemStoresItsDictionaries() {
        var full = FileProviderItem(itemIdentifier: "a", parentItemIdentifier: "root", filename: "a")
        full.userInfo = ["rank": 3, "tags": ["red"]]
        full.inheritedUserInfo = ["x.inherited": true]
        let empty = FileProviderItem(itemIdentifier: "b", parentItemIdentifier: "root", filename: "b")
        var storedSlots: [Int] = []
        for item in [full, empty] {
            withUnsafePointer(to: item) { pointer in
                for slot in FileProviderItem.schema.fields.indices {
                    guard let stored = FileProviderItem.storedDictionary(atSlot: slot) else { continue }
                    storedSlots.append(slot)
                    #expect(stored.root == ObjectIdentifier(FileProviderItem.self))
                    let answered = FileProviderItem.value(atSlot: slot, of: pointer)
                    #expect(stored.value(in: UnsafeRawPointer(pointer)) == answered, "slot \(slot)")
                }
            }
        }
        let names = Set(storedSlots.map { FileProviderItem.schema.fields[$0].name })
        #expect(names == ["userInfo", "inheritedUserInfo"])
        #expect(storedSlots.count == 4)
    }
}
