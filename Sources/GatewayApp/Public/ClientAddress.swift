import Configuration
import Foundation
import HTTPTypes
import ServiceKit
import ServiceTransport

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

    /// An address in one spelling (``ClientAddressKey/canonical(_:)``).
    static func canonical(_ text: String) -> String { ClientAddressKey.canonical(text) }

    /// IPv4 as it is; IPv6 as its /64 (``ClientAddressKey/limitKey(_:)``).
    static func limitKey(_ canonical: String) -> String { ClientAddressKey.limitKey(canonical) }
}
