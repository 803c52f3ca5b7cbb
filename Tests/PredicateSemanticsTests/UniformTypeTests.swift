import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

// Tests of SPEC §7 (Uniform Type Identifiers): the §8.8 vectors, the §7.2 table and its example
// sentences, the registry's host registration and cycle handling, the `UTType` object, and the
// operand rules of the two UTI operators.

// MARK: - A minimal evaluator for the format-string vectors

/// Evaluates a UTI comparison written as a format string, so that the §8.8 vectors read as the
/// spec writes them. Supports what those vectors need and nothing more: constants, `%@`
/// arguments, `SELF`-rooted key paths (dictionary entries, object keys, mapping over arrays),
/// direct comparisons and `ANY`/`ALL`. The real interpreter is tested elsewhere.
private func evaluate(
    _ format: String, _ arguments: [Value] = [], object: Value = .nil,
    registry: UniformTypeRegistry = .system, lenient: Bool = false
) throws -> Bool {
    let predicate = try PredicateParser.parsePredicate(format, arguments: arguments).predicate
    guard case .comparison(let comparison) = predicate.kind else {
        throw EvaluationError(.unsupported, "not a comparison: \(format)")
    }
    let lhs = try value(of: comparison.lhs, object: object)
    let rhs = try value(of: comparison.rhs, object: object)
    func primitive(_ lhs: Value, _ rhs: Value) throws(EvaluationError) -> Bool {
        switch comparison.op {
        case .utiConformsTo: return try utiConformsTo(lhs, rhs, registry: registry, lenient: lenient)
        case .utiEquals: return try utiEquals(lhs, rhs, lenient: lenient)
        default: throw EvaluationError(.unsupported, "not a UTI operator: \(comparison.op)")
        }
    }
    switch comparison.quantifier {
    case .direct:
        return try primitive(lhs, rhs)
    case .any, .all:
        if case .nil = lhs { return comparison.quantifier == .all }
        guard case .array(let elements) = lhs else { throw EvaluationError(.notACollection, "not an array") }
        for element in elements where try primitive(element, rhs) != (comparison.quantifier == .all) {
            return comparison.quantifier == .any
        }
        return comparison.quantifier == .all
    }
}

/// The value of a constant or of a `SELF`-rooted key path.
private func value(of expression: ExpressionNode, object: Value) throws -> Value {
    switch expression.kind {
    case .constant(let constant):
        return constant
    case .evaluatedObject:
        return object
    case .keyPath(let base, let components):
        var current = try value(of: base, object: object)
        for case .key(let key) in components { current = try valueForKey(current, key) }
        return current
    default:
        throw EvaluationError(.unsupported, "unsupported in this test evaluator")
    }
}

/// Key-value coding over the values the vectors use (SPEC §4.2.1).
private func valueForKey(_ receiver: Value, _ key: String) throws -> Value {
    switch receiver {
    case .nil:
        return .nil
    case .dictionary(let entries):
        return entries[key] ?? .nil
    case .object(let object):
        guard let field = object.value(forKey: key) else { throw EvaluationError(.unknownKey, key) }
        return field
    case .array(let elements):
        return .array(
            try elements.map { element in
                let mapped = try valueForKey(element, key)
                if case .nil = mapped { return .null }
                return mapped
            })
    default:
        throw EvaluationError(.unknownKey, key)
    }
}

/// The error `body` throws, or `nil` when it returns.
private func failure(_ body: () throws(EvaluationError) -> Bool) -> EvaluationError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// A File Provider activation context holding items with the given `contentType`s.
private func context(contentTypes: [String]) -> Value {
    let items = contentTypes.map { Value.dictionary(["contentType": .object(UniformType($0))]) }
    return .dictionary(["fileproviderItems": .array(items)])
}

