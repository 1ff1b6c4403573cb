import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing

extension DataServiceStatements {
    /// session-token's statements over sessions' ends, against its own PostgreSQL, through its method
    /// table, in two scopes (the project and one of its tenants): a refresh token is inspected as its
    /// scope's, a rotated one presented again ends its family, inspections are limited per client
    /// address, and a deleted account's sessions and pending sign-ins are forgotten in its scope only.
    @Suite("Session lifecycle statements (session-token, in-process, PostgreSQL, two scopes)")
    struct SessionLifecycleStatementTests {
        static let project = "session-lifecycle"

        static func session(_ sessions: ServiceUnderTest, scope: String?, localId: String, factor: String? = nil) async throws -> String {
            try await sessions.call(
                IssueSession.self,
                .init(
                    projectId: project, tenantId: scope, localId: localId, signInProvider: .password,
                    secondFactor: factor.map { _ in .totp },
                    secondFactorIdentifier: factor, authTime: .now,
                    user: SessionUser(email: "\(localId)@example.com")
                )
            ).refreshToken
        }

        static func inspect(_ sessions: ServiceUnderTest, _ token: String, address: String? = nil) async throws -> String? {
            try await sessions.refusal {
                _ = try await sessions.call(InspectRefreshToken.self, .init(refreshToken: token, clientAddress: address))
            }
        }

        @Test("a refresh token is inspected as its scope's and user's; once rotated, presenting it again ends the family")
        func inspectedAndReuseDetected() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let sessions = services[.sessionToken]
                for scope in [nil, tenantId] {
                    let token = try await Self.session(sessions, scope: scope, localId: "alice", factor: "factor-1")
                    let inspected = try await sessions.call(InspectRefreshToken.self, .init(refreshToken: token))
                    #expect(inspected.projectId == Self.project && inspected.tenantId == scope && inspected.localId == "alice")
                    #expect(inspected.secondFactorIdentifier == "factor-1" && inspected.authTime != nil)
                    #expect(abs(inspected.signedInAt - EpochSeconds.now) < 60)
                    // Inspecting rotates nothing: the token still refreshes.
                    let rotated = try await sessions.call(
                        RefreshSession.self, .init(refreshToken: token, user: SessionUser(email: "alice@example.com"))
                    ).refreshToken
                    #expect(try await Self.inspect(sessions, rotated) == nil)
                    #expect(try await Self.inspect(sessions, token) == "INVALID_REFRESH_TOKEN")
                    // The replay cost the newest token its session too.
                    #expect(try await Self.inspect(sessions, rotated) == "INVALID_REFRESH_TOKEN")
                    let revoked = try await sessions.call(
                        ListSecurityEvents.self, .init(projectId: Self.project, tenantId: scope, types: ["tokenFamily.revoked"], limit: 10))
                    #expect(revoked.events.map(\.localId) == ["alice"])
                }
                #expect(try await Self.inspect(sessions, "not-a-token") == "INVALID_REFRESH_TOKEN")
            }
        }

        @Test("inspections are limited per client address; another address, or none, is not held back")
        func limitedPerAddress() async throws {
            try await TwoScopeServices.withRunning(
                project: Self.project, configuration: ["refresh.perAddress.burst": "3", "refresh.perAddress.perHour": "1"]
            ) {
                services, tenantId in
                let sessions = services[.sessionToken]
                let tokens = [
                    try await Self.session(sessions, scope: nil, localId: "alice"),
                    try await Self.session(sessions, scope: tenantId, localId: "alice"),
                ]
                // The budget is the address's, whichever scope its tokens are in.
                for token in tokens + [tokens[0]] { #expect(try await Self.inspect(sessions, token, address: "198.51.100.1") == nil) }
                #expect(try await Self.inspect(sessions, tokens[1], address: "198.51.100.1") == "TOO_MANY_ATTEMPTS_TRY_LATER")
                #expect(try await Self.inspect(sessions, tokens[1], address: "198.51.100.2") == nil)
                #expect(try await Self.inspect(sessions, tokens[1]) == nil)
            }
        }

        @Test("a deleted account's sessions and pending sign-ins are forgotten in its scope only; allAccounts forgets everyone's")
        func forgotten() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let sessions = services[.sessionToken]
                var alice: [String?: [String]] = [:]
                var bob: [String?: String] = [:]
                var pending: [String?: String] = [:]
                for scope in [nil, tenantId] {
                    alice[scope] = [
                        try await Self.session(sessions, scope: scope, localId: "alice"),
                        try await Self.session(sessions, scope: scope, localId: "alice"),
                    ]
                    bob[scope] = try await Self.session(sessions, scope: scope, localId: "bob")
                    pending[scope] = try await sessions.call(
                        IssuePendingCredential.self,
                        .init(projectId: Self.project, tenantId: scope, localId: "alice", signInProvider: .password)
                    ).mfaPendingCredential
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let forget = AccountsToForget(projectId: Self.project, tenantId: scope, localIds: ["alice", "nobody"])
                    #expect(try await sessions.call(ForgetAccountSessions.self, forget).deleted == 3)
                    #expect(try await sessions.call(ForgetAccountSessions.self, forget).deleted == 0)
                    for token in alice[scope]! { #expect(try await Self.inspect(sessions, token) == "INVALID_REFRESH_TOKEN") }
                    #expect(
                        try await sessions.refusal {
                            _ = try await sessions.call(InspectPendingCredential.self, .init(mfaPendingCredential: pending[scope]!))
                        } == "INVALID_MFA_PENDING_CREDENTIAL")
                    #expect(try await Self.inspect(sessions, bob[scope]!) == nil)
                    if scope == nil {
                        for token in alice[other]! { #expect(try await Self.inspect(sessions, token) == nil) }
                        _ = try await sessions.call(InspectPendingCredential.self, .init(mfaPendingCredential: pending[other]!))
                    }
                    #expect(
                        try await sessions.refusal {
                            _ = try await sessions.call(ForgetAccountSessions.self, .init(projectId: Self.project, tenantId: scope))
                        } == "Invalid params")
                }
                let everyone = AccountsToForget(projectId: Self.project, tenantId: tenantId, allAccounts: true)
                #expect(try await sessions.call(ForgetAccountSessions.self, everyone).deleted == 1)
                #expect(try await Self.inspect(sessions, bob[tenantId]!) == "INVALID_REFRESH_TOKEN")
                #expect(try await Self.inspect(sessions, bob[nil]!) == nil)
            }
        }
    }

}
