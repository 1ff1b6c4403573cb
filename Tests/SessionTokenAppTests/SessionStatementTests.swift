import AuthVocabulary
import Contracts
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import SessionTokenApp
import Testing

/// session-token's statements against its own PostgreSQL, through its method table: a pending
/// credential used up in the statement that starts its session (decision 22's exact retry, and
/// nothing else), and refresh-token rotation with reuse detection (decision 2).
@Suite("Session statements (session-token, in-process, PostgreSQL)")
struct SessionStatementTests {
    static let project = "session-statements"

    static func withSessions(_ body: @Sendable (ServiceUnderTest) async throws -> Void) async throws {
        try await ServiceUnderTest.withRunning(.sessionToken, build: SessionTokenApp.build) { sessions in
            _ = try await sessions.call(ProvisionTenantSchema.self, TenantScope(projectId: project), as: .factorRegistry)
            try await body(sessions)
        }
    }

    static func pendingCredential(_ sessions: ServiceUnderTest, localId: String = "alice") async throws -> String {
        try await sessions.call(
            IssuePendingCredential.self, .init(projectId: project, localId: localId, signInProvider: .password)
        ).mfaPendingCredential
    }

    /// The `session.issue` a finalize makes: the second factor passed, the credential used up.
    static func finish(_ credential: String, localId: String = "alice") -> IssueSession.Params {
        IssueSession.Params(
            projectId: project, localId: localId, signInProvider: .password, secondFactor: .totp, secondFactorIdentifier: "factor-1",
            authTime: .now, user: SessionUser(email: "\(localId)@example.com"),
            consumePendingCredential: credential
        )
    }

    static func refresh(_ token: String, localId: String = "alice") -> RefreshSession.Params {
        RefreshSession.Params(
            refreshToken: token, user: SessionUser(email: "\(localId)@example.com"),
            account: .init(localId: localId, createdAt: nil, disabled: false, validSince: nil, secondFactors: ["factor-1"])
        )
    }

