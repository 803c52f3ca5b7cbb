import PredicateValue

/// The `UTI-CONFORMS-TO` operator on two operands (SPEC §4.3.3, §7.1), after the quantifier has
/// picked them.
///
/// Either operand `nil` makes the result false; otherwise both must be strings, and
/// `lhs` must conform to `rhs` in `registry`.
///
/// - Parameters:
///   - lhs: The type being tested, normally `contentType.identifier` or `typeIdentifier`.
///   - rhs: The type it must conform to.
///   - registry: The conformance graph, built-in types plus the host's declarations.
///   - lenient: When true, a `UTType` object (``UniformType``) stands for its identifier. Apple
///     raises for such operands, so an activation rule written as `contentType UTI-CONFORMS-TO …`
///     never matches on a device; the flag is off by default so that this mistake shows up in
///     testing instead of shipping (SPEC §9 item 14).
/// - Throws: ``EvaluationError/Kind/typeMismatch`` for an operand that is not a string, with a
///   message that points at `contentType.identifier` when the operand is a type object.
public func utiConformsTo(
    _ lhs: Value, _ rhs: Value, registry: UniformTypeRegistry = .system, lenient: Bool = false
) throws(EvaluationError) -> Bool {
    guard let (lhs, rhs) = try identifiers(lhs, rhs, operator: "UTI-CONFORMS-TO", lenient: lenient) else {
        return false
    }
    return registry.conforms(lhs, to: rhs)
}

/// The `UTI-EQUALS` operator on two operands (SPEC §4.3.3, §7.1): the identifiers are equal
/// ignoring ASCII case. Operand rules and the `lenient` flag are those of
/// ``utiConformsTo(_:_:registry:lenient:)``; equality needs no registry.
///
/// - Throws: ``EvaluationError/Kind/typeMismatch`` for an operand that is not a string.
public func utiEquals(_ lhs: Value, _ rhs: Value, lenient: Bool = false) throws(EvaluationError) -> Bool {
    guard let (lhs, rhs) = try identifiers(lhs, rhs, operator: "UTI-EQUALS", lenient: lenient) else {
        return false
    }
    return ASCIICase.equal(lhs, rhs)
}

/// Both identifiers, or `nil` when either operand is `nil`. The nil test comes first, as in
/// Apple's operator: `nil UTI-EQUALS 5` is false, not an error. A `null` (a quantified element,
/// which is not normalised, SPEC §4.3.2) is not a string, so it is an error.
private func identifiers(
    _ lhs: Value, _ rhs: Value, operator name: String, lenient: Bool
) throws(EvaluationError) -> (String, String)? {
    if lhs.isNil || rhs.isNil { return nil }
    let left = try identifier(lhs, side: .left, other: rhs, operator: name, lenient: lenient)
    let right = try identifier(rhs, side: .right, other: lhs, operator: name, lenient: lenient)
    return (left, right)
}

/// Which operand a message is about.
private enum Side: String {
    case left
    case right
}

/// The identifier an operand stands for, or the error a rule author needs to fix the rule.
private func identifier(
    _ operand: Value, side: Side, other: Value, operator name: String, lenient: Bool
) throws(EvaluationError) -> String {
    switch operand {
    case .string(let identifier):
        return identifier
    case .object(let object as UniformType):
        if lenient { return object.identifier }
        let example =
            switch side {
            case .left: "contentType.identifier \(name) \(quoted(other) ?? "…")"
            case .right: "\(quoted(other) ?? "…") \(name) contentType.identifier"
            }
        throw EvaluationError(
            .typeMismatch,
            "\(name) compares type identifier strings, but the \(side) operand is a UTType object "
                + "('\(object.identifier)'); compare its identifier instead, as in \(example)")
    case .array, .set:
        let advice =
            switch side {
            case .left: "to test each element, use ANY (or SUBQUERY) around the comparison"
            case .right: "to accept several types, join one comparison per type with OR"
            }
        throw EvaluationError(
            .typeMismatch,
            "\(name) compares type identifier strings, but the \(side) operand is \(article(operand)); \(advice)")
    default:
        throw EvaluationError(
            .typeMismatch,
            "\(name) compares type identifier strings, but the \(side) operand is \(article(operand))")
    }
}

/// The operand as a quoted string literal, for the example in a message; `nil` when not a string.
private func quoted(_ value: Value) -> String? {
    guard case .string(let text) = value else { return nil }
    return "'\(text)'"
}

/// "an integer", "a date", "data", "a FileProviderItem object".
private func article(_ value: Value) -> String {
    let noun: String
    switch value {
    case .object: noun = "\(value.kindName) object"
    case .data: return "data"
    default: noun = value.kindName
    }
    let vowels: Set<Character> = ["a", "e", "i", "o", "u", "A", "E", "I", "O", "U"]
    guard let first = noun.first, vowels.contains(first) else { return "a \(noun)" }
    return "an \(noun)"
}
