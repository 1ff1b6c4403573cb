import Foundation

/// Whom a call is for in the end: the public client's address and user agent, and the kind of
/// caller (`user`, `admin:<credential id>`, `system`). The gateway binds it for each public request;
/// every RPC made while it is bound carries it (`x-mfa-origin`), and the serving side binds it again
/// while the handler runs, so a security event written deep inside a service names the client
/// without every call passing it on. Only authenticated peers reach the header.
public struct RequestOrigin: Codable, Sendable, Hashable {
    public var clientAddress: String?
    public var userAgent: String?
    public var actor: String

    public init(clientAddress: String? = nil, userAgent: String? = nil, actor: String) {
        self.clientAddress = clientAddress.map { String($0.prefix(64)) }
        self.userAgent = userAgent.map { String($0.prefix(256)) }
        self.actor = String(actor.prefix(64))
    }

    @TaskLocal public static var current: RequestOrigin?

    public static let headerName = "x-mfa-origin"

    /// Base64url of the JSON form: one header value whatever the user agent holds.
    public var headerValue: String {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    public init?(headerValue: String) {
        guard headerValue.utf8.count <= 2048 else { return nil }
        var text = headerValue.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let decoded = try? JSONDecoder().decode(RequestOrigin.self, from: data) else {
            return nil
        }
        self.init(clientAddress: decoded.clientAddress, userAgent: decoded.userAgent, actor: decoded.actor)
    }
}