    @Test("a pending credential starts one session: the exact retry gets it back until it is used, then the credential is spent")
    func pendingCredentialUsedOnce() async throws {
        try await Self.withSessions { sessions in
            let credential = try await Self.pendingCredential(sessions)
            let first = try await sessions.call(IssueSession.self, Self.finish(credential))
            // A finalize whose answer was lost, retried: the same session, not a second one.
            let retried = try await sessions.call(IssueSession.self, Self.finish(credential))
            #expect(retried.refreshToken == first.refreshToken)
            // Once the session is used, the credential starts nothing more.
            _ = try await sessions.call(RefreshSession.self, Self.refresh(first.refreshToken))
            #expect(
                try await sessions.refusal { _ = try await sessions.call(IssueSession.self, Self.finish(credential)) }
                    == "INVALID_MFA_PENDING_CREDENTIAL"
            )
            #expect(
                try await sessions.refusal {
                    _ = try await sessions.call(InspectPendingCredential.self, .init(mfaPendingCredential: credential))
                } == "INVALID_MFA_PENDING_CREDENTIAL"
            )
        }
    }

    @Test("a pending credential is its user's: another uid cannot start a session with it")
    func pendingCredentialBelongsToItsUser() async throws {
        try await Self.withSessions { sessions in
            let credential = try await Self.pendingCredential(sessions, localId: "alice")
            #expect(
                try await sessions.refusal { _ = try await sessions.call(IssueSession.self, Self.finish(credential, localId: "mallory")) }
                    == "INVALID_MFA_PENDING_CREDENTIAL"
            )
            // The refusal used nothing up: alice's own finalize still works.
            _ = try await sessions.call(IssueSession.self, Self.finish(credential))
        }
    }

    @Test("parallel finalizes with one pending credential start one session")
    func parallelFinalizesStartOneSession() async throws {
        try await Self.withSessions { sessions in
            let credential = try await Self.pendingCredential(sessions)
            let tokens = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<8 {
                    group.addTask { try? await sessions.call(IssueSession.self, Self.finish(credential)).refreshToken }
                }
                return await group.reduce(into: Set<String>()) { if let token = $1 { $0.insert(token) } }
            }
            #expect(tokens.count == 1)
        }
    }

    @Test("an id that cannot be a project's or tenant's is TENANT_NOT_FOUND, by the one scope door")
    func malformedScope() async throws {
        try await Self.withSessions { sessions in
            for (project, tenant) in [("Bad_Project", nil), (Self.project, "bad tenant"), (Self.project, "x;DROP")] as [(String, String?)] {
                let refusal = try await sessions.refusal {
                    _ = try await sessions.call(
                        IssuePendingCredential.self,
                        .init(projectId: project, tenantId: tenant, localId: "alice", signInProvider: .password)
                    )
                }
                #expect(refusal == "TENANT_NOT_FOUND")
            }
            // A well-formed tenant whose schema this service does not hold: the same answer.
            let refusal = try await sessions.refusal {
                _ = try await sessions.call(
                    IssuePendingCredential.self,
                    .init(projectId: Self.project, tenantId: "unknown", localId: "alice", signInProvider: .password)
                )
            }
            #expect(refusal == "TENANT_NOT_FOUND")
        }
    }

    @Test("a rotated refresh token presented again ends its whole family")
    func refreshTokenReuseRevokesTheFamily() async throws {
        try await Self.withSessions { sessions in
            let started = try await sessions.call(IssueSession.self, Self.finish(try await Self.pendingCredential(sessions)))
            let rotated = try await sessions.call(RefreshSession.self, Self.refresh(started.refreshToken))
            #expect(rotated.refreshToken != started.refreshToken)
            #expect(rotated.localId == "alice")
            #expect(
                try await sessions.refusal { _ = try await sessions.call(RefreshSession.self, Self.refresh(started.refreshToken)) }
                    == "INVALID_REFRESH_TOKEN"
            )
            // The thief's replay cost the holder of the newest token its session too.
            #expect(
                try await sessions.refusal { _ = try await sessions.call(RefreshSession.self, Self.refresh(rotated.refreshToken)) }
                    == "INVALID_REFRESH_TOKEN"
            )
        }
    }

    @Test("a refresh checks the account in contract order: disabled, then revoked by validSince")
    func refreshChecksTheAccount() async throws {
        try await Self.withSessions { sessions in
            let started = try await sessions.call(IssueSession.self, Self.finish(try await Self.pendingCredential(sessions)))
            var disabled = Self.refresh(started.refreshToken)
            disabled.account?.disabled = true
            #expect(try await sessions.refusal { _ = try await sessions.call(RefreshSession.self, disabled) } == "USER_DISABLED")
            var revoked = Self.refresh(started.refreshToken)
            revoked.account?.validSince = .now + 60
            #expect(try await sessions.refusal { _ = try await sessions.call(RefreshSession.self, revoked) } == "TOKEN_EXPIRED")
        }
    }

    @Test("a passkey's session says phishing-resistant and names its passkey through every refresh, and ends with it")
    func passkeySessionNamesItsPasskey() async throws {
        try await Self.withSessions { sessions in
            let started = try await sessions.call(
                IssueSession.self,
                .init(
                    projectId: Self.project, localId: "alice", signInProvider: .passkey, authTime: .now,
                    user: SessionUser(email: "alice@example.com"), secondFactorAuthTime: .now,
                    firstFactorIdentifier: "passkey:cred-1"
                )
            )
            let refreshed = try await sessions.call(RefreshSession.self, Self.refresh(started.refreshToken))
            for token in [started.idToken, refreshed.idToken] {
                let verified = try await sessions.call(VerifyIDToken.self, .init(idToken: token))
                #expect(verified.firstFactorIdentifier == "passkey:cred-1")
                #expect(verified.secondFactor == nil)
                #expect(try Self.payload(token)["acr"] == .string("phr"))
            }
            // A password sign-in is not phishing-resistant and names no first factor.
            let password = try await sessions.call(IssueSession.self, Self.finish(try await Self.pendingCredential(sessions)))
            #expect(try Self.payload(password.idToken)["acr"] == nil)
            #expect(try await sessions.call(VerifyIDToken.self, .init(idToken: password.idToken)).firstFactorIdentifier == nil)
            // Deleting the passkey ends its session, and only its own.
            _ = try await sessions.call(
                RevokeFactorSessions.self, .init(projectId: Self.project, localId: "alice", secondFactorIdentifier: "passkey:cred-1")
            )
            #expect(
                try await sessions.refusal { _ = try await sessions.call(RefreshSession.self, Self.refresh(refreshed.refreshToken)) }
                    == "TOKEN_EXPIRED"
            )
            _ = try await sessions.call(RefreshSession.self, Self.refresh(password.refreshToken))
        }
    }

    /// The claims of an ID token, unverified (session.verifyIdToken checked it).
    static func payload(_ token: String) throws -> [String: JSONValue] {
        let part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let padded = part + String(repeating: "=", count: (4 - part.count % 4) % 4)
        return try JSONDecoder().decode([String: JSONValue].self, from: Data(base64Encoded: padded) ?? Data())
    }
}
