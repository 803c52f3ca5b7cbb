/// The extension's code would live here; the plugin only reads `Extension/Info.plist`.
public enum SampleFileProvider {
    /// The identifier of the extension's one action, as its Info.plist declares it.
    public static let shareAction = "com.example.sample.share"
}
