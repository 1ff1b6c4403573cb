import Crypto
import Foundation
import HTTPTypes
import ServiceKit
import Testing

@Suite("Who may read /metrics")
struct MetricsAccessTests {
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func bearer(_ token: String?) -> HTTPFields {
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        return fields
    }

    @Test("production: the scraper's token or an admin's, nobody else")
    func production() {
        let admin = AdminAuthenticator(tokenHashesHex: [Self.hash("admin-token")], mode: .production)
        let access = MetricsAccess(tokenHashesHex: [Self.hash("scraper-token")], admin: admin)
        #expect(access.permits(Self.bearer("scraper-token")))
        #expect(access.permits(Self.bearer("admin-token")))
        #expect(!access.permits(Self.bearer(nil)))
        #expect(!access.permits(Self.bearer("owner")))
        #expect(!access.permits(Self.bearer("scraper-tokenx")))
    }

    @Test("production without a scraper token: admins only")
    func productionWithoutScraperToken() {
        let admin = AdminAuthenticator(tokenHashesHex: [Self.hash("admin-token")], mode: .production)
        let access = MetricsAccess(tokenHashesHex: [], admin: admin)
        #expect(!access.permits(Self.bearer(nil)))
        #expect(access.permits(Self.bearer("admin-token")))
    }

    @Test("development is open until a scraper token is configured")
    func development() {
        let admin = AdminAuthenticator(tokenHashesHex: [], mode: .development)
        #expect(MetricsAccess(tokenHashesHex: [], admin: admin).permits(Self.bearer(nil)))
        let guarded = MetricsAccess(tokenHashesHex: [Self.hash("scraper-token")], admin: admin)
        #expect(!guarded.permits(Self.bearer(nil)))
        #expect(guarded.permits(Self.bearer("scraper-token")))
    }
}
