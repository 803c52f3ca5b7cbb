// swift-tools-version: 6.0
import PackageDescription

// A File Provider project in miniature, for `swift package check-file-provider-rules`: the
// plugin comes from the PredicateVM package two levels up and checks Extension/Info.plist.
let package = Package(
    name: "PluginSample",
    dependencies: [.package(name: "PredicateVM", path: "../..")],
    targets: [.target(name: "SampleFileProvider")]
)
