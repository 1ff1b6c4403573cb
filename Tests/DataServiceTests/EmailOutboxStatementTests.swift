import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing

extension DataServiceStatements {
    /// challenge-issuer's email delivery and the development outbox the emulator's `oobCodes` route
    /// reads, against its own PostgreSQL, through its method table, in two scopes (the project and one
    /// of its tenants): a message sent is kept, rendered, in its own scope's outbox, oldest first; a
    /// used code leaves it, in that scope only; a sender that cannot deliver is reported as such.
    @Suite("Email outbox statements (challenge-issuer, in-process, PostgreSQL, two scopes)")
    struct EmailOutboxStatementTests {
        static let project = "email-outbox"

        static func send(
            _ issuer: ServiceUnderTest, scope: String?, _ type: OOBRequestType, to email: String, code: String, newEmail: String? = nil
        ) async throws -> SendEmail.Result {
            try await issuer.call(
                SendEmail.self,
                .init(
                    projectId: project, tenantId: scope, requestType: type, email: email, oobCode: code,
                    oobLink: "https://example.com/action?oobCode=\(code)", newEmail: newEmail
                )
            )
        }

        static func outbox(_ issuer: ServiceUnderTest, scope: String?) async throws -> [OutboxOOBCode] {
            try await issuer.call(ListOutboxOOBCodes.self, TenantScope(projectId: project, tenantId: scope)).oobCodes
        }

        @Test("a message sent is kept, rendered, in its scope's outbox until its code is used, and a used code leaves that scope's only")
        func keptUntilUsed() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                // The same code in both scopes: forgetting it in one must leave the other's.
                for scope in [nil, tenantId] {
                    #expect(
                        try await Self.send(issuer, scope: scope, .passwordReset, to: "alice@example.com", code: "code-1").sender == "sink")
                    _ = try await Self.send(
                        issuer, scope: scope, .verifyAndChangeEmail, to: "new@example.com", code: "code-2", newEmail: "new@example.com")
                    // Without `newEmail` a change of address names the address it went to.
                    _ = try await Self.send(issuer, scope: scope, .verifyAndChangeEmail, to: "other@example.com", code: "code-3")
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let kept = try await Self.outbox(issuer, scope: scope)
                    #expect(kept.map(\.oobCode) == ["code-1", "code-2", "code-3"])
                    #expect(kept.map(\.requestType) == [.passwordReset, .verifyAndChangeEmail, .verifyAndChangeEmail])
                    let reset = try #require(kept.first)
                    #expect(reset.email == "alice@example.com" && reset.oobLink == "https://example.com/action?oobCode=code-1")
                    #expect(reset.subject?.isEmpty == false && reset.locale == "en")
                    // No operator HTML template is configured: plain text only.
                    #expect(reset.text?.contains(reset.oobLink) == true && reset.html == nil)
                    // A change of address names the new one (the emulator's `newEmail`), which is where the message went.
                    #expect(kept.map(\.newEmail) == [nil, "new@example.com", "other@example.com"])
                    let forget = ForgetOutboxOOBCode.Params(projectId: Self.project, tenantId: scope, oobCode: "code-1")
                    _ = try await issuer.call(ForgetOutboxOOBCode.self, forget)
                    _ = try await issuer.call(ForgetOutboxOOBCode.self, forget)
                    #expect(try await Self.outbox(issuer, scope: scope).map(\.oobCode) == ["code-2", "code-3"])
                    if scope == nil {
                        #expect(try await Self.outbox(issuer, scope: other).map(\.oobCode) == ["code-1", "code-2", "code-3"])
                    }
                    // Only the gateway reads or changes the outbox.
                    #expect(
                        try await issuer.refusal {
                            _ = try await issuer.call(
                                ListOutboxOOBCodes.self, TenantScope(projectId: Self.project, tenantId: scope), as: .sessionToken)
                        } == "Caller not allowed")
                }
                #expect(
                    try await issuer.refusal { _ = try await Self.outbox(issuer, scope: "unknown") } == "TENANT_NOT_FOUND")
            }
        }

        @Test("a sender that cannot deliver is code 1110 and names itself; the outbox still shows what was attempted")
        func undeliverable() async throws {
            // SMTP chosen but no server configured: every send fails, visibly, without leaving the machine.
            try await TwoScopeServices.withRunning(project: Self.project, configuration: ["email.sender": "smtp"]) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    do {
                        _ = try await Self.send(issuer, scope: scope, .verifyEmail, to: "alice@example.com", code: "code-3")
                        Issue.record("an unconfigured sender delivered")
                    } catch let error as RPCError {
                        #expect(error.code == .deliveryFailed)
                        #expect(error.message == "The none sender could not deliver the message")
                    }
                    #expect(try await Self.outbox(issuer, scope: scope).map(\.oobCode) == ["code-3"])
                }
            }
        }
    }

}
