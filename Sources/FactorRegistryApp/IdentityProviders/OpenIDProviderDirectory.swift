import AsyncHTTPClient
import Foundation
import JSONRPC
import JWTKit
import Logging
import NIOCore

/// What factor-registry knows of each OpenID Connect issuer it signs users in with: its discovery
/// document (`<issuer>/.well-known/openid-configuration`: the endpoints and the key set's address)
/// and its signing keys (jwt-kit's key collection from the JWKS), fetched on first use and cached
/// for an hour. An ID token signed by a key the cache does not have makes one refetch of the key
/// set (a provider rotated its keys), at most once a minute per issuer, so a stream of forged
/// tokens costs the provider nothing.
actor OpenIDProviderDirectory {
    struct Provider: Sendable {
        let issuer: String
        let authorizationEndpoint: String?
        let tokenEndpoint: String?
        /// RFC 7009's endpoint (Apple's `/auth/revoke`), when the provider has one.
        let revocationEndpoint: String?
        /// `response_modes_supported` (Apple's includes `form_post`, which it requires for its scopes).
        let responseModes: [String]
        /// `scopes_supported`, when the document lists them.
        let scopes: [String]?
        let keys: JWTKeyCollection
        let fetchedAt: ContinuousClock.Instant
    }

    /// The provider cannot be reached or answered something that is not a provider's answer.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    private let client: HTTPClient
    private let logger: Logger
    private var providers: [String: Provider] = [:]
    private var fetching: [String: Task<Provider, any Error>] = [:]
    private let lifetime: Duration = .seconds(3600)
    private let refetchInterval: Duration = .seconds(60)
    static let answerLimit = 512 * 1024
    static let timeout: TimeAmount = .seconds(10)

    init(client: HTTPClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The issuer's provider, from the cache while it is fresh.
    func provider(issuer: String) async throws -> Provider {
        if let known = providers[issuer], ContinuousClock.now - known.fetchedAt < lifetime { return known }
        return try await fetch(issuer)
    }

    /// The provider again, when a token named a key it lacks: refetched unless it was fetched
    /// within the last minute (`nil` then: nothing new to try).
    func refreshed(issuer: String) async throws -> Provider? {
        if let known = providers[issuer], ContinuousClock.now - known.fetchedAt < refetchInterval { return nil }
        return try await fetch(issuer)
    }

    /// One fetch per issuer at a time: concurrent sign-ins wait for the same answer.
    private func fetch(_ issuer: String) async throws -> Provider {
        if let running = fetching[issuer] { return try await running.value }
        let task = Task { try await Self.load(issuer, client: client) }
        fetching[issuer] = task
        defer { fetching[issuer] = nil }
        do {
            let provider = try await task.value
            providers[issuer] = provider
            return provider
        } catch {
            logger.warning("identity provider unavailable", metadata: ["issuer": "\(issuer)", "error": "\(error)"])
            throw error
        }
    }

    private static func load(_ issuer: String, client: HTTPClient) async throws -> Provider {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let discovery = try await json(at: base + "/.well-known/openid-configuration", client: client)
        guard let jwksURI = discovery["jwks_uri"]?.stringValue
        else { throw Unavailable(description: "the discovery document names no jwks_uri") }
        // OpenID Connect Discovery §4.3: the document must be the issuer's own.
        guard let named = discovery["issuer"]?.stringValue, named == issuer || named == base else {
            throw Unavailable(description: "the discovery document is another issuer's")
        }
        let keys = JWTKeyCollection()
        do {
            var set = try JSONDecoder().decode(JWKS.self, from: try await data(at: jwksURI, client: client))
            // The one key of a set of one also verifies tokens whose header names no key (some
            // providers leave `kid` out of both); it keeps its own name, or gets one of ours.
            if set.keys.count == 1 {
                if set.keys[0].keyIdentifier == nil { set.keys[0].keyIdentifier = JWKIdentifier(string: "default") }
                try await keys.add(jwk: set.keys[0], isDefault: true)
            } else {
                try await keys.add(jwks: set)
            }
        } catch let error as Unavailable {
            throw error
        } catch {
            throw Unavailable(description: "the key set does not read: \(error)")
        }
        return Provider(
            issuer: issuer, authorizationEndpoint: discovery["authorization_endpoint"]?.stringValue,
            tokenEndpoint: discovery["token_endpoint"]?.stringValue, revocationEndpoint: discovery["revocation_endpoint"]?.stringValue,
            responseModes: Self.strings(discovery["response_modes_supported"]) ?? [],
            scopes: Self.strings(discovery["scopes_supported"]), keys: keys, fetchedAt: .now
        )
    }

    static func strings(_ value: JSONValue?) -> [String]? {
        if case .array(let items)? = value { return items.compactMap(\.stringValue) }
        return nil
    }

    static func json(at url: String, client: HTTPClient) async throws -> JSONValue {
        let body = try await data(at: url, client: client)
        guard let value = try? JSONCoding.parse(Array(body)), case .object = value else {
            throw Unavailable(description: "\(url) did not answer JSON")
        }
        return value
    }

    static func data(at url: String, client: HTTPClient) async throws -> Data {
        guard url.hasPrefix("https://") else { throw Unavailable(description: "\(url) is not an https URL") }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "accept", value: "application/json")
        let response = try await client.execute(request, timeout: timeout)
        guard response.status == .ok else { throw Unavailable(description: "\(url) answered \(response.status.code)") }
        return Data(buffer: try await response.body.collect(upTo: answerLimit))
    }
}
