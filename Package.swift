// swift-tools-version: 6.0
import PackageDescription

// The pipeline, one module per stage: source → tokens → syntax tree (PredicateSyntax) → … → VM.
// PredicateValue sits at the bottom: the value model every later stage shares.
let package = Package(
    name: "PredicateVM",
    products: [
        // One import for embedding (README, Embedding): everything but the SQL back ends.
        .library(name: "PredicateKit", targets: ["PredicateKit"]),
        .library(name: "PredicateValue", targets: ["PredicateValue"]),
        .library(name: "PredicateSyntax", targets: ["PredicateSyntax"]),
        .library(name: "PredicateSemantics", targets: ["PredicateSemantics"]),
        .library(name: "PredicateInterpreter", targets: ["PredicateInterpreter"]),
        .library(name: "PredicateFileProvider", targets: ["PredicateFileProvider"]),
        .library(name: "PredicateVM", targets: ["PredicateVM"]),
        .library(name: "PredicateBatch", targets: ["PredicateBatch"]),
        .library(name: "PredicateActions", targets: ["PredicateActions"]),
        .library(name: "PredicateSQL", targets: ["PredicateSQL"]),
        .library(name: "PredicateSQLite", targets: ["PredicateSQLite"]),
        .library(name: "PredicatePostgres", targets: ["PredicatePostgres"]),
        .executable(name: "predicate", targets: ["predicate"]),
        .executable(name: "predicate-bench", targets: ["predicate-bench"]),
        .plugin(name: "CheckFileProviderRules", targets: ["CheckFileProviderRules"]),
    ],
    targets: [
        // A prefetch hint, which Swift cannot emit (`include/CMemoryHints.h`).
        .target(name: "CMemoryHints"),
        .target(name: "PredicateValue", dependencies: ["CMemoryHints"]),
        .target(name: "PredicateSyntax", dependencies: ["PredicateValue"]),
        .target(name: "PredicateSemantics", dependencies: ["PredicateValue", "PredicateSyntax"]),
        .target(
            name: "PredicateInterpreter", dependencies: ["PredicateValue", "PredicateSyntax", "PredicateSemantics"]),
        .target(name: "PredicateFileProvider", dependencies: ["PredicateValue", "PredicateSemantics"]),
        .target(
            name: "PredicateVM",
            dependencies: ["PredicateValue", "PredicateSyntax", "PredicateSemantics"]
        ),
        .target(
            name: "PredicateBatch",
            dependencies: [
                "PredicateValue", "PredicateSyntax", "PredicateSemantics", "PredicateVM",
            ]
        ),
        .target(
            name: "PredicateActions",
            dependencies: [
                "PredicateValue", "PredicateSyntax", "PredicateSemantics", "PredicateInterpreter",
                "PredicateVM", "PredicateFileProvider",
            ]),
        .target(
            name: "PredicateCommandLine",
            dependencies: [
                "PredicateBatch", "PredicateValue", "PredicateSyntax", "PredicateSemantics", "PredicateInterpreter",
                "PredicateVM", "PredicateFileProvider", "PredicateActions", "PredicateSQL",
            ]),
        .target(
            name: "PredicateKit",
            dependencies: [
                "PredicateActions", "PredicateBatch", "PredicateFileProvider", "PredicateInterpreter",
                "PredicateSemantics", "PredicateSyntax", "PredicateVM", "PredicateValue",
            ]),
        .executableTarget(name: "predicate", dependencies: ["PredicateCommandLine"]),
        // `swift package check-file-provider-rules`: predicate check over the package's Info.plists.
        .plugin(
            name: "CheckFileProviderRules",
            capability: .command(
                intent: .custom(
                    verb: "check-file-provider-rules",
                    description: "Check the File Provider rules of every Info.plist in the package (predicate check)")),
            dependencies: ["predicate"]
        ),
        // Rules where the items live (issue 19): translation to SQL, then SQLite and PostgreSQL,
        // each linked as a system library (no package dependency).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(
            name: "PredicateSQL",
            dependencies: ["PredicateValue", "PredicateSyntax", "PredicateSemantics", "PredicateInterpreter"]),
        .target(
            name: "PredicateSQLite",
            dependencies: [
                "CSQLite", "PredicateSQL", "PredicateValue", "PredicateSyntax", "PredicateSemantics",
                "PredicateInterpreter",
            ]),
        .target(
            name: "PredicatePostgres",
            dependencies: [
                "CLibPQ", "PredicateSQL", "PredicateValue", "PredicateSyntax", "PredicateSemantics",
                "PredicateInterpreter",
            ]),
        .executableTarget(
            name: "predicate-bench",
            dependencies: [
                "PredicateKit", "PredicateBatch", "PredicateValue", "PredicateSyntax", "PredicateSemantics",
                "PredicateInterpreter", "PredicateVM", "PredicateFileProvider", "PredicateActions", "PredicateSQL",
                "PredicateSQLite", "PredicatePostgres",
            ],
            path: "Benchmarks/PredicateBench"
        ),
        .testTarget(name: "PredicateValueTests", dependencies: ["PredicateValue"]),
        .testTarget(name: "PredicateSyntaxTests", dependencies: ["PredicateSyntax", "PredicateValue"]),
        .testTarget(
            name: "PredicateSemanticsTests", dependencies: ["PredicateSemantics", "PredicateSyntax", "PredicateValue"]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "PredicateBatch", "PredicateInterpreter", "PredicateFileProvider", "PredicateSemantics",
                "PredicateSyntax",
                "PredicateValue", "PredicateVM", "PredicateSQL", "PredicateSQLite",
                "PredicatePostgres",
            ],
            exclude: ["Cases"]),
        .testTarget(
            name: "PredicateVMTests",
            dependencies: [
                "PredicateVM", "PredicateSemantics", "PredicateSyntax", "PredicateValue",
                "PredicateFileProvider", "PredicateInterpreter",
            ]),
        .testTarget(
            name: "DifferentialTests",
            dependencies: [
                "PredicateBatch", "PredicateInterpreter", "PredicateVM", "PredicateSemantics",
                "PredicateSyntax",
                "PredicateValue", "PredicateFileProvider",
            ]),
        .testTarget(
            name: "PredicateBatchTests",
            dependencies: [
                "PredicateBatch", "PredicateFileProvider", "PredicateSemantics", "PredicateSyntax",
                "PredicateValue", "PredicateVM",
            ]
        ),
        .testTarget(
            name: "PredicateActionsTests",
            dependencies: [
                "PredicateActions", "PredicateFileProvider", "PredicateSemantics", "PredicateSyntax", "PredicateValue",
                "PredicateVM",
            ]
        ),
        .testTarget(name: "PredicateBenchTests", dependencies: ["predicate-bench"]),
        .testTarget(name: "PredicateKitTests", dependencies: ["PredicateKit"]),
        .testTarget(
            name: "HardeningTests",
            dependencies: [
                "PredicateActions", "PredicateBatch", "PredicateVM", "PredicateInterpreter", "PredicateFileProvider",
                "PredicateSemantics", "PredicateSyntax", "PredicateValue",
            ]
        ),
        .testTarget(
            name: "PredicateCommandLineTests",
            dependencies: ["PredicateCommandLine", "PredicateSyntax", "PredicateValue"]
        ),
        .testTarget(
            name: "PredicateSQLTests",
            dependencies: [
                "PredicateSQL", "PredicateSQLite", "PredicatePostgres", "PredicateInterpreter", "PredicateSemantics",
                "PredicateSyntax", "PredicateValue",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