/// Every row of SPEC §7.2, one identifier per line, with its direct parents exactly as given.
private let specTable: [(identifier: String, parents: [String])] = [
    ("public.item", []),
    ("public.content", []),
    ("public.composite-content", ["public.content"]),
    ("public.data", ["public.item"]),
    ("public.directory", ["public.item"]),
    ("public.folder", ["public.directory"]),
    ("public.volume", ["public.folder"]),
    ("com.apple.package", ["public.directory"]),
    ("com.apple.bundle", ["public.directory"]),
    ("com.apple.plugin", ["com.apple.bundle", "com.apple.package"]),
    ("com.apple.xpc-service", ["com.apple.bundle", "com.apple.package"]),
    ("com.apple.framework", ["com.apple.bundle"]),
    ("com.apple.application-and-system-extension", ["com.apple.xpc-service"]),
    ("com.apple.resolvable", []),
    ("public.symlink", ["public.item", "com.apple.resolvable"]),
    ("com.apple.mount-point", ["public.item", "com.apple.resolvable"]),
    ("com.apple.alias-file", ["public.data", "com.apple.resolvable"]),
    ("com.apple.bookmark", ["public.data", "com.apple.resolvable"]),
    ("public.url", ["public.data"]),
    ("public.file-url", ["public.url"]),
    ("public.executable", ["public.item"]),
    ("com.apple.application", ["public.executable"]),
    ("com.apple.application-bundle", ["com.apple.application", "com.apple.bundle", "com.apple.package"]),
    ("public.unix-executable", ["public.data", "public.executable"]),
    ("com.microsoft.windows-executable", ["public.data", "public.executable"]),
    ("public.text", ["public.data", "public.content"]),
    ("public.plain-text", ["public.text"]),
    ("public.utf8-plain-text", ["public.plain-text"]),
    ("public.utf16-plain-text", ["public.plain-text"]),
    ("public.utf16-external-plain-text", ["public.plain-text"]),
    ("public.rtf", ["public.text"]),
    ("public.html", ["public.text"]),
    ("public.xml", ["public.text"]),
    ("public.yaml", ["public.text"]),
    ("public.json", ["public.text"]),
    ("public.delimited-values-text", ["public.text"]),
    ("public.comma-separated-values-text", ["public.delimited-values-text"]),
    ("public.tab-separated-values-text", ["public.delimited-values-text"]),
    ("public.utf8-tab-separated-values-text", ["public.tab-separated-values-text", "public.utf8-plain-text"]),
    ("public.source-code", ["public.plain-text"]),
    ("public.c-source", ["public.source-code"]),
    ("public.c-header", ["public.source-code"]),
    ("public.c-plus-plus-source", ["public.source-code"]),
    ("public.c-plus-plus-header", ["public.source-code"]),
    ("public.objective-c-source", ["public.source-code"]),
    ("public.objective-c-plus-plus-source", ["public.source-code"]),
    ("public.swift-source", ["public.source-code"]),
    ("public.assembly-source", ["public.source-code"]),
    ("public.script", ["public.source-code"]),
    ("public.shell-script", ["public.script"]),
    ("com.apple.applescript.text", ["public.script"]),
    ("public.make-source", ["public.script"]),
    ("public.python-script", ["public.shell-script"]),
    ("public.ruby-script", ["public.shell-script"]),
    ("public.perl-script", ["public.shell-script"]),
    ("public.php-script", ["public.shell-script"]),
    ("com.netscape.javascript-source", ["public.source-code", "public.executable"]),
    ("com.apple.property-list", ["public.data"]),
    ("com.apple.xml-property-list", ["public.xml", "com.apple.property-list"]),
    ("com.apple.binary-property-list", ["com.apple.property-list"]),
    ("public.contact", []),
    ("public.message", []),
    ("public.calendar-event", []),
    ("public.database", []),
    ("public.playlist", []),
    ("public.vcard", ["public.text", "public.contact"]),
    ("public.email-message", ["public.message"]),
    ("public.m3u-playlist", ["public.text", "public.playlist"]),
    ("com.adobe.pdf", ["public.data", "public.composite-content"]),
    ("com.apple.flat-rtfd", ["public.data", "public.composite-content"]),
    ("com.apple.webarchive", ["public.data", "public.composite-content"]),
    ("org.idpf.epub-container", ["public.data", "public.composite-content"]),
    ("com.apple.rtfd", ["com.apple.package", "public.composite-content"]),
    ("public.image", ["public.data", "public.content"]),
    ("public.jpeg", ["public.image"]),
    ("public.png", ["public.image"]),
    ("public.tiff", ["public.image"]),
    ("com.compuserve.gif", ["public.image"]),
    ("com.microsoft.bmp", ["public.image"]),
    ("com.microsoft.ico", ["public.image"]),
    ("com.apple.icns", ["public.image"]),
    ("public.camera-raw-image", ["public.image"]),
    ("public.svg-image", ["public.image"]),
    ("org.webmproject.webp", ["public.image"]),
    ("public.jpeg-2000", ["public.image"]),
    ("com.adobe.photoshop-image", ["public.image"]),
    ("public.heic", ["public.heif-standard"]),
    ("public.heif", ["public.heif-standard"]),
    ("public.heif-standard", ["public.image"]),
    ("public.audiovisual-content", ["public.data", "public.content"]),
    ("public.movie", ["public.audiovisual-content"]),
    ("public.video", ["public.movie"]),
    ("public.audio", ["public.audiovisual-content"]),
    ("com.apple.quicktime-movie", ["public.movie"]),
    ("public.mpeg", ["public.movie"]),
    ("public.mpeg-4", ["public.movie"]),
    ("public.avi", ["public.movie"]),
    ("public.mpeg-2-transport-stream", ["public.movie"]),
    ("public.mpeg-2-video", ["public.video"]),
    ("public.3gpp", ["public.movie"]),
    ("public.3gpp2", ["public.movie"]),
    ("public.mpeg-4-audio", ["public.mpeg-4", "public.audio"]),
    ("com.apple.protected-mpeg-4-audio", ["public.audio"]),
    ("com.apple.m4a-audio", ["public.mpeg-4-audio"]),
    ("com.apple.m4v-video", ["public.mpeg-4"]),
    ("com.apple.protected-mpeg-4-video", ["com.apple.m4v-video"]),
    ("public.mp3", ["public.audio"]),
    ("com.microsoft.waveform-audio", ["public.audio"]),
    ("public.midi-audio", ["public.audio"]),
    ("public.aiff-audio", ["public.aifc-audio"]),
    ("public.aifc-audio", ["public.audio"]),
    ("com.apple.coreaudio-format", ["public.audio"]),
    ("public.archive", []),
    ("public.disk-image", []),
    ("org.gnu.gnu-zip-archive", ["public.data", "public.archive"]),
    ("public.bzip2-archive", ["public.data", "public.archive"]),
    ("public.tar-archive", ["public.data", "public.archive"]),
    ("com.apple.archive", ["public.data", "public.archive"]),
    ("public.zip-archive", ["com.pkware.zip-archive"]),
    ("com.pkware.zip-archive", ["public.data", "public.archive"]),
    ("public.spreadsheet", ["public.content"]),
    ("public.presentation", ["public.composite-content"]),
    ("org.openxmlformats.wordprocessingml.document", ["public.zip-archive", "public.composite-content"]),
    ("org.openxmlformats.spreadsheetml.sheet", ["public.zip-archive", "public.spreadsheet"]),
    ("org.openxmlformats.presentationml.presentation", ["public.zip-archive", "public.presentation"]),
    ("com.microsoft.word.doc", ["public.data", "public.composite-content"]),
    ("com.microsoft.excel.xls", ["public.data", "public.spreadsheet"]),
    ("com.microsoft.powerpoint.ppt", ["public.data", "public.presentation"]),
    ("public.font", []),
    ("public.truetype-ttf-font", ["public.font"]),
    ("public.opentype-font", ["public.font"]),
]

