import Foundation
import PredicateSemantics
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateVM

/// The verifier accepts everything the compiler produces and refuses each kind of malformed
/// program with the offset and problem it names.
@Suite struct VerifierTests {
    /// Every rule of the conformance files, the rule text before the first ` ⟫ `, `expr: ` for
    /// expressions; lines that are comments, `let`s or that do not parse without arguments are
    /// skipped.
    static let conformanceRules: [String] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("ConformanceTests/Cases")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var rules: [String] = []
        for name in files.sorted() where name.hasSuffix(".txt") {
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("let ") {
                guard let separator = line.range(of: " ⟫ ") else { continue }
                rules.append(String(line[..<separator.lowerBound]))
            }
        }
        return rules
    }()

    @Test func conformanceRulesAreFound() {
        #expect(Self.conformanceRules.count > 100)
    }

    @Test func compilerOutputVerifies() throws {
        var compiled = 0
        for rule in Self.conformanceRules {
            for bound in [false, true] {
                guard let program = try? Support.compile(rule, bound: bound) else { continue }
                compiled += 1
                do {
                    try Verifier.verify(program)
                } catch {
                    Issue.record("\(rule) (bound: \(bound)): \(error)")
                }
            }
        }
        #expect(compiled > 100)
    }

    @Test(arguments: RoundTripTests.rules)
    func sampleRulesVerify(_ rule: String) throws {
        for bound in [false, true] {
            try Verifier.verify(try Support.compile(rule, bound: bound))
        }
    }

    /// Programs the compiler would never write, each with the exact error.
    static let malformed: [(String, Program, VerificationError)] = [
        (
            "source ranges",
            Program(
                kind: .predicate, code: [.pushConstant(0), .returnBool], constants: [.bool(true)], keyPaths: [],
                variables: [], sourceRanges: [SourceRange(0, 1)], maximumStackDepth: 1, maximumSubqueryDepth: 0,
                source: ""),
            VerificationError(instruction: nil, .sourceRangeCountMismatch(ranges: 1, instructions: 2))
        ),
        (
            "negative source range",
            Program(
                kind: .predicate, code: [.pushConstant(0), .returnBool], constants: [.bool(true)], keyPaths: [],
                variables: [], sourceRanges: [SourceRange(-3, 1), SourceRange(0, 0)], maximumStackDepth: 1,
                maximumSubqueryDepth: 0, source: ""),
            VerificationError(instruction: 0, .invalidSourceRange(SourceRange(-3, 1)))
        ),
        (
            "huge declared stack", Support.program([.pushConstant(0), .returnBool], maximumStackDepth: Int.max),
            VerificationError(instruction: nil, .implausibleMaximumStackDepth(Int.max))
        ),
        (
            "negative declared SUBQUERY depth",
            Support.program([.pushConstant(0), .returnBool], maximumSubqueryDepth: -1),
            VerificationError(instruction: nil, .implausibleMaximumSubqueryDepth(-1))
        ),
        (
            "empty", Support.program([]), VerificationError(instruction: 0, .missingReturn)
        ),
        (
            "constant index", Support.program([.pushConstant(2), .returnBool]),
            VerificationError(instruction: 0, .constantOutOfRange(index: 2, count: 2))
        ),
        (
            "key-path index", Support.program([.loadSelfKeyPath(1), .returnBool]),
            VerificationError(instruction: 0, .keyPathOutOfRange(index: 1, count: 1))
        ),
        (
            "variable index", Support.program([.loadVariable(1), .returnBool]),
            VerificationError(instruction: 0, .variableOutOfRange(index: 1, count: 1))
        ),
        (
            "store variable index", Support.program([.pushConstant(0), .storeVariable(9), .returnBool]),
            VerificationError(instruction: 1, .variableOutOfRange(index: 9, count: 1))
        ),
        (
            "SUBQUERY variable", Support.program([.pushSelf, .subqueryBegin(exit: 0, variable: 3), .returnBool]),
            VerificationError(instruction: 1, .variableOutOfRange(index: 3, count: 1))
        ),
        (
            "selector not a string", Support.program([.callFunction(0, arity: 0), .returnBool]),
            VerificationError(instruction: 0, .notAStringConstant(index: 0))
        ),
        (
            "selector out of range", Support.program([.pushSelf, .invoke(5, arity: 0), .returnBool]),
            VerificationError(instruction: 1, .constantOutOfRange(index: 5, count: 2))
        ),
        (
            "FAIL message", Support.program([.fail(0)]),
            VerificationError(instruction: 0, .notAStringConstant(index: 0))
        ),
        (
            "options",
            Support.program([
                .pushSelf, .pushSelf,
                .compare(op: .equal, options: ComparisonOptions(rawValue: 0x20), quantifier: .direct), .returnBool,
            ]),
            VerificationError(instruction: 2, .invalidComparisonOptions(0x20))
        ),
        (
            "unreachable code is still checked", Support.program([.pushConstant(0), .returnBool, .pushConstant(7)]),
            VerificationError(instruction: 2, .constantOutOfRange(index: 7, count: 2))
        ),
        (
            "jump past the end", Support.program([.jump(5), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 0, .jumpOutOfRange(target: 6))
        ),
        (
            "jump before the start",
            Support.program([.pushConstant(0), .jumpIfFalse(-3), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 1, .jumpOutOfRange(target: -1))
        ),
        (
            "field slot",
            Support.program(
                [.loadSelfKeyPath(0), .returnBool],
                keyPaths: [[.field(FieldReference(key: "name", slot: 40, schema: SchemaReference(Person.schema)))]]),
            VerificationError(instruction: nil, .fieldSlotOutOfRange(keyPath: 0, slot: 40, fieldCount: 3))
        ),
        (
            "key-path variable",
            Support.program(
                [.loadSelfKeyPath(0), .returnBool], keyPaths: [[.key("a"), .variable("missing")]]),
            VerificationError(instruction: nil, .unknownKeyPathVariable(keyPath: 0, name: "missing"))
        ),
        (
            "falls off the end", Support.program([.pushConstant(0)]), VerificationError(instruction: 0, .missingReturn)
        ),
        (
            "underflow",
            Support.program([
                .pushConstant(0), .pushConstant(0), .compare(op: .equal, options: [], quantifier: .direct), .not, .not,
                .jumpIfFalse(0),
                .returnBool,
            ]),
            VerificationError(instruction: 6, .stackUnderflow(depth: 0, pops: 1))
        ),
        (
            "underflow on the taken path only",
            Support.program([.pushConstant(0), .jumpIfFalse(2), .pushConstant(0), .returnBool, .returnBool]),
            VerificationError(instruction: 4, .stackUnderflow(depth: 0, pops: 1))
        ),
        (
            "overflow",
            Support.program(
                [.pushConstant(0), .pushConstant(0), .pushConstant(0), .jumpIfFalse(0), .jumpIfFalse(0), .returnBool],
                maximumStackDepth: 2),
            VerificationError(instruction: 2, .stackOverflow(depth: 3, maximum: 2))
        ),
        (
            "join with different depths",
            Support.program(
                [.pushConstant(0), .jumpIfFalseOrPop(2), .pushConstant(0), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 3, .inconsistentStackDepth(target: 4, expected: 1, found: 2))
        ),
        (
            "wrong return", Support.program([.pushConstant(0), .returnBool], kind: .expression),
            VerificationError(instruction: 1, .wrongReturn(expected: .expression))
        ),
        (
            "values left at return", Support.program([.pushConstant(0), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 2, .valuesLeftAtReturn(depth: 2))
        ),
        (
            "RESTORE_VARS without SAVE_VARS", Support.program([.restoreVariables, .pushConstant(0), .returnBool]),
            VerificationError(instruction: 0, .restoreWithoutSave)
        ),
        (
            "SAVE_VARS never restored", Support.program([.saveVariables, .pushConstant(0), .returnBool]),
            VerificationError(instruction: 2, .unclosedScopeAtReturn)
        ),
        (
            "SAVE_VARS on one path only",
            Support.program([.pushConstant(0), .jumpIfFalse(1), .saveVariables, .pushConstant(0), .returnBool]),
            VerificationError(instruction: 2, .inconsistentScopes(target: 3))
        ),
        (
            "SUBQUERY_NEXT without BEGIN", Support.program([.subqueryNext(0), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 0, .subqueryNextWithoutBegin)
        ),
        (
            "SUBQUERY_COLLECT back to something else", Support.program([.pushConstant(0), .subqueryCollect(-2)]),
            VerificationError(instruction: 1, .collectTargetNotNext(target: 0))
        ),
        (
            "jump to itself", Support.program([.jump(-1), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 0, .backwardJump(target: 0))
        ),
        (
            "conditional jump backwards",
            Support.program([.pushConstant(0), .pushConstant(0), .jumpIfFalse(-2), .returnBool]),
            VerificationError(instruction: 2, .backwardJump(target: 1))
        ),
        (
            "jump to a SUBQUERY_NEXT",
            Support.program(
                [
                    .pushConstant(0), .jumpIfFalse(2), .pushSelf, .subqueryBegin(exit: 3, variable: 0),
                    .subqueryNext(2),
                    .pushConstant(0), .subqueryCollect(-3), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ]),
            VerificationError(instruction: 1, .jumpToSubqueryNext(target: 4))
        ),
        (
            "SUBQUERY deeper than declared",
            Support.program(
                [
                    .pushSelf, .subqueryBegin(exit: 3, variable: 0), .subqueryNext(2), .pushConstant(0),
                    .subqueryCollect(-3),
                    .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ], maximumSubqueryDepth: 0),
            VerificationError(instruction: 1, .subqueryTooDeep(depth: 1, maximum: 0))
        ),
        (
            "SAVE_VARS open across SUBQUERY_COLLECT",
            Support.program(
                [
                    .pushSelf, .subqueryBegin(exit: 4, variable: 0), .subqueryNext(3), .saveVariables, .pushConstant(0),
                    .subqueryCollect(-4), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ]),
            VerificationError(instruction: 5, .subqueryNotOpen)
        ),
        (
            "jump into a SUBQUERY loop",
            Support.program(
                [
                    .pushSelf, .jumpIfFalse(0), .jump(3), .pushSelf, .subqueryBegin(exit: 3, variable: 0),
                    .subqueryNext(2),
                    .pushConstant(0), .subqueryCollect(-3), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ]),
            VerificationError(instruction: 7, .subqueryNotOpen)
        ),
        (
            "SUBQUERY loop that leaves a value",
            Support.program(
                [
                    .pushSelf, .subqueryBegin(exit: 4, variable: 0), .subqueryNext(3), .pushConstant(0),
                    .pushConstant(0),
                    .subqueryCollect(-4), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ]),
            VerificationError(instruction: 5, .inconsistentStackDepth(target: 2, expected: 0, found: 1))
        ),
        (
            "RULE_END outside a rule set",
            Support.program([.pushConstant(0), .ruleEnd(0), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 1, .ruleInstructionOutsideRuleSet)
        ),
        (
            "rule set ending with RETURN_BOOL",
            Support.program([.pushConstant(0), .ruleEnd(0), .pushConstant(0), .returnBool], kind: .ruleSet),
            VerificationError(instruction: 3, .wrongReturn(expected: .ruleSet))
        ),
        (
            "RULE_END with a value under the result",
            Support.program([.pushConstant(0), .pushConstant(0), .ruleEnd(0), .returnRules], kind: .ruleSet),
            VerificationError(instruction: 2, .ruleEndNotAtTopLevel(depth: 2))
        ),
        (
            "jump from one rule into the next",
            Support.program(
                [
                    .pushConstant(0), .jumpIfFalseOrPop(2), .pushConstant(0), .ruleEnd(0), .pushConstant(0),
                    .ruleEnd(1), .returnRules,
                ],
                kind: .ruleSet),
            VerificationError(instruction: 1, .jumpAcrossRuleEnd(target: 4))
        ),
        (
            "MEMO_LOAD whose two paths leave different depths",
            Support.program([.memoLoad(skip: 0, slot: 0), .pushConstant(0), .returnBool]),
            VerificationError(instruction: 0, .inconsistentStackDepth(target: 1, expected: 1, found: 0))
        ),
    ]

    @Test(arguments: malformed.indices)
    func refusesMalformedProgram(_ index: Int) {
        let (name, program, expected) = Self.malformed[index]
        #expect(throws: expected, "\(name)") { try Verifier.verify(program) }
    }

    @Test func acceptsHandWrittenLoopAndFail() throws {
        // A SUBQUERY whose exit merges the nil and the loop-exhausted paths, and a FAIL reached
        // with values on the stack and a SAVE_VARS open: both are fine.
        try Verifier.verify(
            Support.program(
                [
                    .pushSelf, .subqueryBegin(exit: 3, variable: 0), .subqueryNext(2), .pushConstant(0),
                    .subqueryCollect(-3), .jumpIfFalse(0), .pushConstant(0), .returnBool,
                ]))
        try Verifier.verify(Support.program([.saveVariables, .pushSelf, .fail(1)]))
        try Verifier.verify(Support.program([.pushSelf, .returnValue], kind: .expression))
    }

    @Test func errorsDescribeThemselves() {
        for (_, _, error) in Self.malformed {
            #expect(!error.description.isEmpty)
        }
        #expect(
            VerificationError(instruction: 4, .stackUnderflow(depth: 0, pops: 1)).description
                == "instruction 4: pops 1 values from a stack of 0")
    }
}
