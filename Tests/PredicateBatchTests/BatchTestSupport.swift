import PredicateBatch
import PredicateFileProvider
import PredicateSemantics
import PredicateSyntax
import PredicateVM
import PredicateValue

/// Rules compiled for tests: bound to File Provider items, or unbound.
enum TestRules {
    static let itemType = ValueType.object(SchemaReference(FileProviderItem.schema))

    static func program(_ rule: String, selfType: ValueType? = TestRules.itemType) throws -> Program {
        var predicate = try PredicateParser.parsePredicate(rule).predicate
        if let selfType { predicate = Binder.bind(predicate, selfType: selfType) }
        return try Compiler.compile(predicate, source: rule)
    }

    /// What the scalar VM says for each row: `true`/`false`, or the error's description.
    static func scalar(
        _ program: Program, _ rows: [Value], environment: EvaluationEnvironment = EvaluationEnvironment()
    ) -> [String] {
        var machine = VirtualMachine(program: program, environment: environment)
        return rows.map { row in
            do throws(EvaluationError) {
                return String(try machine.evaluate(on: row))
            } catch {
                return error.description
            }
        }
    }

    /// The same, from a batch result.
    static func outcomes(_ result: BatchResult) -> [String] {
        var outcomes = (0..<result.count).map { String(result.matches($0)) }
        for failure in result.errors { outcomes[failure.row] = failure.error.description }
        return outcomes
    }
}

/// Deterministic items with every kind of field, nils included.
enum TestItems {
    static func make(_ count: Int) -> [FileProviderItem] {
        let names = ["report.pdf", "Résumé.PDF", "IMG_0042.jpg", "notes.txt", "写真.png", "ÜBERSICHT.pdf", "a"]
        return (0..<count).map { index in
            var item = FileProviderItem(
                itemIdentifier: "id\(index)", parentItemIdentifier: "root", filename: names[index % names.count])
            item.isUploaded = index % 3 != 0
            item.isShared = index % 5 == 0
            item.documentSize = index % 4 == 0 ? nil : Int64(index * 1000)
            item.favoriteRank = index % 6 == 0 ? UInt64(index) : nil
            item.creationDate = index % 7 == 0 ? nil : Double(index)
            let types = [
                "public.jpeg", "com.adobe.pdf", "public.png", "public.folder", "dyn.ah62d4rv4ge8", "Public.JPEG",
            ]
            item.contentType = index % 8 == 0 ? nil : UniformType(types[index % types.count])
            item.typeIdentifier = index % 9 == 0 ? nil : types[(index / 2) % types.count]
            switch index % 5 {
            case 0: item.userInfo = nil
            case 1: item.userInfo = ["rank": .int(Int64(index % 9))]
            case 2: item.userInfo = ["rank": .string("high")]
            case 3: item.userInfo = ["rank": .double(Double(index % 9) + 0.5)]
            default: item.userInfo = [:]
            }
            return item
        }
    }
}
