import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key a client address is counted under, by every per-client limit: its connections
/// (``ConnectionGuard``) and its requests (the gateway's `ClientAddress`). IPv4 as it is; IPv6 by its
/// /64, the block one subscriber usually holds; an IPv4 client on a dual-stack socket as IPv4.
public enum ClientAddressKey {
    /// An address in one spelling: IPv4 as it is, IPv6 expanded and lower-cased (brackets and a zone dropped).
    public static func canonical(_ text: String) -> String {
        var address = text
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            address = String(address[address.index(after: address.startIndex)..<end])
        }
        if let zone = address.firstIndex(of: "%") { address = String(address[..<zone]) }
        guard address.contains(":"), let groups = ipv6Groups(address) else { return address }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xffff {
            // An IPv4 client on a dual-stack socket.
            return "\(groups[6] >> 8).\(groups[6] & 0xff).\(groups[7] >> 8).\(groups[7] & 0xff)"
        }
        return groups.map { String($0, radix: 16) }.joined(separator: ":")
    }

    /// IPv4 as it is; IPv6 as its /64.
    public static func limitKey(_ canonical: String) -> String {
        guard canonical.contains(":") else { return canonical }
        return canonical.split(separator: ":").prefix(4).joined(separator: ":") + "::/64"
    }

    private static func ipv6Groups(_ address: String) -> [UInt16]? {
        var storage = in6_addr()
        guard inet_pton(AF_INET6, address, &storage) == 1 else { return nil }
        return withUnsafeBytes(of: storage) { bytes in
            (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        }
    }
}
