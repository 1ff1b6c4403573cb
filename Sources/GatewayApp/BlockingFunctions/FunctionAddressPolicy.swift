import Foundation
import ServiceKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a blocking function may be: a public address, unless the operator allows private ones
/// (`blockingFunctions.allowPrivateAddresses`: functions on the deployment's own network, or a
/// test's on loopback). A function's URL is an admin's to set, but the gateway sits inside the
/// deployment: without this rule a URL could make it post to the databases' or the peers' ports.
///
/// A name is resolved here and every address it has must be public; the HTTP client resolves it
/// again when it connects, so a name whose answers change in between (DNS rebinding) is not
/// covered: operators who need that close egress at the network (docs/blocking-functions.md).
struct FunctionAddressPolicy: Sendable {
    let allowsPrivateAddresses: Bool

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    func check(host: String) async throws {
        guard !allowsPrivateAddresses else { return }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = try await BlockingWork.run { Self.resolve(name) }
        guard !addresses.isEmpty else { throw Refused(description: "its host does not resolve") }
        if addresses.contains(where: { !Self.isPublic($0) }) {
            throw Refused(description: "its host has a private address (blockingFunctions.allowPrivateAddresses is off)")
        }
    }

    /// Every address `name` resolves to (a literal resolves to itself), as 4 or 16 bytes.
    static func resolve(_ name: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        withUnsafeBytes(of: v4.pointee.sin_addr) { result.append(Array($0)) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        withUnsafeBytes(of: v6.pointee.sin6_addr) { result.append(Array($0)) }
                    }
                default: break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }

    /// Whether an address is on the public internet: not loopback, private (RFC 1918, unique
    /// local), link-local, site-local, shared (CGNAT), unspecified, benchmarking, multicast or
    /// reserved; an IPv4 address inside IPv6 (mapped, IPv4-compatible, NAT64, 6to4) is judged as
    /// that IPv4 address (issue 57, F-9: `::127.0.0.1` and `2002:7f00:1::` reach loopback).
    static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 { return isPublicV4(bytes[0], bytes[1], bytes[2]) }
        guard bytes.count == 16 else { return false }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        // `::a.b.c.d` (deprecated, RFC 4291 §2.5.5.1), `::` and `::1` among them (0.0.0.0, 0.0.0.1).
        let compatible = bytes[0..<12].allSatisfy { $0 == 0 }
        let nat64 = bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0][...]
        if mapped || compatible || nat64 { return isPublicV4(bytes[12], bytes[13], bytes[14]) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublicV4(bytes[2], bytes[3], bytes[4]) }  // 6to4, 2002::/16
        if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return false }  // fec0::/10, site-local (deprecated)
        if bytes[0] == 0xFF { return false }  // multicast
        return true
    }

    static func isPublicV4(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Bool {
        switch (a, b) {
        case (0, _), (10, _), (127, _): return false
        case (100, 64...127): return false
        case (169, 254): return false
        case (172, 16...31): return false
        case (192, 168): return false
        case (192, 0) where c == 0: return false
        case (198, 18...19): return false
        default: return a < 224
        }
    }
}
