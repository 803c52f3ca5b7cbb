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
            return Expression(.constant(value)).format
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
        func compared(_ op: UInt8, _ options: UInt8, _ quantifier: UInt8) -> String {
            let name = Int(op) < ComparisonOperator.allCases.count ? ComparisonOperator.allCases[Int(op)].rawValue : "?"
            let letters = ComparisonOptions.letters.filter { ComparisonOptions(rawValue: options).contains($0.1) }
            let prefix =
                Int(quantifier) < Quantifier.allCases.count ? Quantifier.allCases[Int(quantifier)].rawValue : "?"
            return (prefix.isEmpty ? "" : prefix + " ") + name
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
            return receiver + keyPath(site.keyPath) + " " + compared(site.op, site.options, site.quantifier) + " "
                + constant(site.constant)
        }
        switch instruction {
        case .pushConstant(let index): return ("#\(index)", constant(index))
        case .test(let index): return ("s\(index)", site(Int(index)))
        case .testAnd(let d, let index), .testOr(let d, let index):
            return ("s\(index), \(d >= 0 ? "+\(d)" : "\(d)")", "\(site(Int(index))) \(target(d))")
        case .pushSelf: return ("", "")
        case .loadVariable(let slot), .storeVariable(let slot): return ("v\(slot)", variable(Int(slot)))
        case .loadKeyPath(let index), .loadSelfKeyPath(let index): return ("#\(index)", keyPath(index))
        case .compare(let op, let options, let quantifier):
            return (compared(op, options, quantifier), "")
        case .callFunction(let selector, let arity), .invoke(let selector, let arity):
            return ("#\(selector), \(arity)", constant(selector))
        case .makeArray(let count): return ("\(count)", "")
        case .indexSymbol(let symbol):
            return (["FIRST", "LAST", "SIZE"].dropFirst(Int(min(symbol, 3))).first ?? "?", "")
        case .setOperation(let op):
            return (Int(op) < SetOperator.allCases.count ? SetOperator.allCases[Int(op)].rawValue : "?", "")
        case .index, .cast, .not, .saveVariables, .restoreVariables, .returnBool, .returnValue, .returnRules:
            return ("", "")
        case .memoLoad(let d, let slot): return ("m\(slot), \(d >= 0 ? "+\(d)" : "\(d)")", "computed: \(target(d))")
        case .memoStore(let slot): return ("m\(slot)", "")
        case .ruleEnd(let rule): return ("r\(rule)", "")
        case .jump(let d), .jumpIfFalse(let d), .jumpIfFalseOrPop(let d), .jumpIfTrueOrPop(let d), .jumpIfNil(let d),
            .subqueryNext(let d), .subqueryCollect(let d):
            return (d >= 0 ? "+\(d)" : "\(d)", target(d))
        case .subqueryBegin(let d, let slot):
            return ("v\(slot), \(d >= 0 ? "+\(d)" : "\(d)")", "\(variable(Int(slot))), exit \(target(d))")
        case .fail(let message): return ("#\(message)", constant(message))
        }
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
