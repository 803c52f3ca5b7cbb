import PredicateBatch
import PredicateSemantics
import PredicateVM
import PredicateValue
import Testing

/// `$variables` the caller binds are constants of one evaluation: comparisons with them run as
/// kernels, and every answer, error and budget is the scalar VM's with the same bindings.
@Suite struct VariableConstantTests {
    static let bindings: [[String: Value]] = [
        ["limit": 3000, "name": "notes.txt", "ext": ".PDF", "flag": false, "set": ["a", "notes.txt"], "rank": 3],
        ["limit": 2.5e3, "name": "a", "ext": "jpg", "flag": true, "set": [1, 2], "rank": "x"],
        ["limit": .nil, "name": .nil, "ext": "", "flag": .nil, "set": [], "rank": .nil],
        // Unbound: the comparisons stay on the scalar VM, which reports them.
        [:],
        ["limit": 1],
    ]

    /// Rule, and the plan's node kinds with the first binding (the plan without bindings keeps
    /// the comparisons with variables on the scalar VM).
    @Test(arguments: [
        ("documentSize > $limit", "COMPARE"),
        ("$limit < documentSize AND isUploaded == $flag", "AND COMPARE COMPARE"),
        ("filename ENDSWITH[c] $ext OR filename == $name", "OR COMPARE COMPARE"),
        ("filename IN $set", "COMPARE"),
        ("userInfo.rank >= $rank", "COMPARE"),
        ("SUBQUERY(fileproviderItems, $i, $i.documentSize > $limit).@count > 0", "SUBQUERY COMPARE"),
        ("$x := 5 == $x AND documentSize > $x", "AND SCALAR SCALAR"),
    ])
    func comparisonsWithVariablesRunAsKernels(_ rule: String, _ shape: String) throws {
        let program = try TestRules.program(
            rule, selfType: rule.contains("fileproviderItems") ? nil : TestRules.itemType)
        let batchProgram = BatchProgram(program)
        let kinds = batchProgram.planDescription(variables: Self.bindings[0]).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
        }
        let description = batchProgram.planDescription(variables: Self.bindings[0])
        #expect(kinds.joined(separator: " ") == shape, "\(description)")
        // Without the bindings the comparisons with variables are scalar regions.
        #expect(batchProgram.planDescription.contains("SCALAR"), "\(batchProgram.planDescription)")
    }

    @Test(arguments: [
        "documentSize > $limit", "$limit < documentSize AND isUploaded == $flag", "filename ENDSWITH[c] $ext",
        "filename == $name OR documentSize <= $limit", "filename IN $set", "userInfo.rank >= $rank",
        "NOT (isUploaded == $flag)", "documentSize BETWEEN {$limit, 9000}", "$x := 5 == $x AND documentSize > $x",
    ])
    func answersAreTheScalarMachines(_ rule: String) throws {
        let program = try TestRules.program(rule)
        let items = TestItems.make(2100)
        let rows = items.map { Value.object($0) }
        let batchProgram = BatchProgram(program)
        let batch = ColumnBatch(items: items, for: batchProgram)
        for (index, variables) in Self.bindings.enumerated() {
            var machine = VirtualMachine(program: program)
            let expected = rows.map { row in
                do throws(EvaluationError) {
                    return String(try machine.evaluate(on: row, variables: variables))
                } catch {
                    return error.description
                }
            }
            for threads in [1, 2] {
                let result = batchProgram.evaluate(batch, variables: variables, threads: threads)
                #expect(TestRules.outcomes(result) == expected, "binding \(index), threads \(threads)")
            }
        }
    }

    /// A small budget stops the rows where the VM stops them.
    @Test func budgetsAreTheScalarMachines() throws {
        let rule = "documentSize > $limit AND filename ENDSWITH[c] $ext"
        let program = try TestRules.program(rule)
        let rows = TestItems.make(300).map { Value.object($0) }
        for steps in [0, 3, 5, 7, 9, 12, 40] {
            let environment = EvaluationEnvironment(limits: EvaluationLimits(maximumSteps: steps))
            var machine = VirtualMachine(program: program, environment: environment)
            let expected = rows.map { row in
                do throws(EvaluationError) {
                    return String(try machine.evaluate(on: row, variables: Self.bindings[0]))
                } catch {
                    return error.description
                }
            }
            let result = BatchProgram(program, environment: environment).evaluate(rows, variables: Self.bindings[0])
            #expect(TestRules.outcomes(result) == expected, "\(steps) steps")
        }
    }
}
