/// Placeholder until the build supplies the version.
enum BuildVersion {
    static let description = "0.1.0"
}
