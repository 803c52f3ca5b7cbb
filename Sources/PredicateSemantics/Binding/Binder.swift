import PredicateSyntax
import PredicateValue

/// Prepares a rule against the schema of what it will run on: every key read from an object whose
/// schema is known statically becomes a ``KeyComponent/field(_:)``, read by slot at run time
/// rather than looked up by name (syntax tree → bound tree).
///
/// Binding never changes a rule's meaning: a field is only used when the receiver really has the
/// expected schema, and keys that cannot be resolved (unknown keys, dictionaries, keys containing
/// dots) stay keys, with their run-time behaviour, errors included.
///
/// ```swift
/// let context = ValueType.record(["fileproviderItems": .array(.object(SchemaReference(FileProviderItem.schema)))])
/// let bound = Binder.bind(rule, selfType: context)
/// ```
public enum Binder {
    /// Binds `predicate`, with `selfType` the type of `SELF` and `variables` the types of the
    /// bindings it will be evaluated with.
    public static func bind(
        _ predicate: PredicateNode, selfType: ValueType, variables: [String: ValueType] = [:]
    ) -> PredicateNode {
        var binder = Walk(selfType: selfType)
        return binder.bind(predicate, variables)
    }

    /// Binds a standalone expression.
    public static func bind(
        _ expression: ExpressionNode, selfType: ValueType, variables: [String: ValueType] = [:]
    ) -> ExpressionNode {
        var binder = Walk(selfType: selfType)
        return binder.bind(expression, variables).expression
    }

    /// How many keys of `predicate` are bound to fields (for tests and tools).
    public static func boundFieldCount(_ predicate: PredicateNode) -> Int {
        var count = 0
        predicate.forEachKeyPath { components in
            for component in components { if case .field = component { count += 1 } }
        }
        return count
    }

    private struct Walk {
        let selfType: ValueType

        mutating func bind(_ predicate: PredicateNode, _ variables: [String: ValueType]) -> PredicateNode {
            let kind: PredicateKind
            switch predicate.kind {
            case .constant:
                return predicate
            case .not(let operand):
                kind = .not(bind(operand, variables))
            case .and(let operands):
                kind = .and(operands.map { bind($0, variables) })
            case .or(let operands):
                kind = .or(operands.map { bind($0, variables) })
            case .comparison(var comparison):
                comparison.lhs = bind(comparison.lhs, variables).expression
                comparison.rhs = bind(comparison.rhs, variables).expression
                kind = .comparison(comparison)
            }
            return PredicateNode(kind, range: predicate.range)
        }

        mutating func bind(
            _ expression: ExpressionNode, _ variables: [String: ValueType]
        ) -> (expression: ExpressionNode, type: ValueType) {
            func rebuilt(
                _ kind: ExpressionKind, _ type: ValueType = .any
            ) -> (expression: ExpressionNode, type: ValueType) {
                (ExpressionNode(kind, range: expression.range), type)
            }
            switch expression.kind {
            case .constant(let value):
                return (expression, Binder.type(of: value))
            case .evaluatedObject:
                return (expression, selfType)
            case .variable(let name):
                return (expression, variables[name] ?? .any)
            case .anyKey:
                return (expression, .any)
            case .keyPath(let base, let components):
                let (boundBase, baseType) = bind(base, variables)
                var type = baseType
                var bound: [KeyComponent] = []
                var resolving = true
                for component in components {
                    guard resolving, case .key(let key) = component, !key.utf8.contains(UInt8(ascii: ".")),
                        !key.hasPrefix("@"),
                        case .object(let reference) = type.unwrapped, let slot = reference.schema.slot(forKey: key)
                    else {
                        // Past a dictionary or an unknown key, evaluation reads by path; stop here.
                        resolving = false
                        bound.append(component)
                        continue
                    }
                    bound.append(.field(FieldReference(key: key, slot: slot, schema: reference)))
                    type = reference.schema.fields[slot].type
                }
                if !resolving { type = Binder.pathType(baseType, components) }
                return rebuilt(.keyPath(base: boundBase, components: bound), type)
            case .function(let selector, let arguments):
                return rebuilt(.function(selector, arguments.map { bind($0, variables).expression }))
            case .invoke(let receiver, let selector, let arguments):
                return rebuilt(
                    .invoke(
                        receiver: bind(receiver, variables).expression, selector: selector,
                        arguments: arguments.map { bind($0, variables).expression }))
            case .aggregate(let elements):
                return rebuilt(.aggregate(elements.map { bind($0, variables).expression }), .array(.any))
            case .index(let base, let spec):
                let (boundBase, baseType) = bind(base, variables)
                var boundSpec = spec
                if case .expression(let index) = spec { boundSpec = .expression(bind(index, variables).expression) }
                var elementType = ValueType.any
                if case .array(let element) = baseType.unwrapped { elementType = element }
                return rebuilt(.index(boundBase, boundSpec), spec == .size ? .integer : elementType)
            case .subquery(let collection, let variable, let predicate):
                let (boundCollection, collectionType) = bind(collection, variables)
                var inner = variables
                var elementType = ValueType.any
                if case .array(let element) = collectionType.unwrapped { elementType = element }
                inner[variable] = elementType
                let boundPredicate = bind(predicate, inner)
                return rebuilt(
                    .subquery(collection: boundCollection, variable: variable, predicate: boundPredicate),
                    .array(elementType))
            case .ternary(let condition, let whenTrue, let whenFalse):
                return rebuilt(
                    .ternary(
                        bind(condition, variables), bind(whenTrue, variables).expression,
                        bind(whenFalse, variables).expression))
            case .cast(let value, let type):
                return rebuilt(.cast(bind(value, variables).expression, bind(type, variables).expression))
            case .assignment(let name, let value):
                let (boundValue, type) = bind(value, variables)
                return rebuilt(.assignment(variable: name, boundValue), type)
            case .setOperation(let op, let lhs, let rhs):
                return rebuilt(
                    .setOperation(op, bind(lhs, variables).expression, bind(rhs, variables).expression), .array(.any))
            }
        }
    }

