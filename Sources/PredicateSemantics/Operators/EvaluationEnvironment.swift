import Foundation
import PredicateSyntax

/// What the operators need beyond their operands: the type-identifier table and the compiled
/// patterns of `LIKE` and `MATCHES`. Shared by every evaluation; safe to use from many threads.
///
/// A class, so that handing it to an operator costs one reference count rather than one for each
/// of the type table's arrays.
public final class EvaluationEnvironment: Sendable {
    /// The conformance graph for `UTI-CONFORMS-TO`: Apple's system types plus the host's own.
    public let uniformTypes: UniformTypeRegistry
    /// Let `UTI-CONFORMS-TO` and `UTI-EQUALS` accept a type object (an item's `contentType`) for
    /// its identifier. Off by default, because Apple raises there and the rule never matches on a
    /// device (SPEC §9 item 14).
    public let lenientTypeObjects: Bool
    /// Compiled `LIKE` and `MATCHES` patterns, so that a rule run over many items compiles each
    /// pattern once.
    public let patterns: PatternCache
    /// How much work and memory one evaluation may use; both engines enforce the same limits.
    public let limits: EvaluationLimits

    /// Creates an environment; by default the system type table, strict type operands, a
    /// fresh pattern cache and the default limits.
    public init(
        uniformTypes: UniformTypeRegistry = .system, lenientTypeObjects: Bool = false,
        patterns: PatternCache = PatternCache(), limits: EvaluationLimits = EvaluationLimits()
    ) {
        self.uniformTypes = uniformTypes
        self.lenientTypeObjects = lenientTypeObjects
        self.patterns = patterns
        self.limits = limits
    }
}

/// A bounded, thread-safe cache of compiled `LIKE` and `MATCHES` patterns, keyed by pattern
/// text and options. Compile errors are cached too, so a bad pattern fails fast every time.
public final class PatternCache: @unchecked Sendable {
    private struct Key: Hashable {
        let pattern: String
        let options: UInt8
        let isRegularExpression: Bool
    }

    private enum Entry {
        case like(LikePattern)
        case regularExpression(RegularExpressionMatcher)
        case failure(EvaluationError)
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private let capacity: Int

    /// Creates a cache holding at most `capacity` patterns (the oldest half is dropped when full).
    public init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// The compiled `LIKE` pattern.
    public func like(_ pattern: String, options: ComparisonOptions) throws(EvaluationError) -> LikePattern {
        let key = Key(pattern: pattern, options: options.rawValue, isRegularExpression: false)
        switch lookUp(key) {
        case .like(let compiled): return compiled
        case .failure(let error): throw error
        default: break
        }
        do {
            let compiled = try LikePattern(pattern, options: options)
            store(.like(compiled), for: key)
            return compiled
        } catch {
            store(.failure(error), for: key)
            throw error
        }
    }

    /// The compiled `MATCHES` regular expression.
    public func regularExpression(
        _ pattern: String, options: ComparisonOptions
    ) throws(EvaluationError) -> RegularExpressionMatcher {
        let key = Key(pattern: pattern, options: options.rawValue, isRegularExpression: true)
        switch lookUp(key) {
        case .regularExpression(let compiled): return compiled
        case .failure(let error): throw error
        default: break
        }
        do {
            let compiled = try RegularExpressionMatcher(pattern, options: options)
            store(.regularExpression(compiled), for: key)
            return compiled
        } catch {
            store(.failure(error), for: key)
            throw error
        }
    }

    private func lookUp(_ key: Key) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    private func store(_ entry: Entry, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity {
            for stale in entries.keys.prefix(entries.count / 2) { entries[stale] = nil }
        }
        entries[key] = entry
    }
}
