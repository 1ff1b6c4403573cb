import NIOPosix

/// CPU-heavy work (a password hash, an RSA key generation) runs on NIO's blocking-work pool. The
/// Swift concurrency executor is NIO's event loops in our services (ServiceMain), so a task that
/// computed for tens of milliseconds would hold up every connection of its loop meanwhile.
public enum BlockingWork {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
