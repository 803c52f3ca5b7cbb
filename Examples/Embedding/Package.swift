// swift-tools-version: 6.0
import PackageDescription

// A fresh package embedding PredicateVM by path, as an app would: one product, one import.
// CI builds and runs it (.ci/run); the README's embedding snippets are its files.
let package = Package(
    name: "Embedding",
    dependencies: [.package(name: "PredicateVM", path: "../..")],
    targets: [
        .executableTarget(
            name: "Embedding", dependencies: [.product(name: "PredicateKit", package: "PredicateVM")])
    ],
    swiftLanguageModes: [.v6]
)
