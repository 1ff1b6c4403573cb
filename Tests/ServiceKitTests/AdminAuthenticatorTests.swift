import Crypto
import Foundation
import HTTPTypes
import ServiceKit
import Testing

@Suite("Admin authentication")
struct AdminAuthenticatorTests {
    static let token = "correct horse battery staple"
    static let hash = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()

    static func headers(_ authorization: String?) -> HTTPFields {
        var fields = HTTPFields()
        if let authorization { fields[.authorization] = authorization }
        return fields
    }

    @Test("a configured token is accepted by its SHA-256; anything else is refused")
    func configuredToken() {
        let authenticator = AdminAuthenticator(tokenHashesHex: [Self.hash], mode: .production)
        #expect(authenticator.isAdmin(Self.headers("Bearer \(Self.token)")))
        #expect(authenticator.isAdmin(Self.headers("bearer \(Self.token)")))
        #expect(!authenticator.isAdmin(Self.headers("Bearer \(Self.token)x")))
        #expect(!authenticator.isAdmin(Self.headers("Basic \(Self.token)")))
        #expect(!authenticator.isAdmin(Self.headers("Bearer ")))
        #expect(!authenticator.isAdmin(Self.headers(nil)))
        #expect(!authenticator.isAdmin(Self.headers("Bearer owner")))
    }

    @Test("development mode also accepts the emulator's Bearer owner, in any case")
    func developmentOwner() {
        let authenticator = AdminAuthenticator(tokenHashesHex: [], mode: .development)
        #expect(authenticator.isAdmin(Self.headers("Bearer owner")))
        #expect(authenticator.isAdmin(Self.headers("BEARER OWNER")))
        #expect(!authenticator.isAdmin(Self.headers("Bearer owner2")))
    }

    @Test("constant-time comparison agrees with equality")
    func constantTimeEquals() {
        #expect(AdminAuthenticator.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!AdminAuthenticator.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!AdminAuthenticator.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(AdminAuthenticator.constantTimeEquals([], []))
    }
}
