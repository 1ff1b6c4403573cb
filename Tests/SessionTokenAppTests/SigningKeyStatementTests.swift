import Foundation
import ServiceKit
import ServiceTesting
import Testing

@testable import SessionTokenApp

/// session-token's signing keys in its own PostgreSQL, with the keyring its key refresh uses: a key
/// superseded longer ago than the retention is deleted, and every key a verifier may still meet stays.
@Suite("Signing key statements (session-token, in-process, PostgreSQL)")
struct SigningKeyStatementTests {
    @Test("a refresh deletes only the keys no verifier can need: superseded longer than the retention ago")
    func expiredKeysDeleted() async throws {
        try await ServiceUnderTest.withRunning(.sessionToken, build: SessionTokenApp.build) { sessions in
            let database = try #require(sessions.host.database)
            let settings = SessionTokenSettings(sessions.host)
            let masterKey = try SecretSealer.masterKey(base64: settings.masterKeyBase64, file: settings.masterKeyFile)
            let repository = SigningKeyRepository(
                client: database, sealer: SecretSealer(masterKey: masterKey), logger: sessions.host.logger)
            let keyring = SigningKeyring(repository: repository, rotationLead: 0, retention: 60)
            try await keyring.prepare()
            let first = try #require(keyring.signer())
            let now = Date()
            let second = try await keyring.rotate(now: now)
            // Superseded just now: still published for the retention, so nothing is deleted.
            #expect(keyring.expired(at: now + 30).isEmpty)
            try await repository.delete(kids: keyring.expired(at: now + 30).map(\.kid))
            #expect(try await repository.all().map(\.kid).sorted() == [first.kid, second.kid].sorted())
            // Past the retention the first key goes, from the store too; the signer stays.
            #expect(keyring.expired(at: now + 120).map(\.kid) == [first.kid])
            try await repository.delete(kids: keyring.expired(at: now + 120).map(\.kid))
            try await keyring.reload()
            #expect(try await repository.all().map(\.kid) == [second.kid])
            #expect(keyring.signer(at: now + 120)?.kid == second.kid)
        }
    }
}