// MARK: - SPEC §8.8 vectors

@Suite struct UniformTypeSpecVectors {
    static let stringVectors: [(format: String, expected: Bool)] = [
        ("'public.jpeg' UTI-CONFORMS-TO 'public.image'", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.data'", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.item'", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.content'", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.jpeg'", true),
        ("'public.folder' UTI-CONFORMS-TO 'public.item'", true),
        ("'public.folder' UTI-CONFORMS-TO 'public.data'", false),
        ("'com.apple.package' UTI-CONFORMS-TO 'public.folder'", false),
        ("'public.plain-text' UTI-CONFORMS-TO 'public.text'", true),
        ("'public.swift-source' UTI-CONFORMS-TO 'public.plain-text'", true),
        ("'public.python-script' UTI-CONFORMS-TO 'public.script'", true),
        ("'com.netscape.javascript-source' UTI-CONFORMS-TO 'public.script'", false),
        ("'public.zip-archive' UTI-CONFORMS-TO 'public.archive'", true),
        ("'public.archive' UTI-CONFORMS-TO 'public.data'", false),
        ("'public.mpeg-4-audio' UTI-CONFORMS-TO 'public.movie'", true),
        ("'public.movie' UTI-CONFORMS-TO 'public.audiovisual-content'", true),
        ("'public.heic' UTI-CONFORMS-TO 'public.image'", true),
        ("'PUBLIC.JPEG' UTI-EQUALS 'public.jpeg'", true),
        ("'com.example.unknown' UTI-CONFORMS-TO 'com.example.unknown'", true),
        ("'com.example.unknown' UTI-CONFORMS-TO 'public.data'", false),
    ]

    @Test(arguments: stringVectors)
    func vector(format: String, expected: Bool) throws {
        #expect(try evaluate(format) == expected)
    }

    /// `SUBQUERY(fileproviderItems, $i, $i.contentType.identifier UTI-CONFORMS-TO 'public.image')
    /// .@count > 0` over a JPEG and a folder: the interpreter does not exist yet, so the SUBQUERY is
    /// spelled out here (bind each item, read `contentType.identifier`, count the matches).
    @Test func subqueryOverContentTypeIdentifiers() throws {
        let items = try valueForKey(context(contentTypes: ["public.jpeg", "public.folder"]), "fileproviderItems")
        guard case .array(let elements) = items else {
            Issue.record("fileproviderItems is not an array")
            return
        }
        let matches = try elements.filter { item in
            let identifier = try valueForKey(valueForKey(item, "contentType"), "identifier")
            return try utiConformsTo(identifier, .string("public.image"))
        }
        #expect(matches.count == 1)
        #expect(matches.count > 0)
    }

    /// The same rule written with `ANY` over `contentType.identifier` matches too.
    @Test func anyOverContentTypeIdentifiers() throws {
        let items = context(contentTypes: ["public.jpeg", "public.folder"])
        #expect(
            try evaluate("ANY fileproviderItems.contentType.identifier UTI-CONFORMS-TO 'public.image'", object: items))
        #expect(
            try !evaluate("ALL fileproviderItems.contentType.identifier UTI-CONFORMS-TO 'public.image'", object: items))
    }

    /// `ANY fileproviderItems.contentType UTI-CONFORMS-TO 'public.image'` compares UTType objects:
    /// an error by default (Apple raises), and a match in lenient mode.
    @Test func anyOverContentTypeObjectsIsAnError() throws {
        let items = context(contentTypes: ["public.jpeg", "public.folder"])
        let rule = "ANY fileproviderItems.contentType UTI-CONFORMS-TO 'public.image'"
        do {
            _ = try evaluate(rule, object: items)
            Issue.record("expected an evaluation error")
        } catch let error as EvaluationError {
            #expect(error.kind == .typeMismatch)
            #expect(error.message.contains("contentType.identifier"))
        }
        #expect(try evaluate(rule, object: items, lenient: true))
    }
}

// MARK: - SPEC §7.2 table

