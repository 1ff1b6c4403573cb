import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in for Apple's APNs provider API on a loopback port, in plain HTTP/1.1 (the sender's
/// client speaks it to an `http://` base URL): it records every push (path, headers, JSON body) and
/// answers 200, or 400 `BadDeviceToken` for the device tokens it is told to refuse. One connection
/// at a time, each closed after its answer; nothing leaves the machine.
final class APNsStandIn: Sendable {
    struct Push: Sendable {
        let path: String
        let headers: [String: String]
        let body: Data
    }

    let port: Int
    private let socketFD: Int32
    private let refused: Set<String>
    private let pushes = Mutex<[Push]>([])

    init(refusing refused: Set<String> = []) throws {
        self.refused = refused
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
        Thread.detachNewThread { [self] in serve() }
    }

    /// `http://127.0.0.1:<port><prefix>`: a base URL the sender appends `/3/device/<token>` to.
    func baseURL(_ prefix: String) -> String { "http://127.0.0.1:\(port)\(prefix)" }

    var received: [Push] { pushes.withLock { $0 } }

    /// Stops accepting (the blocked `accept` returns) and frees the port.
    func stop() {
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    private func serve() {
        while true {
            let client = accept(socketFD, nil, nil)
            guard client >= 0 else { return }
            answer(client)
            close(client)
        }
    }

    private func answer(_ client: Int32) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while headerEnd.map({ data.count < $0 + contentLength }) ?? true {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            data.append(contentsOf: buffer[0..<count])
            if headerEnd == nil, let end = Self.endOfHeaders(data) {
                headerEnd = end
                contentLength = Self.headers(data[0..<end]).1["content-length"].flatMap { Int($0) } ?? 0
            }
        }
        guard let end = headerEnd else { return }
        let (path, headers) = Self.headers(data[0..<end])
        pushes.withLock { $0.append(Push(path: path, headers: headers, body: Data(data[end..<(end + contentLength)]))) }
        let token = path.split(separator: "/").last.map(String.init) ?? ""
        let (status, body) = refused.contains(token) ? ("400 Bad Request", #"{"reason":"BadDeviceToken"}"#) : ("200 OK", "")
        let response = Array(
            "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)"
                .utf8)
        _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    private static func endOfHeaders(_ data: [UInt8]) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4) where Array(data[index..<(index + 4)]) == marker { return index + 4 }
        return nil
    }

    /// The request line's path and the headers, names in lower case.
    private static func headers(_ head: ArraySlice<UInt8>) -> (String, [String: String]) {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (path, headers)
    }
}
