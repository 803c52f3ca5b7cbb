import Foundation
import PredicateSyntax
import PredicateValue
import Testing

@testable import PredicateSemantics

/// `ComparisonOperators.scalar`, the fast path both engines take first, against the general
/// path (`primitive`) it stands in for: whenever it answers, the answer is the general path's.
@Suite struct ScalarComparisonTests {
    static let values: [Value] = [
        .nil, .null, .bool(false), .bool(true), .int(0), .int(1), .int(-1), .int(.max), .int(.min),
        .uint(0), .uint(1), .uint(.max), .double(0), .double(-0.0), .double(1), .double(0.5), .double(-1.5),
        .double(0x1p63), .double(0x1p64), .double(.nan), .double(.infinity),
        .double(-.infinity), .decimal(Decimal(1)), .string("1"), .string(""), .date(secondsSinceReferenceDate: 1),
        .array([.int(1)]),
    ]

    @Test func scalarAgreesWithThePrimitiveComparison() {
        var answered = 0
        var mismatches: [String] = []
        for op in ComparisonOperator.allCases {
            for options in [ComparisonOptions(), ComparisonOptions(rawValue: 1)] {
                for lhs in Self.values {
                    for rhs in Self.values {
                        guard let fast = ComparisonOperators.scalar(op, lhs, rhs) else { continue }
                        answered += 1
                        let left = lhs.isNull ? Value.nil : lhs
                        let right = rhs.isNull ? Value.nil : rhs
                        let general = try? ComparisonOperators.primitive(
                            op, left, right, options: options, environment: EvaluationEnvironment())
                        if general != fast { mismatches.append("\(lhs) \(op.rawValue) \(rhs): \(fast)") }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        #expect(answered > 2_000)
    }

    /// Operators other than the six relational ones, and operands that are not numbers or nil,
    /// are left to the general path.
    @Test func scalarDeclinesWhatItDoesNotDecide() {
        #expect(ComparisonOperators.scalar(.between, .int(1), .int(1)) == nil)
        #expect(ComparisonOperators.scalar(.in, .nil, .int(1)) == nil)
        #expect(ComparisonOperators.scalar(.equal, .string("a"), .string("a")) == nil)
        #expect(ComparisonOperators.scalar(.less, .decimal(Decimal(1)), .int(2)) == nil)
        #expect(ComparisonOperators.scalar(.equal, .nil, .null) == true)
        #expect(ComparisonOperators.scalar(.less, .int(1), .nil) == false)
    }
}
