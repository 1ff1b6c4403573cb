import NIOCore
import Testing

@testable import ServiceTransport

/// Issue 57, F-2: what one client address may hold of a listener, and how a new HTTP/2 connection's
/// first request is recognised. The attacks themselves run against a production stack in
/// client-tests/test_production_open_door.py.
@Suite("Connection guard")
struct ConnectionGuardTests {
    static func address(_ text: String) throws -> SocketAddress {
        try SocketAddress(ipAddress: text, port: 40_000)
    }

    @Test("one address holds at most its share; others still get in, and a freed slot is reusable")
    func perAddressLimit() throws {
        let connections = ConnectionGuard(listener: "test", limit: 10, perAddress: 3)
        let flooder = connections.key(for: try Self.address("203.0.113.7"))
        for _ in 0..<3 { #expect(connections.admit(flooder) == nil) }
        #expect(connections.admit(flooder) == .perAddress)
        let other = connections.key(for: try Self.address("198.51.100.1"))
        #expect(connections.admit(other) == nil)
        connections.release(flooder)
        #expect(connections.admit(flooder) == nil)
        #expect(connections.summary == .init(open: 4, refusedPerAddress: 1, refusedListenerFull: 0, addressesAtLimit: 1))
    }

    @Test("an IPv6 client counts by its /64, a mapped IPv4 client as IPv4")
    func addressKeys() throws {
        let connections = ConnectionGuard(listener: "test", limit: 10, perAddress: 2)
        let first = connections.key(for: try Self.address("2001:db8:1:2::1"))
        let second = connections.key(for: try Self.address("2001:db8:1:2:ffff::9"))
        #expect(first == second && first == "2001:db8:1:2::/64")
        #expect(connections.admit(first) == nil && connections.admit(second) == nil)
        #expect(connections.admit(connections.key(for: try Self.address("2001:db8:1:2:aaaa::1"))) == .perAddress)
        #expect(connections.admit(connections.key(for: try Self.address("2001:db8:1:3::1"))) == nil)
        #expect(connections.key(for: try Self.address("::ffff:192.0.2.1")) == "192.0.2.1")
    }

    @Test("a trusted load balancer counts toward the listener's cap only, which holds for everyone")
    func exemptAndListenerCap() throws {
        let connections = ConnectionGuard(listener: "test", limit: 4, perAddress: 2, exempt: ["10.0.0.5"])
        let balancer = connections.key(for: try Self.address("10.0.0.5"))
        #expect(balancer == nil)
        for _ in 0..<4 { #expect(connections.admit(balancer) == nil) }
        #expect(connections.admit(connections.key(for: try Self.address("198.51.100.1"))) == .listenerFull)
        connections.release(balancer)
        #expect(connections.admit(connections.key(for: try Self.address("198.51.100.1"))) == nil)
    }

    @Test("a refusal is logged at most once per interval")
    func logRateLimit() {
        let connections = ConnectionGuard(listener: "test", limit: 1, perAddress: 1)
        let start = ContinuousClock.now
        #expect(connections.shouldLog(now: start))
        #expect(!connections.shouldLog(now: start + .seconds(1)))
        #expect(connections.shouldLog(now: start + ConnectionGuard.logInterval + .seconds(1)))
    }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func frame(type: UInt8, payload: Int) -> [UInt8] {
        [UInt8(payload >> 16 & 0xFF), UInt8(payload >> 8 & 0xFF), UInt8(payload & 0xFF), type, 0, 0, 0, 0, 1]
            + [UInt8](repeating: 0x55, count: payload)
    }

    @Test("the first stream is seen through the preface and any frames before it, in pieces of any size")
    func openingScanner() {
        // SETTINGS (4), WINDOW_UPDATE (8), a PING (6) whose payload holds a byte that looks like HEADERS, then HEADERS.
        let bytes =
            Self.preface + Self.frame(type: 4, payload: 18) + Self.frame(type: 8, payload: 4)
            + Self.frame(type: 6, payload: 8).map { $0 == 0x55 ? 1 : $0 } + Self.frame(type: 1, payload: 30)
        let headersEnd = bytes.count - 30
        for size in [1, 2, 7, 9, 24, 1000] {
            var scanner = HTTP2OpeningScanner()
            var seenAt: Int?
            var offset = 0
            while offset < bytes.count, seenAt == nil {
                let piece = ByteBuffer(bytes: bytes[offset..<min(offset + size, bytes.count)])
                if scanner.sawRequest(in: piece.readableBytesView) { seenAt = min(offset + size, bytes.count) }
                offset += size
            }
            #expect(seenAt.map { $0 >= headersEnd && $0 - size < headersEnd } == true, "piece size \(size)")
        }
        // The preface and SETTINGS alone, what a silent client sends, are no request.
        var silent = HTTP2OpeningScanner()
        let sawRequest = silent.sawRequest(in: ByteBuffer(bytes: Self.preface + Self.frame(type: 4, payload: 0)).readableBytesView)
        #expect(!sawRequest)
    }
}
