import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension DataServiceStatements {
    /// challenge-issuer's SMS statements against its own PostgreSQL, through its method table, in two
    /// scopes (the project and one of its tenants), with development mode's sink sender and outbox: a
    /// code sent is listed in its scope's outbox until it is used, a held message is delivered only in
    /// its own scope and by a route the deployment has, the pumping defence counts and pauses per scope
    /// and an operator resumes, and a `temporaryProof` is spent once, for its number and scope.
    @Suite("Phone verification statements (challenge-issuer, in-process, PostgreSQL, two scopes)")
    struct PhoneVerificationStatementTests {
        static let project = "phone-statements"
        static let number = "+447700900123"

        static func start(
            _ issuer: ServiceUnderTest, scope: String?, number: String = number, hold: Bool? = nil, testCode: String? = nil,
            defense: SMSDefenseConfig? = nil
        ) async throws -> StartPhoneVerification.Result {
            try await issuer.call(
                StartPhoneVerification.self,
                .init(
                    projectId: project, tenantId: scope, phoneNumber: number, purpose: .enroll, localId: "alice", testCode: testCode,
                    smsDefense: defense, holdDelivery: hold
                )
            )
        }

        static func verify(_ issuer: ServiceUnderTest, scope: String?, sessionInfo: String, code: String) async throws -> String? {
            try await issuer.refusal {
                let verified = try await issuer.call(
                    VerifyPhoneCode.self,
                    .init(projectId: project, tenantId: scope, sessionInfo: sessionInfo, code: code, purpose: .enroll, localId: "alice")
                )
                #expect(verified.phoneNumber == number)
            }
        }

        static func outbox(_ issuer: ServiceUnderTest, scope: String?) async throws -> [OutboxVerificationCode] {
            try await issuer.call(ListOutboxVerificationCodes.self, TenantScope(projectId: project, tenantId: scope)).verificationCodes
        }

        static func status(_ issuer: ServiceUnderTest, scope: String?) async throws -> GetSMSDefenseStatus.Result {
            try await issuer.call(GetSMSDefenseStatus.self, TenantScope(projectId: project, tenantId: scope))
        }

        @Test("a code sent is listed in its scope's outbox only, is used once, and then leaves the outbox; the day is counted per scope")
        func sentCodeListedUntilUsed() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let started = try await Self.start(issuer, scope: scope)
                    #expect(started.heldMessage == nil)
                    let listed = try await Self.outbox(issuer, scope: scope)
                    #expect(listed.map(\.sessionInfo) == [started.sessionInfo])
                    let sent = try #require(listed.first)
                    #expect(sent.phoneNumber == Self.number && sent.code.count == 6 && sent.code.allSatisfy(\.isNumber))
                    #expect(sent.text?.contains(sent.code) == true)
                    #expect(try await Self.outbox(issuer, scope: other).allSatisfy { $0.sessionInfo != started.sessionInfo })
                    // The session is this scope's: the other scope does not know it.
                    #expect(
                        try await Self.verify(issuer, scope: other, sessionInfo: started.sessionInfo, code: sent.code)
                            == "INVALID_SESSION_INFO"
                    )
                    let wrong = sent.code == "000000" ? "111111" : "000000"
                    #expect(try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: wrong) == "INVALID_CODE")
                    #expect(try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: sent.code) == nil)
                    #expect(
                        try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: sent.code)
                            == "INVALID_SESSION_INFO"
                    )
                    #expect(try await Self.outbox(issuer, scope: scope).isEmpty)
                    let today = try await Self.status(issuer, scope: scope)
                    #expect(today.today == [.init(region: "GB", sends: 1, verified: 1, spendUsd: 0.05)])
                    #expect(today.spendTodayUsd == 0.05 && today.spendThisMonthUsd == 0.05 && today.pausedRegions.isEmpty)
                    if scope == nil {
                        #expect(try await Self.status(issuer, scope: other).today.isEmpty)
                    }
                }
            }
        }

        @Test("a check that names its attempt keeps the used session: the same attempt is answered again, another is refused")
        func namedAttemptRetried() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let started = try await Self.start(issuer, scope: scope)
                    let sent = try #require(try await Self.outbox(issuer, scope: scope).first { $0.sessionInfo == started.sessionInfo })
                    let check = { (attempt: String) in
                        try await issuer.refusal {
                            let verified = try await issuer.call(
                                VerifyPhoneCode.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, sessionInfo: started.sessionInfo, code: sent.code,
                                    purpose: .enroll, localId: "alice", attempt: attempt)
                            )
                            #expect(verified.phoneNumber == Self.number)
                        }
                    }
                    // A finalize whose answer was lost is retried with the same attempt and answered again.
                    #expect(try await check("enrollment-1") == nil)
                    #expect(try await check("enrollment-1") == nil)
                    #expect(try await check("enrollment-2") == "INVALID_SESSION_INFO")
                    #expect(
                        try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: sent.code)
                            == "INVALID_SESSION_INFO")
                }
            }
        }

        @Test("a test number's fixed code is sent nowhere and counted nowhere, and still verifies once")
        func testNumberSendsNothing() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for scope in [nil, tenantId] {
                    let started = try await Self.start(issuer, scope: scope, hold: true, testCode: "123456")
                    #expect(started.heldMessage == nil)
                    #expect(try await Self.outbox(issuer, scope: scope).isEmpty)
                    #expect(try await Self.status(issuer, scope: scope).today.isEmpty)
                    #expect(try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: "123456") == nil)
                    #expect(
                        try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: "123456")
                            == "INVALID_SESSION_INFO")
                }
                let malformed = try await issuer.refusal { _ = try await Self.start(issuer, scope: nil, number: "07700 900123") }
                #expect(malformed == "INVALID_PHONE_NUMBER : Invalid format.")
            }
        }

        @Test("a held message is sent only by sms.deliver, in its own scope, by a route the deployment has")
        func heldMessageDeliveredInItsScope() async throws {
            try await TwoScopeServices.withRunning(
                project: Self.project, configuration: ["sms.routeNames": "eu", "sms.route.eu.sender": "sink"]
            ) { services, tenantId in
                let issuer = services[.challengeIssuer]
                for (scope, route) in [(nil, nil), (tenantId, "eu")] as [(String?, String?)] {
                    let other = scope == nil ? tenantId : nil
                    let started = try await Self.start(issuer, scope: scope, hold: true)
                    let held = try #require(started.heldMessage)
                    // Nothing went out yet; the gateway cannot read the code from what it carries.
                    #expect(try await Self.outbox(issuer, scope: scope).isEmpty)
                    let deliver = { (scope: String?, message: String, route: String?) in
                        try await issuer.refusal {
                            _ = try await issuer.call(
                                DeliverPhoneVerification.self,
                                .init(projectId: Self.project, tenantId: scope, heldMessage: message, route: route))
                        }
                    }
                    let invalid = "INVALID_ARGUMENT : the held message is not valid"
                    #expect(try await deliver(other, held, route) == invalid)
                    #expect(try await deliver(scope, String(held.dropLast(3)), route) == invalid)
                    #expect(try await deliver(scope, held, "us") == "INVALID_ARGUMENT : this deployment has no SMS route us")
                    #expect(try await Self.outbox(issuer, scope: scope).isEmpty)
                    #expect(try await Self.outbox(issuer, scope: other).isEmpty)
                    #expect(try await deliver(scope, held, route) == nil)
                    let sent = try await Self.outbox(issuer, scope: scope)
                    #expect(sent.map(\.sessionInfo) == [started.sessionInfo])
                    #expect(try await Self.verify(issuer, scope: scope, sessionInfo: started.sessionInfo, code: sent[0].code) == nil)
                }
            }
        }

        @Test("the pumping defence refuses past a scope's prefix limit and pauses on an anomaly in that scope only, until resumed")
        func defencePausesAndResumes() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                let strict = SMSDefenseConfig(prefixHourlyLimit: 2)
                // Two sends in the hour since the last resume, no history: the second trips the brake.
                let brake = SMSDefenseConfig(anomalyMinimumHourlySends: 2)
                let start = { (scope: String?, number: String, defense: SMSDefenseConfig?) in
                    try await issuer.refusal { _ = try await Self.start(issuer, scope: scope, number: number, defense: defense) }
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    #expect(try await start(scope, "+447700900001", strict) == nil)
                    #expect(try await start(scope, "+447700900002", strict) == nil)
                    #expect(try await start(scope, "+447700900003", strict) == "TOO_MANY_ATTEMPTS_TRY_LATER")
                    #expect(try await start(scope, "+33612345678", brake) == nil)
                    #expect(try await start(scope, "+33612345679", brake) == "QUOTA_EXCEEDED : Exceeded quota.")
                    // Paused: refused without the scope's settings too, until an operator resumes.
                    #expect(try await start(scope, "+33612345670", nil) == "QUOTA_EXCEEDED : Exceeded quota.")
                    let status = try await Self.status(issuer, scope: scope)
                    #expect(status.pausedRegions.map(\.region) == ["FR"] && status.pausedRegions.map(\.reason) == ["anomaly"])
                    #expect(
                        status.today == [
                            .init(region: "GB", sends: 2, verified: 0, spendUsd: 0.1),
                            .init(region: "FR", sends: 1, verified: 0, spendUsd: 0.05),
                        ])
                    if scope == nil {
                        #expect(try await Self.status(issuer, scope: other).pausedRegions.isEmpty)
                        #expect(
                            try await issuer.call(ResumeSMSRegion.self, .init(projectId: Self.project, tenantId: other, region: "FR"))
                                .wasPaused
                                == false)
                    }
                    #expect(
                        try await issuer.call(ResumeSMSRegion.self, .init(projectId: Self.project, tenantId: scope, region: "fr")).wasPaused
                    )
                    #expect(
                        try await issuer.call(ResumeSMSRegion.self, .init(projectId: Self.project, tenantId: scope, region: "FR")).wasPaused
                            == false)
                    #expect(try await Self.status(issuer, scope: scope).pausedRegions.isEmpty)
                    #expect(try await start(scope, "+33612345670", nil) == nil)
                    let refused = try await issuer.call(
                        ListSecurityEvents.self, .init(projectId: Self.project, tenantId: scope, types: ["sms.refused"], limit: 10))
                    #expect(refused.events.map { $0.details["reason"] ?? "" }.sorted() == ["anomaly", "paused", "prefix_velocity"])
                }
            }
        }

        @Test("a temporaryProof is spent once, for its own number and scope; a refused redeem spends nothing")
        func temporaryProofSpentOnce() async throws {
            try await TwoScopeServices.withRunning(project: Self.project) { services, tenantId in
                let issuer = services[.challengeIssuer]
                let redeem = { (scope: String?, number: String, proof: String) in
                    try await issuer.refusal {
                        _ = try await issuer.call(
                            RedeemPhoneProof.self,
                            .init(projectId: Self.project, tenantId: scope, phoneNumber: number, temporaryProof: proof))
                    }
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let proof = try await issuer.call(
                        IssuePhoneProof.self, .init(projectId: Self.project, tenantId: scope, phoneNumber: Self.number)
                    )
                    .temporaryProof
                    #expect(try await redeem(other, Self.number, proof) == "INVALID_TEMPORARY_PROOF")
                    #expect(try await redeem(scope, "+447700900999", proof) == "INVALID_TEMPORARY_PROOF")
                    #expect(try await redeem(scope, Self.number, "not-a-proof") == "INVALID_TEMPORARY_PROOF")
                    #expect(try await redeem(scope, Self.number, proof) == nil)
                    #expect(try await redeem(scope, Self.number, proof) == "INVALID_TEMPORARY_PROOF")
                }
                let malformed = try await issuer.refusal {
                    _ = try await issuer.call(IssuePhoneProof.self, .init(projectId: Self.project, phoneNumber: "12345"))
                }
                #expect(malformed == "INVALID_PHONE_NUMBER : Invalid format.")
            }
        }
    }

}
