#if os(Linux)
    import CMalloc
#endif

/// Large, short-lived buffers (scrypt's 16 MiB per password hash at N = 2^14, r = 8) go back to the
/// system when freed. glibc otherwise raises its mmap threshold after the first such buffer is
/// freed, and later ones come from per-thread arenas that keep the memory: factor-registry then
/// held over 100 MiB after a burst of sign-ins. A fixed threshold turns that adjustment off.
enum MemoryReturn {
    static let threshold: Int32 = 1 << 20

    static func configure() {
        #if os(Linux)
            _ = mallopt(M_MMAP_THRESHOLD, threshold)
        #endif
    }
}
