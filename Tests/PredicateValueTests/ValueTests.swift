import PredicateValue
import Testing

/// `Value`'s own equality is structural (syntax trees and tests compare by it); the language's
/// equality lives in PredicateSemantics.
@Suite struct ValueTests {
    @Test(arguments: [
        (Value.int(1), Value.int(1), true),
        (.int(1), .double(1), false),
        (.double(.nan), .double(.nan), true),
        (.string("é"), .string("e\u{301}"), false),
        (.string("é"), .string("\u{E9}"), true),
        (.nil, .null, false),
        (.array([.int(1), .null]), .array([.int(1), .null]), true),
        (.set([.int(1), .int(2)]), .set([.int(2), .int(1)]), true),
        (.dictionary(["a": .int(1)]), .dictionary(["a": .int(1)]), true),
        (.date(secondsSinceReferenceDate: 0), .double(0), false),
        (.data([1, 2]), .data([1, 2]), true),
    ])
    func structuralEquality(_ lhs: Value, _ rhs: Value, _ equal: Bool) {
        #expect((lhs == rhs) == equal)
        if equal { #expect(lhs.hashValue == rhs.hashValue) }
    }

    @Test func nilAndNullTests() {
        #expect(Value.nil.isNil && !Value.nil.isNull)
        #expect(Value.null.isNull && !Value.null.isNil)
        #expect(!Value.int(0).isNil && !Value.int(0).isNull)
    }

    @Test(arguments: [
        (Value.bool(true), "boolean"), (.int(1), "integer"), (.uint(1), "unsigned integer"), (.double(1), "number"),
        (.string(""), "string"), (.array([]), "array"), (.set([]), "set"), (.dictionary([:]), "dictionary"),
        (.nil, "nil"), (.null, "null"),
    ])
    func kindNames(_ value: Value, _ name: String) {
        #expect(value.kindName == name)
    }

    @Test func schemasAnswerAccessorAliases() {
        let schema = Schema(
            typeName: "Thing", fields: [.init("isReady", .bool), .init("enabled", .bool), .init("name", .string)])
        #expect(schema.slot(forKey: "ready") == 0)
        #expect(schema.slot(forKey: "isEnabled") == 1)
        #expect(schema.slot(forKey: "isName") == nil)
        #expect(schema.slot(forKey: "missing") == nil)
    }
}
