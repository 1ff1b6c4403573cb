import Foundation
import TestSupport

/// A loopback port that accepts TCP connections (the kernel completes them from the backlog) and
/// never says a word: a server that hangs before its greeting.
final class SilentListener {
    let port: Int
    private let socketFD: Int32

    init() throws {
        port = try LoopbackPort.free()
        socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EMFILE) }
        var address = LoopbackPort.address(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 8) == 0 else {
            close(socketFD)
            throw POSIXError(.EADDRINUSE)
        }
    }

    deinit { close(socketFD) }
}
