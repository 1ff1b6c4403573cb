import AuthVocabulary
import Contracts
import Crypto
import DataServiceTesting
import Foundation
import JSONRPC
import ServiceKit
import ServiceTesting
import Testing

extension DataServiceStatements {
    /// challenge-issuer's iOS app verification against its own PostgreSQL, through its method table,
    /// with a loopback stand-in for APNs: `ios.issueReceipt` stores a receipt and sends its secret in
    /// a silent push to the device; an SMS request in the project or any of its tenants passes the app
    /// check once with the pair (decision 10); a wrong secret burns the receipt; pushes are limited per
    /// client address; a push APNs refuses is code 1110.
    @Suite("iOS receipt statements (challenge-issuer, in-process, PostgreSQL, loopback APNs, two scopes)")
    struct IosReceiptStatementTests {
        static let project = "ios-receipts"

        /// The services with APNs pointed at `apns` and the emulator's free pass off, so that an SMS
        /// request needs an app proof.
        static func withIssuer(
            _ apns: APNsStandIn, _ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void
        ) async throws {
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("apns-\(UUID().uuidString).p8")
            try P256.Signing.PrivateKey().pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: keyFile) }
            try await TwoScopeServices.withRunning(
                project: project,
                configuration: [
                    "appVerification.emulator": "false", "appVerification.apns.keyId": "KEY1234567",
                    "appVerification.apns.teamId": "TEAM123456", "appVerification.apns.keyFile": keyFile.path,
                    "appVerification.apns.bundleId": "com.example.app", "appVerification.apns.productionUrl": apns.baseURL("/production"),
                    "appVerification.apns.sandboxUrl": apns.baseURL("/sandbox"), "appVerification.ios.rateLimit.perAddress.burst": "2",
                    "appVerification.ios.rateLimit.perAddress.perHour": "1",
                ]
            ) { services, tenantId in
                try await body(services[.challengeIssuer], tenantId)
            }
        }

        static func issue(
            _ issuer: ServiceUnderTest, tenantId: String? = nil, token: String = "aabbccdd", sandbox: Bool = false, address: String? = nil
        ) async throws -> IssueIosReceipt.Result {
            try await issuer.call(
                IssueIosReceipt.self,
                .init(projectId: project, tenantId: tenantId, appToken: token, isSandbox: sandbox, clientAddress: address))
        }

        /// The receipt and secret the push carried.
        static func delivered(_ push: APNsStandIn.Push) throws -> (receipt: String, secret: String) {
            let object = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
            let auth = try #require(object["com.google.firebase.auth"] as? [String: String])
            return (try #require(auth["receipt"]), try #require(auth["secret"]))
        }

        static func pair(_ receipt: String, _ secret: String) -> AppVerificationProof {
            AppVerificationProof(recaptchaToken: nil, iosReceipt: receipt, iosSecret: secret, safetyNetToken: nil, playIntegrityToken: nil)
        }

        /// An SMS request's refusal with `proof`; `nil`: the app check passed and the code was sent.
        static func smsStart(_ issuer: ServiceUnderTest, scope: String?, proof: AppVerificationProof?) async throws -> String? {
            try await issuer.refusal {
                _ = try await issuer.call(
                    StartPhoneVerification.self,
                    .init(
                        projectId: project, tenantId: scope, phoneNumber: "+447700900123", purpose: .enroll, localId: "alice", proof: proof)
                )
            }
        }

        @Test("a receipt's secret goes only in the push; the pair passes one SMS request, in the project or its tenant, whoever asked")
        func receiptPassesOnce() async throws {
            let apns = try APNsStandIn()
            defer { apns.stop() }
            try await Self.withIssuer(apns) { issuer, tenantId in
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let sandbox = scope == nil
                    // A receipt asked for with the tenant's id is the project's app's all the same.
                    let issued = try await Self.issue(issuer, tenantId: scope, sandbox: sandbox)
                    #expect(issued.suggestedTimeout == 5)
                    let push = try #require(apns.received.last)
                    #expect(push.path == (sandbox ? "/sandbox" : "/production") + "/3/device/aabbccdd")
                    #expect(push.headers["apns-topic"] == "com.example.app" && push.headers["apns-push-type"] == "background")
                    #expect(push.headers["authorization"]?.hasPrefix("bearer ") == true)
                    let (receipt, secret) = try Self.delivered(push)
                    #expect(receipt == issued.receipt && !secret.isEmpty)
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: nil) == "MISSING_APP_CREDENTIAL")
                    let pair = Self.pair(receipt, secret)
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: pair) == nil)
                    // Used: not again, in this scope or the other.
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: pair) == "INVALID_APP_CREDENTIAL")
                    #expect(try await Self.smsStart(issuer, scope: other, proof: pair) == "INVALID_APP_CREDENTIAL")
                }
                #expect(apns.received.count == 2)
            }
        }

        @Test("a wrong secret burns its receipt; a receipt the server never made is refused")
        func wrongSecretBurnsTheReceipt() async throws {
            let apns = try APNsStandIn()
            defer { apns.stop() }
            try await Self.withIssuer(apns) { issuer, tenantId in
                for scope in [nil, tenantId] {
                    _ = try await Self.issue(issuer)
                    let (receipt, secret) = try Self.delivered(try #require(apns.received.last))
                    let guess = Self.pair(receipt, secret + "x")
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: guess) == "INVALID_APP_CREDENTIAL")
                    let right = Self.pair(receipt, secret)
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: right) == "INVALID_APP_CREDENTIAL")
                    let madeUp = Self.pair(Base64URL.random(byteCount: 32), secret)
                    #expect(try await Self.smsStart(issuer, scope: scope, proof: madeUp) == "INVALID_APP_CREDENTIAL")
                }
            }
        }

        @Test("pushes are limited per client address, and a push APNs refuses is code 1110")
        func limitedAndRefused() async throws {
            let apns = try APNsStandIn(refusing: ["dead0000"])
            defer { apns.stop() }
            try await Self.withIssuer(apns) { issuer, _ in
                _ = try await Self.issue(issuer, address: "203.0.113.7")
                _ = try await Self.issue(issuer, address: "203.0.113.7")
                let limited = try await issuer.refusal { _ = try await Self.issue(issuer, address: "203.0.113.7") }
                #expect(limited == "TOO_MANY_ATTEMPTS_TRY_LATER")
                // The refused request sent nothing; another address still may.
                #expect(apns.received.count == 2)
                _ = try await Self.issue(issuer, address: "203.0.113.8")
                for token in ["dead0000", "not-hex"] {
                    do {
                        _ = try await Self.issue(issuer, token: token)
                        Issue.record("a push to \(token) was reported delivered")
                    } catch let error as RPCError {
                        #expect(error.code == .deliveryFailed && error.message == "The APNs sender could not deliver the push")
                    }
                }
                // A token that is not hexadecimal never reaches APNs.
                #expect(apns.received.map(\.path).last == "/production/3/device/dead0000")
            }
        }
    }

}
