import PredicateSyntax
import PredicateValue

extension Program {
    /// The same program with every `TEST`, `TEST_AND` and `TEST_OR` written out as the
    /// instructions it stands for (`SELF_KEYPATH`/`LOAD_VAR`+`KEYPATH`, `PUSH_CONST`, `CMP`, and
    /// the jump), for tools that read the program's structure from its plain instructions, such
    /// as the batch planner.
    ///
    /// - Returns: `nil` when the longer code cannot be encoded (a jump would span more than
    ///   16 bits can say); the program itself when it has nothing to expand.
    public func expandingSuperinstructions() -> Program? {
        guard code.contains(where: { $0.comparisonSite != nil }) else { return self }
        // Where each old instruction starts in the new code; the last entry is the new length.
        var starts: [Int] = []
        starts.reserveCapacity(code.count + 1)
        var length = 0
        for instruction in code {
            starts.append(length)
            length += expandedLength(of: instruction)
        }
        starts.append(length)

        var newCode: [Instruction] = []
        var newRanges: [SourceRange] = []
        newCode.reserveCapacity(length)
        newRanges.reserveCapacity(length)
        let fallbackRange = sourceRanges.last ?? SourceRange(0, 0)
        for (pc, instruction) in code.enumerated() {
            let range = pc < sourceRanges.count ? sourceRanges[pc] : fallbackRange
            /// The offset from the jump about to be appended to old instruction `pc + 1 + d`.
            func offset(_ d: Int16) -> Int16? {
                let target = pc + 1 + Int(d)
                guard target >= 0, target < starts.count else { return nil }
                return Int16(exactly: starts[target] - newCode.count - 1)
            }
            guard let siteIndex = instruction.comparisonSite else {
                var rewritten = instruction
                if let d = instruction.jumpOffset {
                    guard let moved = offset(d), let relocated = instruction.withJumpOffset(moved) else { return nil }
                    rewritten = relocated
                }
                newCode.append(rewritten)
                newRanges.append(range)
                continue
            }
            guard siteIndex < comparisons.count else { return nil }
            let site = comparisons[siteIndex]
            switch site.receiver {
            case .evaluatedObject:
                newCode.append(.loadSelfKeyPath(site.keyPath))
                newRanges.append(site.keyPathRange)
            case .variable(let slot):
                newCode += [.loadVariable(slot), .loadKeyPath(site.keyPath)]
                newRanges += [site.keyPathRange, site.keyPathRange]
            }
            newCode += [
                .pushConstant(site.constant),
                .compare(op: site.op, options: site.options, quantifier: site.quantifier),
            ]
            newRanges += [range, range]
            switch instruction {
            case .testAnd(let d, _):
                guard let moved = offset(d) else { return nil }
                newCode.append(.jumpIfFalseOrPop(moved))
                newRanges.append(range)
            case .testOr(let d, _):
                guard let moved = offset(d) else { return nil }
                newCode.append(.jumpIfTrueOrPop(moved))
                newRanges.append(range)
            default:
                break
            }
        }
        return Program(
            kind: kind, code: newCode, constants: constants, keyPaths: keyPaths, variables: variables,
            sourceRanges: newRanges, maximumStackDepth: maximumStackDepth + 1,
            maximumSubqueryDepth: maximumSubqueryDepth, source: source)
    }

    private func expandedLength(of instruction: Instruction) -> Int {
        guard let index = instruction.comparisonSite, index < comparisons.count else { return 1 }
        let loads: Int
        switch comparisons[index].receiver {
        case .evaluatedObject: loads = 1
        case .variable: loads = 2
        }
        switch instruction {
        case .testAnd, .testOr: return loads + 3
        default: return loads + 2
        }
    }
}

extension Instruction {
    /// The depth before each instruction, from the start with an empty stack. Jumps go forward
    /// except `SUBQUERY_COLLECT`'s, back to a `SUBQUERY_NEXT` already seen, so one pass in order
    /// finds every reachable depth (the verifier has checked they agree).
    package static func stackDepths(_ code: [Instruction]) -> [Int?] {
        var depths = [Int?](repeating: nil, count: code.count + 1)
        depths[0] = 0
        for (pc, instruction) in code.enumerated() {
            guard let depth = depths[pc] else { continue }
            let effect = instruction.stackEffect
            if !instruction.endsBlock, depths[pc + 1] == nil { depths[pc + 1] = depth - effect.pops + effect.pushes }
            if let offset = instruction.jumpOffset, let taken = instruction.takenStackEffect {
                let target = pc + 1 + Int(offset)
                if target > pc, target <= code.count, depths[target] == nil {
                    depths[target] = depth - taken.pops + taken.pushes
                }
            }
        }
        return depths
    }

    /// The comparison site a `TEST`, `TEST_AND` or `TEST_OR` evaluates.
    public var comparisonSite: Int? {
        switch self {
        case .test(let site): return Int(site)
        case .testAnd(_, let site), .testOr(_, let site): return Int(site)
        default: return nil
        }
    }

    /// The same jump with offset `d`.
    func withJumpOffset(_ d: Int16) -> Instruction? {
        switch self {
        case .jump: return .jump(d)
        case .jumpIfFalse: return .jumpIfFalse(d)
        case .jumpIfFalseOrPop: return .jumpIfFalseOrPop(d)
        case .jumpIfTrueOrPop: return .jumpIfTrueOrPop(d)
        case .jumpIfNil: return .jumpIfNil(d)
        case .subqueryNext: return .subqueryNext(d)
        case .subqueryCollect: return .subqueryCollect(d)
        case .subqueryBegin(_, let variable): return .subqueryBegin(exit: d, variable: variable)
        case .memoLoad(_, let slot): return .memoLoad(skip: d, slot: slot)
        case .testAnd(_, let site): return .testAnd(d, site: site)
        case .testOr(_, let site): return .testOr(d, site: site)
        default: return nil
        }
    }
}