@Suite struct UniformTypeBuiltInTable {
    @Test(arguments: specTable)
    func directParents(identifier: String, parents: [String]) {
        #expect(UniformTypeRegistry.system.isDeclared(identifier))
        #expect(UniformTypeRegistry.system.parents(of: identifier) == parents)
        for parent in parents { #expect(UniformTypeRegistry.system.conforms(identifier, to: parent)) }
    }

    @Test func declaresExactlyTheSpecTable() {
        #expect(UniformTypeRegistry.system.declaredIdentifiers == specTable.map(\.identifier).sorted())
        #expect(specTable.count == 131)
        #expect(UniformTypeRegistry.system.typesInCycles.isEmpty)
    }

    /// Every ordered pair of built-in types, against a naive recursive closure of the spec table:
    /// the precomputed sets, the string API and the ID API must all agree with it.
    @Test func closureMatchesNaiveReachabilityForEveryPair() throws {
        let registry = UniformTypeRegistry.system
        let parents = Dictionary(uniqueKeysWithValues: specTable.map { ($0.identifier, $0.parents) })
        func reaches(_ from: String, _ to: String) -> Bool {
            from == to || (parents[from] ?? []).contains { reaches($0, to) }
        }
        for (a, _) in specTable {
            let idA = try #require(registry.typeID(for: a))
            #expect(registry.identifier(for: idA) == a)
            var expectedAncestors: [String] = []
            for (b, _) in specTable {
                let idB = try #require(registry.typeID(for: b))
                let expected = reaches(a, b)
                if expected && a != b { expectedAncestors.append(b) }
                #expect(registry.conforms(a, to: b) == expected, "\(a) → \(b)")
                #expect(registry.conforms(idA, to: idB) == expected, "\(a) → \(b) by ID")
            }
            #expect(registry.ancestors(of: a) == expectedAncestors.sorted())
        }
    }

    /// The example sentences at the end of SPEC §7.2.
    static let examples: [(identifier: String, conformsTo: String, expected: Bool)] = [
        ("public.jpeg", "public.image", true),
        ("public.jpeg", "public.data", true),
        ("public.jpeg", "public.item", true),
        ("public.jpeg", "public.content", true),
        ("public.jpeg", "public.jpeg", true),
        ("public.folder", "public.directory", true),
        ("public.folder", "public.item", true),
        ("public.folder", "public.data", false),
        ("com.adobe.pdf", "public.composite-content", true),
        ("com.adobe.pdf", "public.content", true),
        ("com.adobe.pdf", "public.text", false),
        ("public.zip-archive", "com.pkware.zip-archive", true),
        ("public.zip-archive", "public.archive", true),
        ("public.zip-archive", "public.data", true),
        ("public.zip-archive", "public.item", true),
        ("public.archive", "public.data", false),
        ("public.archive", "public.item", false),
        ("public.archive", "public.content", false),
        ("public.python-script", "public.shell-script", true),
        ("public.python-script", "public.script", true),
        ("public.python-script", "public.source-code", true),
        ("public.python-script", "public.plain-text", true),
        ("public.python-script", "public.text", true),
        ("com.netscape.javascript-source", "public.source-code", true),
        ("com.netscape.javascript-source", "public.executable", true),
        ("com.netscape.javascript-source", "public.script", false),
        ("public.swift-source", "public.plain-text", true),
    ]

    @Test(arguments: examples)
    func exampleSentence(identifier: String, conformsTo other: String, expected: Bool) throws {
        #expect(UniformTypeRegistry.system.conforms(identifier, to: other) == expected)
        #expect(try evaluate("%@ UTI-CONFORMS-TO %@", [.string(identifier), .string(other)]) == expected)
    }

    /// The complete ancestor sets the example sentences spell out.
    static let ancestorSets: [(identifier: String, ancestors: [String])] = [
        ("public.jpeg", ["public.content", "public.data", "public.image", "public.item"]),
        ("public.folder", ["public.directory", "public.item"]),
        ("public.zip-archive", ["com.pkware.zip-archive", "public.archive", "public.data", "public.item"]),
        ("public.archive", []),
        ("public.item", []),
    ]

    @Test(arguments: ancestorSets)
    func ancestorSet(identifier: String, ancestors: [String]) {
        #expect(UniformTypeRegistry.system.ancestors(of: identifier) == ancestors)
    }
}

// MARK: - Identifiers: case, unknown and dynamic types

@Suite struct UniformTypeIdentifiers {
    static let caseInsensitive: [(lhs: String, rhs: String, conforms: Bool, equal: Bool)] = [
        ("PUBLIC.JPEG", "public.image", true, false),
        ("public.jpeg", "Public.Image", true, false),
        ("Public.Jpeg", "PUBLIC.JPEG", true, true),
        ("COM.EXAMPLE.UNKNOWN", "com.example.unknown", true, true),
        ("public.archive", "PUBLIC.DATA", false, false),
        ("public.jpég", "PUBLIC.JPÉG", false, false),  // only ASCII folds
        ("public.jpég", "PUBLIC.JPéG", true, true),
    ]

    @Test(arguments: caseInsensitive)
    func asciiCaseIsIgnored(lhs: String, rhs: String, conforms: Bool, equal: Bool) throws {
        #expect(UniformTypeRegistry.system.conforms(lhs, to: rhs) == conforms)
        #expect(UniformTypeRegistry.system.isEqual(lhs, rhs) == equal)
        #expect(try utiEquals(.string(lhs), .string(rhs)) == equal)
        #expect(try utiConformsTo(.string(lhs), .string(rhs)) == conforms)
    }

    @Test func lookupsIgnoreCase() {
        let registry = UniformTypeRegistry.system
        #expect(registry.typeID(for: "PUBLIC.JPEG") == registry.typeID(for: "public.jpeg"))
        #expect(registry.typeID(for: "public.jpeg") != nil)
        #expect(registry.canonicalIdentifier("Public.JPEG") == "public.jpeg")
        #expect(registry.isDeclared("PUBLIC.IMAGE"))
        #expect(registry.parents(of: "PUBLIC.IMAGE") == ["public.data", "public.content"])
        #expect(registry.ancestors(of: "PUBLIC.FOLDER") == ["public.directory", "public.item"])
    }

