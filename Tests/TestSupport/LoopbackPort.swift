import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP ports for the servers a test starts. One allocator for every test target, since
/// `swift test` runs them all in one process: two would hand out the same ports.
public enum LoopbackPort {
    /// Ports from 20000-31999: below Linux's ephemeral range (32768-60999), so no client socket
    /// (PostgreSQL connections, HTTP clients) takes one between the check and the server's bind;
    /// never the same one twice within this process. The start depends on the process id, so test
    /// processes running side by side begin apart.
    private static let next = Mutex<Int>(20000 + Int(getpid() % 400) * 30)

    /// A loopback TCP port nobody listens on.
    public static func free() throws -> Int {
        for _ in 0..<2000 {
            let port = next.withLock { port -> Int in
                defer { port = port >= 31999 ? 20000 : port + 1 }
                return port
            }
            if canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// `127.0.0.1:port` as the socket calls take it.
    public static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func canBind(_ port: Int) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = address(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
