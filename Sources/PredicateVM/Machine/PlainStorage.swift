/// A copy of an array of plain data (instructions, prepared sites) that the instruction loop
/// reads through a plain pointer: reading an array held by the machine would retain and release
/// its buffer on every evaluation, an atomic operation on memory that every thread running the
/// program shares, and an element read through the pointer is not copied whole.
///
/// Immutable after initialisation, so sharing it between machines and threads is safe.
final class PlainStorage<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    /// A copy of `elements`, which must be trivial (no references): the storage neither
    /// initialises nor destroys them one by one.
    init(_ elements: [Element]) {
        precondition(_isPOD(Element.self), "PlainStorage holds plain data only")
        count = elements.count
        base = .allocate(capacity: max(1, elements.count))
        elements.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
        }
    }

    deinit { base.deallocate() }
}