    /// Unknown identifiers conform only to themselves; `dyn.` ones also to data and item (§7.1).
    static let unknownAndDynamic: [(lhs: String, rhs: String, expected: Bool)] = [
        ("com.example.unknown", "com.example.unknown", true),
        ("com.example.unknown", "public.data", false),
        ("com.example.unknown", "public.item", false),
        ("com.example.unknown", "com.example.other", false),
        ("public.jpeg", "com.example.unknown", false),
        ("dyn.ah62d4rv4ge80", "dyn.ah62d4rv4ge80", true),
        ("dyn.ah62d4rv4ge80", "DYN.AH62D4RV4GE80", true),
        ("dyn.ah62d4rv4ge80", "public.data", true),
        ("dyn.ah62d4rv4ge80", "public.item", true),
        ("DYN.ah62d4rv4ge80", "public.data", true),
        ("dyn.ah62d4rv4ge80", "public.content", false),
        ("dyn.ah62d4rv4ge80", "public.image", false),
        ("dyn.ah62d4rv4ge80", "dyn.other", false),
        ("public.data", "dyn.ah62d4rv4ge80", false),
        ("dynamic.example", "public.data", false),
        ("", "", true),
        ("", "public.data", false),
    ]

    @Test(arguments: unknownAndDynamic)
    func unknownAndDynamicTypes(lhs: String, rhs: String, expected: Bool) throws {
        #expect(UniformTypeRegistry.system.conforms(lhs, to: rhs) == expected)
        #expect(try utiConformsTo(.string(lhs), .string(rhs)) == expected)
    }

    @Test func unknownAndDynamicTypesAreNotDeclared() {
        let registry = UniformTypeRegistry.system
        #expect(registry.typeID(for: "com.example.unknown") == nil)
        #expect(!registry.isDeclared("com.example.unknown"))
        #expect(registry.ancestors(of: "com.example.unknown") == [])
        #expect(registry.parents(of: "com.example.unknown") == [])
        #expect(registry.canonicalIdentifier("Com.Example.Unknown") == "Com.Example.Unknown")
        #expect(registry.typeID(for: "dyn.ah62d4rv4ge80") == nil)
        #expect(!registry.isDeclared("dyn.ah62d4rv4ge80"))
        #expect(registry.ancestors(of: "dyn.ah62d4rv4ge80") == ["public.data", "public.item"])
    }

    /// Every printable ASCII character, at every byte position of an 8-byte word and of the
    /// partial last word, folds exactly when it is a letter: the lookup table folds eight bytes at
    /// a time, and `@`/`[`/`` ` ``/`{` sit right next to the letters.
    @Test(arguments: 0..<16)
    func lookupFoldsOnlyLetters(padding: Int) throws {
        let printable = (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }
        let prefix = String(repeating: "x", count: padding)
        let keys = printable.filter { !$0.isUppercase }.map { "\(prefix)\($0)k" }
        let registry = UniformTypeRegistry.system.registering(keys.map { UniformTypeDeclaration($0, conformsTo: []) })
        for character in printable {
            let probe = "\(prefix.uppercased())\(character)K"
            let expected = "\(prefix)\(character.lowercased())k"
            let id = try #require(registry.typeID(for: probe), "\(probe)")
            #expect(registry.identifier(for: id) == expected, "\(probe)")
        }
        #expect(registry.typeID(for: "\(prefix)\u{C9}k") == nil)  // É: no Unicode case folding
        let accented = registry.registering([UniformTypeDeclaration("\(prefix)\u{E9}k", conformsTo: [])])
        #expect(accented.typeID(for: "\(prefix.uppercased())\u{E9}K") != nil)
        #expect(accented.typeID(for: "\(prefix)\u{C9}k") == nil)
    }

    @Test func foreignIDsConformToNothing() throws {
        let registry = UniformTypeRegistry.system
        let jpeg = try #require(registry.typeID(for: "public.jpeg"))
        for raw: Int32 in [-1, 131, Int32.max] {
            let foreign = UniformTypeID(rawValue: raw)
            #expect(!registry.conforms(foreign, to: jpeg))
            #expect(!registry.conforms(foreign, to: foreign))
            #expect(!registry.conforms(jpeg, to: foreign))
            #expect(registry.identifier(for: foreign) == nil)
        }
    }
}

// MARK: - Host registration

@Suite struct UniformTypeRegistration {
    static let photo = UniformTypeDeclaration(
        "com.example.photo", conformsTo: ["public.jpeg"], preferredFilenameExtension: "exphoto",
        preferredMIMEType: "image/x-example")

    @Test func newTypeJoinsTheGraph() throws {
        let registry = UniformTypeRegistry.system.registering([Self.photo])
        #expect(registry.isDeclared("com.example.photo"))
        #expect(registry.conforms("COM.EXAMPLE.PHOTO", to: "public.image"))
        #expect(registry.conforms("com.example.photo", to: "public.item"))
        #expect(!registry.conforms("public.jpeg", to: "com.example.photo"))
        #expect(
            registry.ancestors(of: "com.example.photo")
                == ["public.content", "public.data", "public.image", "public.item", "public.jpeg"])
        #expect(try utiConformsTo(.string("com.example.photo"), .string("public.image"), registry: registry))
        #expect(try !utiConformsTo(.string("com.example.photo"), .string("public.image")))
        let object = UniformType("com.example.photo", registry: registry)
        #expect(object.preferredFilenameExtension == "exphoto")
        #expect(object.preferredMIMEType == "image/x-example")
        #expect(object.isDeclared)
        #expect(!object.isPublicType)
    }

    @Test func registeringLeavesTheOriginalUntouched() {
        _ = UniformTypeRegistry.system.registering([Self.photo])
        #expect(!UniformTypeRegistry.system.isDeclared("com.example.photo"))
        #expect(!UniformTypeRegistry.system.conforms("com.example.photo", to: "public.image"))
        #expect(UniformTypeRegistry().declaredIdentifiers == UniformTypeRegistry.system.declaredIdentifiers)
    }

