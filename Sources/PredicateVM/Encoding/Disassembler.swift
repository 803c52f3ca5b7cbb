import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Program listings: offset, mnemonic, operands, what the operands name, and the source text
/// each instruction evaluates.
///
/// ```
/// 0000  TEST_AND              s0, +3              ; isUploaded == NO → 0004             1:1
/// 0001  SELF_KEYPATH          #1                  ; filename                            1:19
/// 0002  PUSH_CONST            #1                  ; "img"                               1:35
/// 0003  CALL                  #2, 2               ; "stringByAppending…"                1:19
/// 0004  RETURN_BOOL                               ;                                     1:1
/// ```
public enum Disassembler {
    /// The listing of `program`, one instruction a line, with a header naming the rule.
    public static func listing(_ program: Program) -> String {
        var lines: [String] = []
        if !program.source.isEmpty {
            let kind: String
            switch program.kind {
            case .predicate: kind = "predicate"
            case .expression: kind = "expression"
            case .ruleSet: kind = "rule set"
            }
            // A rule set's source holds one rule a line.
            lines.append(
                "; \(kind): "
                    + program.source.split(separator: "\n", omittingEmptySubsequences: false).joined(
                        separator: "\n;   "))
        }
        lines.append(
            "; \(program.code.count) instructions (\(program.codeSize) bytes), \(program.constants.count) constants, "
                + "\(program.keyPaths.count) key paths, \(program.comparisons.count) comparisons, "
                + "\(program.variables.count) variables, "
                + "stack \(program.maximumStackDepth)")
        let lineStarts = lineStartOffsets(program.source)
        for (offset, instruction) in program.code.enumerated() {
            let (operand, comment) = describe(instruction, at: offset, in: program)
            var line = pad(String(offset).leftPadded(to: 4), 6) + pad(instruction.mnemonic, 22) + pad(operand, 20)
            line += "; " + pad(comment, 36)
            if offset < program.sourceRanges.count, !program.source.isEmpty {
                line += " " + location(program.sourceRanges[offset].lowerBound, lineStarts, program.source)
            }
            lines.append(line.trailingSpacesRemoved)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The operand as written and what it refers to.
    static func describe(_ instruction: Instruction, at offset: Int, in program: Program) -> (String, String) {
        func constant(_ index: UInt16) -> String {
            guard Int(index) < program.constants.count else { return "?" }
            let value = program.constants[Int(index)]
            if case .bool(let flag) = value { return flag ? "YES" : "NO" }
            // The listing must tell `10.0` from `10`, which Apple's text does not.
            return ExpressionNode(.constant(value)).format(.roundTripSafe)
        }
        func variable(_ index: Int) -> String { index < program.variables.count ? "$" + program.variables[index] : "?" }
        func target(_ jump: Int16) -> String { "→ \(String(offset + 1 + Int(jump)).leftPadded(to: 4))" }
        func keyPath(_ index: UInt16) -> String {
            guard Int(index) < program.keyPaths.count else { return "?" }
            return program.keyPaths[Int(index)].map { component in
                switch component {
                case .key(let key): return key
                case .field(let field): return "\(field.key)@\(field.schema.schema.typeName)[\(field.slot)]"
                case .variable(let name): return "$" + name
                }
            }.joined(separator: ".")
        }
        func compared(_ op: ComparisonOperator, _ options: ComparisonOptions, _ quantifier: Quantifier) -> String {
            let letters = ComparisonOptions.letters.filter { options.contains($0.1) }
            return (quantifier == .direct ? "" : quantifier.rawValue + " ") + op.rawValue
                + (letters.isEmpty ? "" : "[" + String(letters.map(\.0)) + "]")
        }
        /// A comparison site as the rule would say it: `isUploaded@FileProviderItem[17] == NO`.
        func site(_ index: Int) -> String {
            guard index < program.comparisons.count else { return "?" }
            let site = program.comparisons[index]
            let receiver: String
            switch site.receiver {
            case .evaluatedObject: receiver = ""
            case .variable(let slot): receiver = variable(Int(slot)) + "."
            }
            return receiver + keyPath(UInt16(site.keyPath)) + " " + compared(site.op, site.options, site.quantifier)
                + " " + constant(UInt16(site.constant))
        }
        // Each operand as its row says what it is: `CMP`'s three make one text, `ANY ==[c]`.
        var texts: [String] = []
        var comments: [String] = []
        var comparison = (op: ComparisonOperator.equal, options: ComparisonOptions(), quantifier: Quantifier.direct)
        var comparesValues = false
        let values = instruction.operandValues
        for (position, operand) in instruction.facts.operands.enumerated() {
            let value = values[position]
            switch operand.kind {
            case .constant, .stringConstant:
                texts.append("#\(value)")
                comments.append(constant(UInt16(truncatingIfNeeded: value)))
            case .keyPath:
                texts.append("#\(value)")
                comments.append(keyPath(UInt16(truncatingIfNeeded: value)))
            case .variable:
                texts.append("v\(value)")
                comments.append(variable(value))
            case .site:
                texts.append("s\(value)")
                comments.append(site(value))
            case .jump:
                texts.append(value >= 0 ? "+\(value)" : "\(value)")
                comments.append(target(Int16(truncatingIfNeeded: value)))
            case .count, .arity:
                texts.append("\(value)")
            case .memoSlot:
                texts.append("m\(value)")
            case .rule:
                texts.append("r\(value)")
            case .indexSymbol:
                texts.append(UInt8(exactly: value).flatMap(IndexSymbol.init(rawValue:))?.name ?? "?")
            case .setOperator:
                texts.append(SetOperator(code: value)?.rawValue ?? "?")
            case .comparisonOperator:
                comparison.op = ComparisonOperator(code: value) ?? .equal
                comparesValues = true
            case .comparisonOptions:
                comparison.options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: value))
            case .quantifier:
                comparison.quantifier = Quantifier(code: value) ?? .direct
            }
        }
        if comparesValues { texts.append(compared(comparison.op, comparison.options, comparison.quantifier)) }
        return (texts.joined(separator: ", "), comments.filter { !$0.isEmpty }.joined(separator: " "))
    }

    private static func lineStartOffsets(_ source: String) -> [Int] {
        var starts = [0]
        for (offset, byte) in source.utf8.enumerated() where byte == 0x0A { starts.append(offset + 1) }
        return starts
    }

    private static func location(_ offset: Int, _ starts: [Int], _ source: String) -> String {
        let line = (starts.lastIndex { $0 <= offset } ?? 0)
        let start = starts[line]
        let prefix = source.utf8.dropFirst(start).prefix(max(0, offset - start))
        return "\(line + 1):\(String(decoding: prefix, as: UTF8.self).count + 1)"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    fileprivate var trailingSpacesRemoved: String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
