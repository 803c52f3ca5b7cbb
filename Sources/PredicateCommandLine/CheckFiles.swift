import Foundation

/// The `Info.plist` files `check` reads: the operands, with each directory replaced by the
/// `Info.plist` files under it.
enum CheckFiles {
    /// One file to check.
    struct File {
        /// The path, or `-` for standard input.
        let path: String
        /// Found in a directory scan: skipped quietly when it declares no File Provider rules.
        let fromDirectory: Bool
    }

    /// Directories not looked into: build products, version control, dependencies.
    static let skippedDirectories: Set<String> = [".build", ".git", ".swiftpm", "DerivedData", "Pods", "Carthage"]

    /// A directory scan stops after this many files, so a scan of `/` ends.
    static let maximumFiles = 10_000

    /// Whether `operand` names a file rather than a rule: `-`, a `.plist` name, or a directory.
    static func isFile(_ operand: String) -> Bool {
        operand == "-" || operand.lowercased().hasSuffix(".plist") || isDirectory(operand)
    }

    static func isDirectory(_ operand: String) -> Bool {
        var isDirectory: ObjCBool = false
        return operand != "-" && FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// The files of `operands`, in order; directories expand to their `*Info.plist` files, sorted.
    static func expand(_ operands: [String]) -> [File] {
        var files: [File] = []
        for operand in operands {
            if isDirectory(operand) {
                var found: [String] = []
                scan(operand, depth: 0, into: &found)
                files += found.sorted().map { File(path: $0, fromDirectory: true) }
            } else {
                files.append(File(path: operand, fromDirectory: false))
            }
        }
        return files
    }

    /// A scan looks at no more than this many directory entries, so a huge tree ends too.
    static let maximumEntries = 200_000

    private static func scan(_ directory: String, depth: Int, into found: inout [String]) {
        var entries = 0
        scan(directory, depth: depth, into: &found, entries: &entries)
    }

    private static func scan(_ directory: String, depth: Int, into found: inout [String], entries: inout Int) {
        guard depth < 32, found.count < maximumFiles, entries < maximumEntries,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return }
        for name in names.sorted() where !name.hasPrefix(".") && !skippedDirectories.contains(name) {
            entries += 1
            guard entries < maximumEntries else { return }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                // A symbolic link to a directory is not followed: links to an ancestor would make
                // the scan exponential.
                guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil else { continue }
                scan(path, depth: depth + 1, into: &found, entries: &entries)
            } else if name.hasSuffix("Info.plist"), found.count < maximumFiles {
                found.append(path)
            }
        }
    }
}