    @Test func idsSurviveRegistration() throws {
        let registry = UniformTypeRegistry.system.registering([Self.photo])
        for (identifier, _) in specTable {
            #expect(registry.typeID(for: identifier) == UniformTypeRegistry.system.typeID(for: identifier))
        }
        let photo = try #require(registry.typeID(for: "com.example.photo"))
        let image = try #require(UniformTypeRegistry.system.typeID(for: "public.image"))
        #expect(registry.conforms(photo, to: image))
        #expect(!UniformTypeRegistry.system.conforms(photo, to: image))
    }

    /// A host declaration replaces the parents of a built-in type: here the unverified
    /// `public.heif-standard → public.image` edge (SPEC §9 item 36).
    @Test func overrideReplacesParentsAndKeepsTags() {
        let override = UniformTypeDeclaration("PUBLIC.HEIF-STANDARD", conformsTo: ["public.data"])
        let registry = UniformTypeRegistry.system.registering([override])
        #expect(registry.parents(of: "public.heif-standard") == ["public.data"])
        #expect(!registry.conforms("public.heic", to: "public.image"))
        #expect(registry.conforms("public.heic", to: "public.data"))
        #expect(registry.canonicalIdentifier("public.heif-standard") == "PUBLIC.HEIF-STANDARD")
        let retagged = UniformTypeRegistry.system.registering([
            UniformTypeDeclaration("public.jpeg", conformsTo: ["public.image"], preferredMIMEType: "image/pjpeg")
        ])
        #expect(retagged.preferredFilenameExtension(for: "public.jpeg") == "jpeg")
        #expect(retagged.preferredMIMEType(for: "public.jpeg") == "image/pjpeg")
    }

    @Test func laterDeclarationsWin() {
        let registry = UniformTypeRegistry.system.registering([
            UniformTypeDeclaration("com.example.doc", conformsTo: ["public.text"]),
            UniformTypeDeclaration("com.example.doc", conformsTo: ["public.image", "public.image"]),
        ])
        #expect(registry.parents(of: "com.example.doc") == ["public.image"])
        #expect(!registry.conforms("com.example.doc", to: "public.text"))
        #expect(registry.conforms("com.example.doc", to: "public.content"))
    }

    /// A parent nobody declares is known (descendants conform to it) but not declared, and has no
    /// parents of its own; an undeclared `dyn.` parent brings data and item along.
    @Test func undeclaredParents() {
        let registry = UniformTypeRegistry.system.registering([
            UniformTypeDeclaration("com.example.child", conformsTo: ["com.example.undeclared"]),
            UniformTypeDeclaration("com.example.dynamic-child", conformsTo: ["dyn.a1"]),
        ])
        #expect(registry.typeID(for: "com.example.undeclared") != nil)
        #expect(!registry.isDeclared("com.example.undeclared"))
        #expect(registry.conforms("com.example.child", to: "com.example.undeclared"))
        #expect(!registry.conforms("com.example.undeclared", to: "public.item"))
        #expect(!registry.conforms("com.example.child", to: "public.item"))
        #expect(registry.conforms("com.example.dynamic-child", to: "public.data"))
        #expect(registry.ancestors(of: "dyn.a1") == ["public.data", "public.item"])
    }

    /// Cycles are accepted: conformance is reachability, so the members of a cycle conform to one
    /// another and to everything any of them conforms to; `typesInCycles` names them.
    @Test func cyclesTerminateAndMeanMutualConformance() {
        let registry = UniformTypeRegistry.system.registering([
            UniformTypeDeclaration("com.example.a", conformsTo: ["com.example.b"]),
            UniformTypeDeclaration("com.example.b", conformsTo: ["com.example.c", "public.text"]),
            UniformTypeDeclaration("com.example.c", conformsTo: ["com.example.a"]),
            UniformTypeDeclaration("com.example.self", conformsTo: ["com.example.self"]),
            UniformTypeDeclaration("com.example.leaf", conformsTo: ["com.example.c"]),
        ])
        for a in ["com.example.a", "com.example.b", "com.example.c"] {
            for b in ["com.example.a", "com.example.b", "com.example.c", "public.text", "public.item"] {
                #expect(registry.conforms(a, to: b), "\(a) → \(b)")
            }
            #expect(!registry.ancestors(of: a).contains(a))
        }
        #expect(registry.conforms("com.example.leaf", to: "public.data"))
        #expect(!registry.conforms("com.example.a", to: "com.example.leaf"))
        #expect(registry.conforms("com.example.self", to: "com.example.self"))
        #expect(registry.ancestors(of: "com.example.self") == [])
        #expect(registry.typesInCycles == ["com.example.a", "com.example.b", "com.example.c", "com.example.self"])
    }

    /// A cycle through built-in types: `public.data` made a child of `public.jpeg`.
    @Test func cycleThroughBuiltInTypes() {
        let registry = UniformTypeRegistry.system.registering([
            UniformTypeDeclaration("public.data", conformsTo: ["public.item", "public.jpeg"])
        ])
        #expect(registry.conforms("public.data", to: "public.image"))
        #expect(registry.conforms("public.text", to: "public.jpeg"))
        #expect(registry.typesInCycles == ["public.data", "public.image", "public.jpeg"])
    }

