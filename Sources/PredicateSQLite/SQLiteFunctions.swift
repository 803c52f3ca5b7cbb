import CSQLite
import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// This package's SQL functions: the language's string operators, so that SQLite answers
/// `[c]`/`[d]`, string ordering, `LIKE`, `MATCHES` and the UTI operators exactly as the
/// interpreter does. Each takes the left operand, the right operand and (except the UTI ones)
/// the options' raw value, and returns 1 or 0; both operands are non-`NULL` strings wherever
/// the translator calls them. `pvm_compare` returns -1, 0 or 1.
final class FunctionContext: Sendable {
    /// The environment the function evaluates in: the type table and limits of the interpreter
    /// that re-checks residuals, so that both answer alike.
    let environment: EvaluationEnvironment
    let index: Int

    init(environment: EvaluationEnvironment, index: Int) {
        self.environment = environment
        self.index = index
    }

    static let operators: [(name: String, op: ComparisonOperator?, arguments: Int32)] = [
        ("pvm_equal", .equal, 3), ("pvm_compare", nil, 3), ("pvm_contains", .contains, 3),
        ("pvm_begins_with", .beginsWith, 3), ("pvm_ends_with", .endsWith, 3), ("pvm_like", .like, 3),
        ("pvm_matches", .matches, 3), ("pvm_uti_conforms_to", .utiConformsTo, 2), ("pvm_uti_equals", .utiEquals, 2),
    ]

    static var names: [String] { operators.map(\.name) }

    static func register(on handle: OpaquePointer, environment: EvaluationEnvironment) throws(SQLiteError) {
        for (index, function) in Self.operators.enumerated() {
            // SQLite owns the context from here and releases it when the function goes.
            let context = Unmanaged.passRetained(FunctionContext(environment: environment, index: index)).toOpaque()
            let code = sqlite3_create_function_v2(
                handle, function.name, function.arguments, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                context, callFunction, nil, nil, releaseContext)
            guard code == SQLITE_OK else {
                throw SQLiteError(
                    code: code, message: "cannot register \(function.name): " + String(cString: sqlite3_errmsg(handle)))
            }
        }
    }
}

private func callFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let context, let arguments, count >= 2, let data = sqlite3_user_data(context) else { return }
    let function = Unmanaged<FunctionContext>.fromOpaque(data).takeUnretainedValue()
    guard FunctionContext.operators.indices.contains(function.index) else {
        sqlite3_result_error(context, "unknown predicate function", -1)
        return
    }
    let definition = FunctionContext.operators[function.index]
    guard let lhs = text(arguments[0]), let rhs = text(arguments[1]) else {
        // Nil operands: false, as for every string operator (SPEC §4.3.3).
        sqlite3_result_int(context, 0)
        return
    }
    var options = ComparisonOptions()
    if count >= 3, let optionArgument = arguments[2] {
        options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int64(optionArgument)))
    }
    guard let op = definition.op else {
        let order: Int32
        if options.isEmpty {
            order = Int32((try? ValueComparison.compare(.string(lhs), .string(rhs)).rawValue) ?? 0)
        } else {
            order = Int32(StringOperators.compare(lhs, rhs, options: options).rawValue)
        }
        sqlite3_result_int(context, order)
        return
    }
    do {
        let truth = try ComparisonOperators.primitive(
            op, .string(lhs), .string(rhs), options: options, environment: function.environment)
        sqlite3_result_int(context, truth ? 1 : 0)
    } catch {
        // Only a spent pattern budget gets here (patterns are checked when translating): the
        // statement fails with the interpreter's message rather than answering wrongly.
        sqlite3_result_error(context, error.message, -1)
    }
}

private func releaseContext(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<FunctionContext>.fromOpaque(data).release()
}

private func text(_ value: OpaquePointer?) -> String? {
    guard let value, sqlite3_value_type(value) != SQLITE_NULL else { return nil }
    let count = Int(sqlite3_value_bytes(value))
    guard let bytes = sqlite3_value_text(value) else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}
