import Crypto
import Foundation
import ServiceKit
import Testing

@Suite("Sealed tokens")
struct TokenSealTests {
    static let key = TokenSealKey(masterKey: SymmetricKey(size: .bits256))
    static let facts = SealedPendingCredential(
        projectId: "demo-project", tenantId: "tenant-a", localId: "uid-1", signInProvider: .password, expiresAt: 1_800_000_000
    )

    @Test("the facts come back out with the key they were sealed with")
    func roundTrip() throws {
        let text = try Self.facts.seal(with: Self.key)
        #expect(SealedPendingCredential.open(text, keys: [Self.key]) == Self.facts)
        #expect(SealedPendingCredential.keyID(of: text) == Self.key.id)
        // Each credential is unique even for the same facts (a fresh nonce).
        #expect(try Self.facts.seal(with: Self.key) != text)
    }

    @Test("another key, an altered byte or a moved scope opens nothing")
    func tampering() throws {
        let text = try Self.facts.seal(with: Self.key)
        #expect(SealedPendingCredential.open(text, keys: [TokenSealKey(masterKey: SymmetricKey(size: .bits256))]) == nil)
        let parts = text.split(separator: ".").map(String.init)
        var secret = Array(parts[1])
        secret[20] = secret[20] == "A" ? "B" : "A"
        #expect(SealedPendingCredential.open(parts[0] + "." + String(secret), keys: [Self.key]) == nil)
        let otherScope = Data("demo-project/tenant-b".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(SealedPendingCredential.open(otherScope + "." + parts[1], keys: [Self.key]) == nil)
        #expect(SealedPendingCredential.open("not-a-credential", keys: [Self.key]) == nil)
    }

    @Test("a key handed over as base64 is the same key")
    func handover() throws {
        let received = try #require(TokenSealKey(base64: Self.key.base64))
        #expect(received.id == Self.key.id)
        #expect(SealedPendingCredential.open(try Self.facts.seal(with: Self.key), keys: [received]) == Self.facts)
        #expect(TokenSealKey(base64: "c2hvcnQ=") == nil)
    }

    @Test("a refresh token names its user; one derived from the same seed is the same token")
    func refreshTokens() throws {
        let named = SealedRefreshToken(projectId: "demo-project", tenantId: nil, localId: "uid-2")
        let random = try named.seal(with: Self.key)
        #expect(SealedRefreshToken.open(random, keys: [Self.key]) == named)
        #expect(try named.seal(with: Self.key) != random)
        let seed = Data((0..<32).map { UInt8($0) })
        #expect(try named.seal(with: Self.key, derivedFrom: seed) == named.seal(with: Self.key, derivedFrom: seed))
        #expect(try named.seal(with: Self.key, derivedFrom: seed) != named.seal(with: Self.key, derivedFrom: Data(seed.reversed())))
    }

    @Test("a pending credential does not open as a refresh token, nor the other way round")
    func kindsStayApart() throws {
        let credential = try Self.facts.seal(with: Self.key)
        #expect(SealedRefreshToken.open(credential, keys: [Self.key]) == nil)
        let refresh = try SealedRefreshToken(projectId: "demo-project", tenantId: "tenant-a", localId: "uid-1").seal(with: Self.key)
        #expect(SealedPendingCredential.open(refresh, keys: [Self.key]) == nil)
    }
}