    /// Long chains and a large ring build quickly and without recursion.
    @Test func largeGraphs() {
        let count = 1_000
        let chain = (0..<count).map {
            UniformTypeDeclaration("com.example.chain\($0)", conformsTo: ["com.example.chain\($0 + 1)"])
        }
        let ring = (0..<count).map {
            UniformTypeDeclaration("com.example.ring\($0)", conformsTo: ["com.example.ring\(($0 + 1) % count)"])
        }
        let registry = UniformTypeRegistry.system.registering(chain + ring)
        #expect(registry.conforms("com.example.chain0", to: "com.example.chain\(count)"))
        #expect(!registry.conforms("com.example.chain\(count)", to: "com.example.chain0"))
        #expect(registry.conforms("com.example.ring500", to: "com.example.ring499"))
        #expect(registry.typesInCycles.count == count)
    }
}

// MARK: - Operands

@Suite struct UniformTypeOperands {
    /// Either operand nil → false, before any type check (SPEC §4.3.3).
    static let absentOperands: [(lhs: Value, rhs: Value)] = [
        (.nil, .string("public.image")),
        (.string("public.jpeg"), .nil),
        (.nil, .nil),
        (.nil, .int(5)),
        (.object(UniformType("public.jpeg")), .nil),
    ]

    @Test(arguments: absentOperands)
    func absentOperandIsFalse(lhs: Value, rhs: Value) throws {
        #expect(try !utiConformsTo(lhs, rhs))
        #expect(try !utiEquals(lhs, rhs))
        #expect(try !utiConformsTo(lhs, rhs, lenient: true))
    }

    /// Non-string operands raise a type mismatch whose message names the side and the kind.
    static let mistypedOperands: [(lhs: Value, rhs: Value, fragment: String)] = [
        (.string("public.jpeg"), .int(42), "the right operand is an integer"),
        (.int(42), .string("public.image"), "the left operand is an integer"),
        (.double(1.5), .int(42), "the left operand is a number"),
        (.bool(true), .string("public.image"), "the left operand is a boolean"),
        (.uint(7), .string("public.image"), "the left operand is an unsigned integer"),
        (.date(secondsSinceReferenceDate: 0), .string("public.image"), "the left operand is a date"),
        (.data([1]), .string("public.image"), "the left operand is data"),
        (.dictionary([:]), .string("public.image"), "the left operand is a dictionary"),
        (.array([.string("public.jpeg")]), .string("public.image"), "use ANY (or SUBQUERY)"),
        (.set([.string("public.jpeg")]), .string("public.image"), "the left operand is a set"),
        (.string("public.jpeg"), .array([.string("public.image")]), "join one comparison per type with OR"),
        (.object(Item()), .string("public.image"), "the left operand is a FileProviderItem object"),
        // A `null` reaches the operator only as a quantified element, which is not normalised
        // to nil (SPEC §4.3.2): it is not a string.
        (.null, .string("public.image"), "the left operand is a null"),
        (.string("public.jpeg"), .null, "the right operand is a null"),
    ]

    @Test(arguments: mistypedOperands)
    func mistypedOperandThrows(lhs: Value, rhs: Value, fragment: String) throws {
        for lenient in [false, true] {
            let conforms = try #require(
                failure { () throws(EvaluationError) in try utiConformsTo(lhs, rhs, lenient: lenient) })
            #expect(conforms.kind == .typeMismatch)
            #expect(conforms.message.contains("UTI-CONFORMS-TO compares type identifier strings"))
            #expect(conforms.message.contains(fragment), "\(conforms.message)")
            let equals = try #require(
                failure { () throws(EvaluationError) in try utiEquals(lhs, rhs, lenient: lenient) })
            #expect(equals.kind == .typeMismatch)
            #expect(equals.message.contains("UTI-EQUALS"))
        }
    }

    /// A UTType object is rejected with a pointer to `contentType.identifier` (SPEC §9 item 14).
    @Test func typeObjectOnTheLeftSuggestsTheIdentifier() throws {
        let error = try #require(
            failure { () throws(EvaluationError) in
                try utiConformsTo(.object(UniformType("public.jpeg")), .string("public.image"))
            })
        #expect(error.kind == .typeMismatch)
        #expect(error.message.contains("the left operand is a UTType object ('public.jpeg')"))
        #expect(error.message.contains("contentType.identifier UTI-CONFORMS-TO 'public.image'"))
    }

    @Test func typeObjectOnTheRightSuggestsTheIdentifier() throws {
        let error = try #require(
            failure { () throws(EvaluationError) in
                try utiEquals(.string("public.jpeg"), .object(UniformType("public.jpeg")))
            })
        #expect(error.kind == .typeMismatch)
        #expect(error.message.contains("the right operand is a UTType object"))
        #expect(error.message.contains("'public.jpeg' UTI-EQUALS contentType.identifier"))
    }

    /// Lenient mode reads a type object as its identifier, on either side and for both operators.
    static let lenientCases: [(lhs: Value, rhs: Value, conforms: Bool, equal: Bool)] = [
        (.object(UniformType("public.jpeg")), .string("public.image"), true, false),
        (.string("public.folder"), .object(UniformType("public.data")), false, false),
        (.object(UniformType("public.jpeg")), .object(UniformType("PUBLIC.JPEG")), true, true),
        (.object(UniformType("dyn.x1")), .string("public.item"), true, false),
    ]

    @Test(arguments: lenientCases)
    func lenientModeUsesTheIdentifier(lhs: Value, rhs: Value, conforms: Bool, equal: Bool) throws {
        #expect(try utiConformsTo(lhs, rhs, lenient: true) == conforms)
        #expect(try utiEquals(lhs, rhs, lenient: true) == equal)
        #expect(failure { () throws(EvaluationError) in try utiConformsTo(lhs, rhs) }?.kind == .typeMismatch)
    }
}

