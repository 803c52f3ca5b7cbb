import Foundation
import PredicateSemantics
import PredicateSyntax

/// The string kernels every engine shares (``StringMatcher``, ``LikePattern``) on ASCII file
/// names against names of the same shape that are not ASCII (issue 14: within 3×), with what a
/// Swift developer writes with Foundation for the non-ASCII names beside them.
enum StringKernelBenchmark {
    /// One operator's figures, ns per name.
    struct Result: Encodable {
        let rule: String
        let names: Int
        let ascii: Double
        let nonASCII: Double
        /// Foundation (`range(of:options:)`, `compare(_:options:)`, `NSPredicate`-free) on the
        /// non-ASCII names.
        let idiomaticNonASCII: Double

        enum CodingKeys: String, CodingKey {
            case rule, names, ascii
            case nonASCII = "non_ascii"
            case ratio = "non_ascii_over_ascii"
            case idiomaticNonASCII = "idiomatic_non_ascii"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rule, forKey: .rule)
            try container.encode(names, forKey: .names)
            try container.encode(ascii, forKey: .ascii)
            try container.encode(nonASCII, forKey: .nonASCII)
            try container.encode(nonASCII / ascii, forKey: .ratio)
            try container.encode(idiomaticNonASCII, forKey: .idiomaticNonASCII)
        }
    }

    /// An operator: the kernel prepared once, and Foundation's way of asking the same.
    private struct Operator {
        let rule: String
        let kernel: (String) -> Bool
        let idiomatic: (String) -> Bool
    }

    private static func operators() -> [Operator] {
        let suffix = StringMatcher(".pdf", options: .caseInsensitive)
        let contains = StringMatcher("sume", options: [.caseInsensitive, .diacriticInsensitive])
        // Not `'re'`: `résumé` begins with it here (both sides decomposed, SPEC §4.5.1), not in
        // Foundation's `range(of:)`, which keeps `é` whole.
        let prefix = StringMatcher("img", options: .caseInsensitive)
        let equal = StringMatcher("résumé 7.pdf", options: .caseInsensitive)
        let like = try? LikePattern("*.pdf", options: .caseInsensitive)
        return [
            Operator(
                rule: "name ENDSWITH[c] '.pdf'", kernel: suffix.isSuffix(of:),
                idiomatic: { $0.range(of: ".pdf", options: [.caseInsensitive, .anchored, .backwards]) != nil }),
            Operator(
                rule: "name CONTAINS[cd] 'sume'", kernel: contains.isContained(in:),
                idiomatic: { $0.range(of: "sume", options: [.caseInsensitive, .diacriticInsensitive]) != nil }),
            Operator(
                rule: "name BEGINSWITH[c] 'img'", kernel: prefix.isPrefix(of:),
                idiomatic: { $0.range(of: "img", options: [.caseInsensitive, .anchored]) != nil }),
            Operator(
                rule: "name ==[c] 'résumé 7.pdf'", kernel: equal.equals,
                idiomatic: { $0.compare("résumé 7.pdf", options: .caseInsensitive) == .orderedSame }),
            Operator(
                rule: "name LIKE[c] '*.pdf'", kernel: { like?.matches($0) ?? false },
                idiomatic: { $0.lowercased().hasSuffix(".pdf") }),
        ]
    }

    /// File names of the same shapes, ASCII or not: the stems differ, the rest is alike.
    static func names(_ count: Int, ascii: Bool) -> [String] {
        let stems =
            ascii
            ? ["resume", "Report", "IMG_0042", "notes", "Overview", "photo", "scan", "Invoice", "draft"]
            : ["résumé", "Rapport é", "IMG_0042 ü", "notes à", "Übersicht", "写真", "scan ñ", "Facture ç", "brouillon ø"]
        let extensions = ["pdf", "PDF", "jpg", "txt", "docx"]
        return (0..<count).map { index in
            "\(stems[index % stems.count]) \(index).\(extensions[index / stems.count % extensions.count])"
        }
    }

    static func run(options: BenchmarkOptions) -> [Result] {
        let count = options.quick ? 2_000 : 100_000
        let ascii = names(count, ascii: true)
        let other = names(count, ascii: false)
        let selected = operators().filter { options.filter.map($0.rule.localizedCaseInsensitiveContains) ?? true }
        guard !selected.isEmpty else { return [] }
        var results: [Result] = []
        for entry in selected {
            // The kernel and Foundation must agree before anything is timed.
            for name in other + ascii where entry.kernel(name) != entry.idiomatic(name) {
                fail("\(entry.rule): the kernel and Foundation disagree on \(name.debugDescription)")
            }
            func time(_ names: [String], _ test: (String) -> Bool) -> Double {
                Timing.onePassPerRun(runs: options.runs, units: names.count) {
                    names.reduce(0) { $0 + (test($1) ? 1 : 0) }
                }.median
            }
            results.append(
                Result(
                    rule: entry.rule, names: count, ascii: time(ascii, entry.kernel),
                    nonASCII: time(other, entry.kernel), idiomaticNonASCII: time(other, entry.idiomatic)))
        }
        print(
            "\nString kernels (shared by every engine): \(count) file names, ns/name; ASCII names against names that are not"
        )
        print(
            "\(column("rule", width: 28)) \(column("ASCII", width: 8)) \(column("not ASCII", width: 10))"
                + " \(column("÷", width: 6)) \(column("Foundation, not ASCII", width: 22))")
        for result in results {
            print(
                "\(column(result.rule, width: 28))\(column(result.ascii, width: 9))\(column(result.nonASCII, width: 11))"
                    + "\(column(result.nonASCII / result.ascii, decimals: 2, width: 7))"
                    + "\(column(result.idiomaticNonASCII, width: 23))")
        }
        return results
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("predicate-bench: string kernels: \(message)\n".utf8))
        exit(1)
    }
}
