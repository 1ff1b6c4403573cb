import ChallengeIssuerApp
import Contracts
import ServiceKit
import ServiceTesting
import Testing

/// challenge-issuer's WebAuthn challenges (issue 59) against its own PostgreSQL, through its method
/// table, in two scopes: issued once, redeemed once (64 racers, one winner), bound to their
/// purpose, user and scope, and timing out with their own error.
@Suite("Passkey challenges (challenge-issuer, in-process, PostgreSQL)")
struct PasskeyChallengeTests {
    static let project = "passkey-challenges"
    static let tenant = "t-passkeys"

    static func withIssuer(_ body: @Sendable (ServiceUnderTest) async throws -> Void) async throws {
        try await ServiceUnderTest.withRunning(
            .challengeIssuer, build: ChallengeIssuerApp.build,
            configuration: ["passkeys.rateLimit.perAddress.burst": "3", "passkeys.rateLimit.perAddress.perHour": "1"]
        ) { issuer in
            _ = try await issuer.call(ProvisionTenantSchema.self, TenantScope(projectId: project), as: .factorRegistry)
            _ = try await issuer.call(ProvisionTenantSchema.self, TenantScope(projectId: project, tenantId: tenant), as: .factorRegistry)
            try await body(issuer)
        }
    }

    static func redeem(
        _ issuer: ServiceUnderTest, _ challenge: String, purpose: PasskeyPurpose = .enroll, localId: String? = "alice",
        tenantId: String? = nil
    ) async throws -> String? {
        try await issuer.refusal {
            _ = try await issuer.call(
                RedeemPasskeyChallenge.self,
                .init(projectId: project, tenantId: tenantId, purpose: purpose, localId: localId, challenge: challenge)
            )
        }
    }

    @Test("a challenge is 32 random bytes, stored only as a hash, and redeemed once")
    func once() async throws {
        try await Self.withIssuer { issuer in
            let issued = try await issuer.call(
                IssuePasskeyChallenge.self, .init(projectId: Self.project, purpose: .enroll, localId: "alice"))
            #expect(Base64URL.decode(issued.challenge)?.count == 32 && issued.timeoutMs == 300_000)
            let stored = try await issuer.rows(
                "SELECT encode(challenge_hash, 'base64') FROM \"p_\(Self.project)\".passkey_challenges", as: String.self)
            #expect(stored.count == 1 && !stored.contains(issued.challenge))
            #expect(try await Self.redeem(issuer, issued.challenge) == nil)
            #expect(try await Self.redeem(issuer, issued.challenge) == "INVALID_AUTHENTICATOR_RESPONSE")
            #expect(try await Self.redeem(issuer, "not-a-challenge") == "INVALID_AUTHENTICATOR_RESPONSE")
        }
    }

    @Test("another user's, another ceremony's or another scope's challenge is refused, and burned")
    func bound() async throws {
        try await Self.withIssuer { issuer in
            let issue = { (purpose: PasskeyPurpose, localId: String?) in
                try await issuer.call(IssuePasskeyChallenge.self, .init(projectId: Self.project, purpose: purpose, localId: localId))
                    .challenge
            }
            let alices = try await issue(.enroll, "alice")
            #expect(try await Self.redeem(issuer, alices, localId: "mallory") == "INVALID_AUTHENTICATOR_RESPONSE")
            #expect(try await Self.redeem(issuer, alices) == "INVALID_AUTHENTICATOR_RESPONSE")
            let signIn = try await issue(.signIn, nil)
            #expect(try await Self.redeem(issuer, signIn, purpose: .enroll) == "INVALID_AUTHENTICATOR_RESPONSE")
            let projects = try await issue(.signIn, nil)
            #expect(
                try await Self.redeem(issuer, projects, purpose: .signIn, localId: nil, tenantId: Self.tenant)
                    == "INVALID_AUTHENTICATOR_RESPONSE")
            #expect(try await Self.redeem(issuer, projects, purpose: .signIn, localId: nil) == nil)
        }
    }

    @Test("an expired challenge times out, once")
    func expiry() async throws {
        try await Self.withIssuer { issuer in
            let issued = try await issuer.call(
                IssuePasskeyChallenge.self, .init(projectId: Self.project, purpose: .enroll, localId: "alice"))
            _ = try await issuer.rows(
                "UPDATE \"p_\(Self.project)\".passkey_challenges SET expires_at = now() - interval '1 second' RETURNING 1", as: Int.self)
            #expect(try await Self.redeem(issuer, issued.challenge) == "PASSKEY_CHALLENGE_TIMEOUT")
            #expect(try await Self.redeem(issuer, issued.challenge) == "INVALID_AUTHENTICATOR_RESPONSE")
        }
    }

    @Test("of 64 redemptions at once, exactly one wins")
    func racers() async throws {
        try await Self.withIssuer { issuer in
            let issued = try await issuer.call(IssuePasskeyChallenge.self, .init(projectId: Self.project, purpose: .signIn))
            let challenge = issued.challenge
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<64 {
                    group.addTask { try await Self.redeem(issuer, challenge, purpose: .signIn, localId: nil) == nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
        }
    }

    static func ask(_ issuer: ServiceUnderTest, from address: String) async throws -> String? {
        try await issuer.refusal {
            _ = try await issuer.call(IssuePasskeyChallenge.self, .init(projectId: project, purpose: .signIn, clientAddress: address))
        }
    }

    @Test("a client address gets its burst of challenges, then TOO_MANY_ATTEMPTS_TRY_LATER; another address is not held up")
    func perAddress() async throws {
        try await Self.withIssuer { issuer in
            var answers: [String?] = []
            for _ in 0..<4 { answers.append(try await Self.ask(issuer, from: "192.0.2.7")) }
            #expect(answers == [nil, nil, nil, "TOO_MANY_ATTEMPTS_TRY_LATER"])
            let elsewhere = try await Self.ask(issuer, from: "198.51.100.1")
            #expect(elsewhere == nil)
        }
    }
}