/// A stand-in for a File Provider item: some other kind of host object.
private struct Item: KeyValueCoding {
    static let schema = Schema(typeName: "FileProviderItem", fields: [Schema.Field("filename", .string)])
    var schema: Schema { Item.schema }
    func value(atSlot slot: Int) -> Value { .string("a.txt") }
}

// MARK: - The UTType object

@Suite struct UniformTypeObject {
    static let keys: [(identifier: String, key: String, value: Value)] = [
        ("public.jpeg", "identifier", .string("public.jpeg")),
        ("PUBLIC.JPEG", "identifier", .string("public.jpeg")),
        ("public.jpeg", "preferredFilenameExtension", .string("jpeg")),
        ("public.jpeg", "preferredMIMEType", .string("image/jpeg")),
        ("public.png", "preferredMIMEType", .string("image/png")),
        ("com.adobe.pdf", "preferredFilenameExtension", .string("pdf")),
        ("com.adobe.pdf", "preferredMIMEType", .string("application/pdf")),
        ("public.plain-text", "preferredFilenameExtension", .string("txt")),
        ("public.html", "preferredMIMEType", .string("text/html")),
        ("public.json", "preferredMIMEType", .string("application/json")),
        ("public.zip-archive", "preferredFilenameExtension", .string("zip")),
        ("public.mpeg-4", "preferredMIMEType", .string("video/mp4")),
        ("public.image", "preferredFilenameExtension", .nil),
        ("public.image", "preferredMIMEType", .nil),
        ("com.example.unknown", "preferredFilenameExtension", .nil),
        ("public.jpeg", "isDynamic", .bool(false)),
        ("public.jpeg", "dynamic", .bool(false)),
        ("dyn.ah62d4rv4ge80", "isDynamic", .bool(true)),
        ("public.jpeg", "isDeclared", .bool(true)),
        ("public.jpeg", "declared", .bool(true)),
        ("com.example.unknown", "isDeclared", .bool(false)),
        ("dyn.ah62d4rv4ge80", "isDeclared", .bool(false)),
        ("public.jpeg", "isPublicType", .bool(true)),
        ("PUBLIC.jpeg", "publicType", .bool(true)),
        ("com.adobe.pdf", "isPublicType", .bool(false)),
    ]

    @Test(arguments: keys)
    func key(identifier: String, key: String, value: Value) {
        #expect(UniformType(identifier).value(forKey: key) == value)
    }

    @Test func unknownKeysAreNotAnswered() {
        let jpeg = UniformType("public.jpeg")
        #expect(jpeg.value(forKey: "conformsTo") == nil)
        #expect(jpeg.value(forKey: "Identifier") == nil)
        #expect(jpeg.value(atSlot: 99) == .nil)
    }

    @Test func schemaIsShared() {
        #expect(UniformType("public.jpeg").schema === UniformType("com.example.x").schema)
        #expect(UniformType.schema.typeName == "UTType")
        #expect(
            UniformType.schema.keys
                == [
                    "declared", "dynamic", "identifier", "isDeclared", "isDynamic", "isPublicType",
                    "preferredFilenameExtension", "preferredMIMEType", "publicType",
                ])
    }

    @Test func equalityIsByIdentifierIgnoringCase() {
        let jpeg = UniformType("public.jpeg")
        let unknownLower = UniformType("com.example.x")
        let unknownUpper = UniformType("COM.EXAMPLE.X")
        #expect(jpeg == UniformType("PUBLIC.JPEG"))
        #expect(unknownLower == unknownUpper)
        #expect(unknownLower.hashValue == unknownUpper.hashValue)
        #expect(jpeg != UniformType("public.png"))
        #expect(Value.object(unknownLower) == Value.object(unknownUpper))
        #expect(Value.object(jpeg) != Value.object(Item()))
        #expect(!jpeg.isEqual(to: Item()))
        #expect(jpeg.description == "public.jpeg")
    }
}

// MARK: - Concurrency

@Suite struct UniformTypeConcurrency {
    /// The registry is an immutable value: many tasks read `system` and derived registries at once
    /// and all see the same answers as a single-threaded run.
    @Test func registryIsSharedAcrossTasks() async {
        let identifiers = specTable.map(\.identifier)
        let shouted = identifiers.map { $0.uppercased() }
        /// Conforming pairs among the rows `row ≡ quarter (mod 4)`, the left side upper-cased.
        @Sendable func census(_ registry: UniformTypeRegistry, quarter: Int) -> Int {
            var count = 0
            for row in stride(from: quarter, to: identifiers.count, by: 4) {
                for other in identifiers where registry.conforms(shouted[row], to: other) { count += 1 }
            }
            return count
        }
        let expected = (0..<4).map { census(.system, quarter: $0) }
        let derived = UniformTypeRegistry.system.registering([UniformTypeRegistration.photo])
        let tasks = 32
        let results = await withTaskGroup(of: (task: Int, census: Int, registered: Bool).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let local = UniformTypeRegistry.system.registering([
                        UniformTypeDeclaration("com.example.task\(task)", conformsTo: ["public.png"])
                    ])
                    let registered = local.conforms("com.example.task\(task)", to: "public.image")
                    let shared = task.isMultiple(of: 2) ? UniformTypeRegistry.system : derived
                    return (task, census(shared, quarter: task % 4), registered)
                }
            }
            var all: [(task: Int, census: Int, registered: Bool)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == tasks)
        for result in results {
            #expect(result.census == expected[result.task % 4], "task \(result.task)")
            #expect(result.registered, "task \(result.task)")
        }
    }
}
