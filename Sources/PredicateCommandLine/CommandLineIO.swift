#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure to read or write one of the tool's streams or files.
public struct CommandLineIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What failed, for example `cannot read 'items.json': No such file or directory`.
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Where the tool reads its standard input from.
///
/// The tool reads in chunks and never asks for all input at once, so a conforming type can
/// stream from a pipe; see ``FileDescriptorInput`` and ``InMemoryInput``.
public protocol CommandLineInput {
    /// Reads the next bytes, at most `maximumCount` of them.
    ///
    /// - Parameter maximumCount: The most bytes to return.
    /// - Returns: At least one byte, or an empty array at the end of input.
    /// - Throws: A ``CommandLineIOError`` if reading fails.
    mutating func read(maximumCount: Int) throws(CommandLineIOError) -> [UInt8]
}

/// Where the tool writes its standard output or standard error.
public protocol CommandLineOutput {
    /// Writes text (as UTF-8). Implementations may buffer it until ``flush()``.
    ///
    /// - Parameter text: The text to write.
    mutating func write(_ text: String)

    /// Writes out anything buffered, and reports any failure since the last flush.
    ///
    /// - Throws: A ``CommandLineIOError`` if an earlier write or this flush failed.
    mutating func flush() throws(CommandLineIOError)
}

extension CommandLineOutput {
    /// Does nothing: unbuffered outputs have nothing to flush.
    public mutating func flush() throws(CommandLineIOError) {}
}

/// Input served from bytes in memory, for tests and for embedding the tool.
public struct InMemoryInput: CommandLineInput, Sendable {
    private let bytes: [UInt8]
    private var position = 0

    /// Creates an input that yields `bytes`, then end of input.
    ///
    /// - Parameter bytes: The whole input.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Creates an input that yields the UTF-8 of `text`, then end of input.
    ///
    /// - Parameter text: The whole input.
    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// Returns the next `maximumCount` bytes or fewer; empty at the end.
    public mutating func read(maximumCount: Int) throws(CommandLineIOError) -> [UInt8] {
        let end = min(bytes.count, position + max(1, maximumCount))
        defer { position = end }
        return Array(bytes[position..<end])
    }
}

/// Output collected in memory, for tests and for embedding the tool.
public struct InMemoryOutput: CommandLineOutput, Sendable {
    /// Everything written so far.
    public private(set) var text = ""

    /// Creates an empty output.
    public init() {}

    /// Appends `text`.
    public mutating func write(_ text: String) {
        self.text += text
    }
}

/// Input read from an open file descriptor, such as standard input.
public struct FileDescriptorInput: CommandLineInput, Sendable {
    private let descriptor: Int32

    /// Creates an input reading from `descriptor`, which stays open and owned by the caller.
    ///
    /// - Parameter descriptor: An open file descriptor, for example 0 for standard input.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads with `read(2)`, retrying when interrupted by a signal.
    public mutating func read(maximumCount: Int) throws(CommandLineIOError) -> [UInt8] {
        let capacity = max(1, maximumCount)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            while true {
                let result = systemRead(descriptor, buffer.baseAddress, capacity)
                if result >= 0 {
                    count = result
                    return
                }
                if errno != EINTR {
                    failure = errno
                    count = 0
                    return
                }
            }
        }
        if failure != 0 { throw CommandLineIOError("cannot read input: \(errorMessage(failure))") }
        return bytes
    }
}

/// Output written to an open file descriptor, such as standard output, through a buffer.
///
/// Writing millions of short lines one system call at a time would dominate the run time, so
/// text collects in a buffer that is written out when it grows large and on ``flush()``.
public struct FileDescriptorOutput: CommandLineOutput, Sendable {
    private let descriptor: Int32
    private let capacity: Int
    private var buffer: [UInt8] = []
    private var failure: CommandLineIOError?

    /// Creates an output writing to `descriptor`, which stays open and owned by the caller.
    ///
    /// - Parameters:
    ///   - descriptor: An open file descriptor, for example 1 for standard output.
    ///   - bufferSize: How many bytes to collect before writing; 0 writes every text at once.
    public init(descriptor: Int32, bufferSize: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = max(0, bufferSize)
        buffer.reserveCapacity(capacity)
    }

    /// Buffers `text`, writing the buffer out once it reaches the buffer size.
    public mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { writeBuffer() }
    }

    /// Writes out the buffer and reports the first failure, if any.
    public mutating func flush() throws(CommandLineIOError) {
        writeBuffer()
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    private mutating func writeBuffer() {
        defer { buffer.removeAll(keepingCapacity: true) }
        // After a failure (a closed pipe, a full disk) later output is dropped: the first error
        // is what the user needs to see, and retrying would only repeat it.
        guard failure == nil else { return }
        let descriptor = self.descriptor
        let error: Int32 = buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        if error != 0 { failure = CommandLineIOError("cannot write output: \(errorMessage(error))") }
    }
}

/// Reads a whole file into memory.
///
/// - Parameter path: The file's path.
/// - Returns: The file's bytes.
/// - Throws: A ``CommandLineIOError`` naming the file and the system's reason.
func readFile(atPath path: String) throws(CommandLineIOError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw CommandLineIOError("cannot read '\(path)': \(errorMessage(errno))") }
    defer { close(descriptor) }
    var input = FileDescriptorInput(descriptor: descriptor)
    do throws(CommandLineIOError) {
        return try readAll(from: &input)
    } catch {
        throw CommandLineIOError("cannot read '\(path)': \(error.message)")
    }
}

/// The most bytes one whole document (an object, a selection, an Info.plist) may have. Far above
/// any real one, and low enough that parsing the largest stays well within 2 GiB: a document is
/// held whole, and its parsed form takes many times its size, so without this a hostile file
/// (or `/dev/zero`) would exhaust memory instead of getting an error (issue 18). `filter` streams
/// its lines and has no such limit.
let maximumDocumentBytes = 32 << 20

/// Reads an input to its end.
///
/// - Throws: ``CommandLineIOError`` when it holds more than `limit` bytes (by default
///   ``maximumDocumentBytes``), after reading just past the limit.
func readAll(
    from input: inout some CommandLineInput, limit: Int = maximumDocumentBytes
) throws(CommandLineIOError) -> [UInt8] {
    var bytes: [UInt8] = []
    while true {
        let chunk = try input.read(maximumCount: 1 << 16)
        if chunk.isEmpty { return bytes }
        bytes.append(contentsOf: chunk)
        guard bytes.count <= limit else {
            throw CommandLineIOError("the input is larger than \(limit >> 20) MiB, the limit for one document")
        }
    }
}

/// Whether `descriptor` is a terminal, so colour escapes will be interpreted rather than stored.
func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

/// The value of an environment variable, if set.
func environmentVariable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func errorMessage(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}

/// The index of the first line feed in `buffer` at or after `start`, or `nil`.
func firstLineFeed(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard start < buffer.count, let base = buffer.baseAddress else { return nil }
    // memchr is vectorised by the C library; a byte loop is several times slower on long lines.
    guard let found = memchr(base + start, 0x0A, buffer.count - start) else { return nil }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
}
