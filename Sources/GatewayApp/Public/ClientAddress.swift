import Configuration
import Foundation
import HTTPTypes
import ServiceKit

/// Who a request comes from, for every per-client limit (SMS sends, first-factor attempts).
///
/// Behind a load balancer the peer is the balancer: `public.clientAddressHeader` (e.g.
/// `X-Forwarded-For`) names the header it writes, and `public.trustedProxies` the peers allowed to
/// write it. From a trusted peer the client is the right-most address in the header that is not
/// itself a trusted proxy; anyone else's header is ignored, so a client cannot pick its own bucket.
/// An IPv6 client counts by its /64, the block one subscriber usually holds.
struct ClientAddress: Sendable {
    let header: HTTPField.Name?
    let trustedProxies: Set<String>

    init(header: HTTPField.Name? = nil, trustedProxies: Set<String> = []) {
        self.header = header
        self.trustedProxies = trustedProxies
    }

    init(reader: ConfigReader) throws {
        var header: HTTPField.Name?
        if let name = reader.string(forKey: "public.clientAddressHeader"), !name.isEmpty {
            guard let parsed = HTTPField.Name(name) else {
                throw InvalidSetting(key: "public.clientAddressHeader", reason: "'\(name)' is not a header name")
            }
            header = parsed
        }
        let proxies = reader.stringArray(forKey: "public.trustedProxies", default: [])
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if header != nil, proxies.isEmpty {
            throw InvalidSetting(
                key: "public.trustedProxies",
                reason: "public.clientAddressHeader is set, so the load balancers allowed to write it must be listed"
            )
        }
        self.init(header: header, trustedProxies: Set(proxies.map(Self.canonical)))
    }

    /// The limit key of the client behind `peer` (the socket's remote address).
    func resolve(peer: String?, headers: HTTPFields) -> String? {
        guard let peer else { return nil }
        var client = Self.canonical(peer)
        if let header, trustedProxies.contains(client), let value = headers[values: header].last {
            let hops = value.split(separator: ",").map { Self.canonical($0.trimmingCharacters(in: .whitespaces)) }
            if let nearest = hops.last(where: { !trustedProxies.contains($0) && !$0.isEmpty }) { client = nearest }
        }
        return Self.limitKey(client)
    }

    /// An address in one spelling: IPv4 as it is, IPv6 expanded and lower-cased (brackets and a zone dropped).
    static func canonical(_ text: String) -> String {
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
    static func limitKey(_ canonical: String) -> String {
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
