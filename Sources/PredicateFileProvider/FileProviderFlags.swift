/// `NSFileProviderItemCapabilities` (SPEC §5.3): what the system may do with an item.
/// Rules test bits with `(capabilities & 8) != 0`.
public struct FileProviderCapabilities: OptionSet, Hashable, Sendable {
    /// The raw bit mask, as rules see it.
    public let rawValue: Int64
    /// Creates capabilities from Apple's bit values.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// 1: read the item's contents (for folders: enumerate their children).
    public static let allowsReading = FileProviderCapabilities(rawValue: 1)
    /// 1: Apple's name for ``allowsReading`` on folders.
    public static let allowsContentEnumerating = allowsReading
    /// 2: write the item's contents (for folders: add children).
    public static let allowsWriting = FileProviderCapabilities(rawValue: 2)
    /// 2: Apple's name for ``allowsWriting`` on folders.
    public static let allowsAddingSubItems = allowsWriting
    /// 4: move the item to another folder.
    public static let allowsReparenting = FileProviderCapabilities(rawValue: 4)
    /// 8: rename the item.
    public static let allowsRenaming = FileProviderCapabilities(rawValue: 8)
    /// 16: move the item to the trash.
    public static let allowsTrashing = FileProviderCapabilities(rawValue: 16)
    /// 32: delete the item.
    public static let allowsDeleting = FileProviderCapabilities(rawValue: 32)
    /// 64 (macOS 11): evict the item's contents.
    public static let allowsEvicting = FileProviderCapabilities(rawValue: 64)
    /// 128 (macOS 11.3): exclude the item from sync.
    public static let allowsExcludingFromSync = FileProviderCapabilities(rawValue: 128)
    /// 63: the deprecated "all", which does not include evicting or excluding from sync.
    public static let allowsAll = FileProviderCapabilities(rawValue: 63)
}

/// `NSFileProviderFileSystemFlags` (SPEC §5.3).
public struct FileProviderFileSystemFlags: OptionSet, Hashable, Sendable {
    /// The raw bit mask, as rules see it.
    public let rawValue: Int64
    /// Creates flags from Apple's bit values.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// 1: the owner may execute the file.
    public static let userExecutable = FileProviderFileSystemFlags(rawValue: 1)
    /// 2: the owner may read the file.
    public static let userReadable = FileProviderFileSystemFlags(rawValue: 2)
    /// 4: the owner may write the file.
    public static let userWritable = FileProviderFileSystemFlags(rawValue: 4)
    /// 8: the item is hidden.
    public static let hidden = FileProviderFileSystemFlags(rawValue: 8)
    /// 16: the item's extension is hidden.
    public static let pathExtensionHidden = FileProviderFileSystemFlags(rawValue: 16)
}

/// `NSFileProviderContentPolicy` (SPEC §5.3), an integer enum.
public enum FileProviderContentPolicy: Int64, Hashable, Sendable, CaseIterable {
    /// 0: as the parent folder says.
    case inherited = 0
    /// 1: download when opened.
    case downloadLazily = 1
    /// 2: download when opened; evict when changed remotely.
    case downloadLazilyAndEvictOnRemoteUpdate = 2
    /// 3: download eagerly and keep downloaded.
    case downloadEagerlyAndKeepDownloaded = 3
}

/// The special container identifiers; each value equals its symbol's name (SPEC §5.2).
public enum FileProviderItemIdentifier {
    /// The root container.
    public static let rootContainer = "NSFileProviderRootContainerItemIdentifier"
    /// The working set.
    public static let workingSet = "NSFileProviderWorkingSetContainerItemIdentifier"
    /// The trash.
    public static let trashContainer = "NSFileProviderTrashContainerItemIdentifier"
}
