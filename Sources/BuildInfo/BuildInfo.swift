/// What was built: the release from `VERSION` and the commit (`0.1.0+1a2b3c4d5e6f`, `.dirty` when
/// the tree had uncommitted changes; the release alone when built outside a git checkout, as in a
/// container build). Written by the BuildVersion plugin at build time.
public enum BuildInfo {
    public static var version: String { BuildVersion.full }
    public static var release: String { BuildVersion.release }
}
