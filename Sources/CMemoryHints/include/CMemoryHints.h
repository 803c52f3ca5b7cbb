#ifndef C_MEMORY_HINTS_H
#define C_MEMORY_HINTS_H

// Swift has no prefetch. A load used as one (reading a byte early) holds up every later
// instruction until the line arrives, so on a loop bound by memory it saves little; a prefetch
// retires at once and the line arrives while the loop works on earlier items.

/// Asks the processor to bring the cache line holding `address` in for a read soon. A hint: it
/// never faults, so any address (even a stale or null one) is allowed.
static inline __attribute__((always_inline)) void predicate_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
