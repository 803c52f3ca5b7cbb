#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Just enough file access for the grammar tests (the package does not use Foundation).
enum PackageFiles {
    /// The package root: the nearest directory above `file` that holds `Package.swift`.
    static func root(from file: String = #filePath) throws(GrammarError) -> String {
        var directory = file
        while let slash = directory.lastIndex(of: "/") {
            directory = String(directory[..<slash])
            if access(directory + "/Package.swift", F_OK) == 0 { return directory }
        }
        throw GrammarError("no Package.swift above \(file)")
    }

    /// The contents of a UTF-8 text file.
    static func read(_ path: String) throws(GrammarError) -> String {
        guard let file = fopen(path, "rb") else { throw GrammarError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        guard ferror(file) == 0 else { throw GrammarError("cannot read \(path)") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The paths of the files under `directory` (recursively) whose names end in `suffix`, sorted.
    static func files(under directory: String, endingWith suffix: String) throws(GrammarError) -> [String] {
        guard let stream = opendir(directory) else { throw GrammarError("cannot list \(directory)") }
        defer { closedir(stream) }
        var found: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let path = directory + "/" + name
            if let child = opendir(path) {
                closedir(child)
                found += try files(under: path, endingWith: suffix)
            } else if name.hasSuffix(suffix) {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// The value of an environment variable, if set.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
