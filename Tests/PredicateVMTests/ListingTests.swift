import PredicateSyntax
import PredicateVM
import Testing

/// Golden listings: what the compiler emits for representative rules, instruction by instruction.
/// Between them they use every instruction (checked below).
@Suite struct ListingTests {
    static let goldens: [(kind: String, rule: String, listing: String)] = [
        (
            "predicate", #"isShared == YES OR NOT isTrashed == NO"#,
            """
            ; predicate: isShared == YES OR NOT isTrashed == NO
            ; 4 instructions (16 bytes), 2 constants, 2 key paths, 2 comparisons, 0 variables, stack 1
            0000  TEST_OR               s0, +2              ; isShared == YES → 0003               1:1
            0001  TEST                  s1                  ; isTrashed == NO                      1:24
            0002  NOT                                       ;                                      1:20
            0003  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "predicate", #"TERNARY(a > 1, SELF, {b, c})[FIRST] == 1"#,
            """
            ; predicate: TERNARY(a > 1, SELF, {b, c})[FIRST] == 1
            ; 11 instructions (44 bytes), 1 constants, 3 key paths, 1 comparisons, 0 variables, stack 2
            0000  TEST                  s0                  ; a > 1                                1:9
            0001  JUMP_IF_FALSE         +2                  ; → 0004                               1:1
            0002  PUSH_SELF                                 ;                                      1:16
            0003  JUMP                  +3                  ; → 0007                               1:1
            0004  SELF_KEYPATH          #1                  ; b                                    1:23
            0005  SELF_KEYPATH          #2                  ; c                                    1:26
            0006  MAKE_ARRAY            2                   ;                                      1:22
            0007  INDEX_SYM             FIRST               ;                                      1:1
            0008  PUSH_CONST            #0                  ; 1                                    1:40
            0009  CMP                   ==                  ;                                      1:1
            0010  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "predicate", #"$x := a + 1 == b[$x]"#,
            """
            ; predicate: $x := a + 1 == b[$x]
            ; 11 instructions (44 bytes), 2 constants, 2 key paths, 0 comparisons, 1 variables, stack 3
            0000  SAVE_VARS                                 ;                                      1:1
            0001  SELF_KEYPATH          #0                  ; a                                    1:7
            0002  PUSH_CONST            #0                  ; 1                                    1:11
            0003  CALL                  #1, 2               ; "add:to:"                            1:7
            0004  STORE_VAR             v0                  ; $x                                   1:1
            0005  SELF_KEYPATH          #1                  ; b                                    1:16
            0006  LOAD_VAR              v0                  ; $x                                   1:18
            0007  INDEX                                     ;                                      1:16
            0008  CMP                   ==                  ;                                      1:1
            0009  RESTORE_VARS                              ;                                      1:1
            0010  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "predicate", #"FUNCTION(name, 'hasPrefix:', 'a') == YES AND CAST(documentSize, 'NSString') == '1'"#,
            """
            ; predicate: FUNCTION(name, 'hasPrefix:', 'a') == YES AND CAST(documentSize, 'NSString') == '1'
            ; 13 instructions (52 bytes), 5 constants, 2 key paths, 0 comparisons, 0 variables, stack 2
            0000  SELF_KEYPATH          #0                  ; name                                 1:10
            0001  JUMP_IF_NIL           +2                  ; → 0004                               1:1
            0002  PUSH_CONST            #0                  ; "a"                                  1:30
            0003  INVOKE                #1, 1               ; "hasPrefix:"                         1:1
            0004  PUSH_CONST            #2                  ; YES                                  1:38
            0005  CMP                   ==                  ;                                      1:1
            0006  JUMP_IF_FALSE_OR_POP  +5                  ; → 0012                               1:1
            0007  SELF_KEYPATH          #1                  ; documentSize                         1:51
            0008  PUSH_CONST            #3                  ; "NSString"                           1:65
            0009  CAST                                      ;                                      1:46
            0010  PUSH_CONST            #4                  ; "1"                                  1:80
            0011  CMP                   ==                  ;                                      1:46
            0012  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "predicate", #"(tags UNION {'a'}).@count > 1"#,
            """
            ; predicate: (tags UNION {'a'}).@count > 1
            ; 7 instructions (28 bytes), 2 constants, 2 key paths, 0 comparisons, 0 variables, stack 2
            0000  SELF_KEYPATH          #0                  ; tags                                 1:2
            0001  PUSH_CONST            #0                  ; {"a"}                                1:13
            0002  SET_OP                UNION               ;                                      1:1
            0003  KEYPATH               #1                  ; @count                               1:1
            0004  PUSH_CONST            #1                  ; 1                                    1:29
            0005  CMP                   >                   ;                                      1:1
            0006  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "predicate",
            #"SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES AND $i.userInfo.rank != nil).@count > 0"#,
            """
            ; predicate: SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES AND $i.userInfo.rank != nil).@count > 0
            ; 10 instructions (40 bytes), 3 constants, 4 key paths, 2 comparisons, 1 variables, stack 2
            0000  SELF_KEYPATH          #0                  ; fileproviderItems                    1:10
            0001  SUBQUERY_BEGIN        v0, +4              ; $i → 0006                            1:1
            0002  SUBQUERY_NEXT         +3                  ; → 0006                               1:1
            0003  TEST_AND              s0, +1              ; $i.isUploaded == YES → 0005          1:33
            0004  TEST                  s1                  ; $i.userInfo.rank != nil              1:58
            0005  SUBQUERY_COLLECT      -4                  ; → 0002                               1:1
            0006  KEYPATH               #3                  ; @count                               1:1
            0007  PUSH_CONST            #2                  ; 0                                    1:92
            0008  CMP                   >                   ;                                      1:1
            0009  RETURN_BOOL                               ;                                      1:1
            """
        ),
        (
            "rule set", "documentSize > 10 AND isUploaded == NO\nisUploaded == NO OR documentSize > 10",
            """
            ; rule set: documentSize > 10 AND isUploaded == NO
            ;   isUploaded == NO OR documentSize > 10
            ; 17 instructions (68 bytes), 2 constants, 2 key paths, 4 comparisons, 0 variables, stack 1
            0000  MEMO_LOAD             m0, +2              ; → 0003                               1:1
            0001  TEST                  s0                  ; documentSize > 10                    1:1
            0002  MEMO_STORE            m0                  ;                                      1:1
            0003  JUMP_IF_FALSE_OR_POP  +3                  ; → 0007                               1:1
            0004  MEMO_LOAD             m1, +2              ; → 0007                               1:23
            0005  TEST                  s1                  ; isUploaded == NO                     1:23
            0006  MEMO_STORE            m1                  ;                                      1:23
            0007  RULE_END              r0                  ;                                      1:1
            0008  MEMO_LOAD             m1, +2              ; → 0011                               2:1
            0009  TEST                  s2                  ; isUploaded == NO                     2:1
            0010  MEMO_STORE            m1                  ;                                      2:1
            0011  JUMP_IF_TRUE_OR_POP   +3                  ; → 0015                               2:1
            0012  MEMO_LOAD             m0, +2              ; → 0015                               2:21
            0013  TEST                  s3                  ; documentSize > 10                    2:21
            0014  MEMO_STORE            m0                  ;                                      2:21
            0015  RULE_END              r1                  ;                                      2:1
            0016  RETURN_RULES                              ;                                      1:1
            """
        ),
        (
            "expression", #"ANYKEY"#,
            """
            ; expression: ANYKEY
            ; 2 instructions (8 bytes), 1 constants, 0 key paths, 0 comparisons, 0 variables, stack 0
            0000  FAIL                  #0                  ; "ANYKEY is only meaningful to Spotlight and cannot be evaluated here"  1:1
            0001  RETURN_VALUE                              ;                                      1:1
            """
        ),
    ]

    static func program(_ kind: String, _ rule: String) throws -> Program {
        if kind == "rule set" {
            let rules = try rule.split(separator: "\n").map { text in
                (predicate: try PredicateParser.parsePredicate(String(text)).predicate, source: String(text))
            }
            return try Compiler.compileRuleSet(rules)
        }
        if kind == "expression" {
            return try Compiler.compile(try PredicateParser.parseExpression(rule).expression, source: rule)
        }
        return try Compiler.compile(try PredicateParser.parsePredicate(rule).predicate, source: rule)
    }

    @Test(arguments: 0..<goldens.count)
    func listing(_ index: Int) throws {
        let golden = ListingTests.goldens[index]
        let listing = Disassembler.listing(try ListingTests.program(golden.kind, golden.rule))
        #expect(listing == golden.listing + "\n")
    }

    @Test func everyInstructionAppearsInAGoldenListing() throws {
        var used = Set<Opcode>()
        for golden in ListingTests.goldens {
            for instruction in try ListingTests.program(golden.kind, golden.rule).code {
                used.insert(instruction.opcode)
            }
        }
        for rule in ListingTests.more {
            for instruction in try ListingTests.program("predicate", rule).code { used.insert(instruction.opcode) }
        }
        #expect(
            Set(Opcode.allCases).subtracting(used).isEmpty,
            "not in any listing: \(Set(Opcode.allCases).subtracting(used))")
    }

    static let more = [
        "documentSize > 1e6",
        "SUBQUERY(fileproviderItems, $i, $i.isUploaded == YES AND $i.userInfo.rank != nil).@count > 0",
    ]

    @Test func encodedInstructionsAreFourBytes() {
        for opcode in Opcode.allCases {
            let operands: (UInt8, UInt8, UInt8) = (1, 2, 0)
            guard let instruction = Instruction(opcode: opcode.rawValue, operands: operands) else {
                Issue.record("\(opcode) does not decode")
                continue
            }
            #expect(instruction.opcode == opcode)
            let encoded = instruction.operands
            #expect(Instruction(opcode: opcode.rawValue, operands: encoded) == instruction)
        }
        #expect(Instruction(opcode: UInt8(Opcode.allCases.count), operands: (0, 0, 0)) == nil)
        #expect(MemoryLayout<Instruction>.stride == 4)
    }
}
