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
}