    /// The type that describes `value` as precisely as binding can use: objects by their schema,
    /// dictionaries by their keys, arrays by their elements' common schema.
    public static func type(describing value: Value) -> ValueType {
        switch value {
        case .dictionary(let entries):
            return .record(entries.mapValues { type(describing: $0) })
        case .array(let elements), .set(let elements):
            guard case .object(let first) = elements.first,
                elements.allSatisfy({ if case .object(let other) = $0 { other.schema === first.schema } else { false } }
                )
            else { return .array(.any) }
            return .array(.object(SchemaReference(first.schema)))
        default:
            return type(of: value)
        }
    }

    /// The static type of a constant.
    static func type(of value: Value) -> ValueType {
        switch value {
        case .bool: return .bool
        case .int, .uint: return .integer
        case .double, .decimal: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .array, .set: return .array(.any)
        case .dictionary: return .dictionary(.any)
        case .object(let object): return .object(SchemaReference(object.schema))
        case .nil, .null: return .any
        }
    }

    /// The type of `base.components` read by path: known for a record's keys and arrays of them.
    static func pathType(_ base: ValueType, _ components: [KeyComponent]) -> ValueType {
        var type = base
        for component in components {
            guard let key = component.key else { return .any }
            switch type.unwrapped {
            case .record(let fields):
                guard let field = fields[key] else { return .any }
                type = field
            case .dictionary(let values):
                type = .optional(values)
            case .object(let reference):
                guard let slot = reference.schema.slot(forKey: key) else { return .any }
                type = reference.schema.fields[slot].type
            case .array(let element):
                if key == "@count" { return .integer }
                guard case .object(let reference) = element.unwrapped, let slot = reference.schema.slot(forKey: key)
                else { return .array(.any) }
                type = .array(reference.schema.fields[slot].type)
            default:
                return .any
            }
        }
        return type
    }
}

extension ValueType {
    /// The type without its optional wrapper.
    public var unwrapped: ValueType {
        if case .optional(let wrapped) = self { return wrapped.unwrapped }
        return self
    }
}

extension SyntaxNode {
    /// Calls `body` with the components of every key path in the node, in evaluation order
    /// (a key path's base before the path itself).
    public func forEachKeyPath(_ body: ([KeyComponent]) -> Void) {
        switch self {
        case .expression(let expression):
            for child in expression.kind.children { child.forEachKeyPath(body) }
            if case .keyPath(_, let components) = expression.kind { body(components) }
        case .predicate(let predicate):
            for child in predicate.kind.children { child.forEachKeyPath(body) }
        }
    }
}

extension PredicateNode {
    /// Calls `body` with the components of every key path in the predicate, in evaluation order.
    public func forEachKeyPath(_ body: ([KeyComponent]) -> Void) {
        SyntaxNode.predicate(self).forEachKeyPath(body)
    }
}
