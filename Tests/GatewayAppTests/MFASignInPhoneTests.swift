import Contracts
import Foundation
import JSONRPC
import Logging
import Testing

@testable import GatewayApp
@testable import IdentityToolkit
@testable import ServiceKit

/// `mfaSignIn:finalize` for SMS, as the gateway decides it (contract §2.12): the factor is the one
/// whose number the code proved, the members are checked in order, the credential before the code.
@Suite("mfaSignIn:finalize decisions (SMS)")
struct MFASignInPhoneTests {
    let peers = ScriptedPeers()
    let harness: MFASignInFinalizeTests

    init() {
        peers.facts.withLock {
            $0.enrollments = [
                Enrollment(mfaEnrollmentId: "phone-1", kind: .phone, displayName: nil, phoneNumber: "+15550100", enrolledAt: "")
            ]
        }
        harness = MFASignInFinalizeTests(peers: peers)
    }

    func phoneBody(
        _ credential: String?, info: JSONValue? = ["sessionInfo": "session", "code": "123456"], enrollmentId: String? = nil
    ) -> JSONValue {
        var body: [String: JSONValue] = [:]
        if let info { body["phoneVerificationInfo"] = info }
        if let credential { body["mfaPendingCredential"] = .string(credential) }
        if let enrollmentId { body["mfaEnrollmentId"] = .string(enrollmentId) }
        return .object(body)
    }

    @Test("the right code signs in with the factor whose number it proved, whatever mfaEnrollmentId says")
    func factorByNumber() async throws {
        let credential = try peers.sealedCredential()
        let body = phoneBody(credential, enrollmentId: "not-this-one")
        let answer = try await harness.operations.finalize(harness.request(body))
        #expect(answer["idToken"]?.stringValue == "id-token")
        #expect(peers.calls.contains("account.recordSignIn asynchronous"))
    }

    @Test("a code proving the masked number (iOS finishes with it) finds the factor")
    func maskedNumber() async throws {
        peers.facts.withLock { $0.provedNumber = PhoneNumber.masked("+15550100") }
        let credential = try peers.sealedCredential()
        let answer = try await harness.operations.finalize(harness.request(phoneBody(credential)))
        #expect(answer["refreshToken"]?.stringValue == "refresh-token")
    }

    @Test("the members in order: phoneVerificationInfo, no Android proof, MISSING_CODE, MISSING_SESSION_INFO")
    func membersInOrder() async throws {
        let credential = try peers.sealedCredential()
        #expect(await harness.refusal(phoneBody(credential, info: nil)) == .invalidArgument)
        #expect(await harness.refusal(phoneBody(credential, info: ["androidVerificationProof": "x"])) == nil)
        #expect(await harness.refusal(phoneBody(credential, info: ["sessionInfo": "session"])) == .missingCode)
        #expect(await harness.refusal(phoneBody(credential, info: ["code": "123456"])) == .missingSessionInfo)
        #expect(await harness.refusal(phoneBody(nil, info: nil)) == .missingCredential)
    }

    @Test("a used credential is refused as such before a wrong code; a number the account lacks is MFA_ENROLLMENT_NOT_FOUND")
    func refusalsInOrder() async throws {
        let credential = try peers.sealedCredential()
        peers.facts.withLock { $0.credentialUsed = true }
        #expect(await harness.refusal(phoneBody(credential, info: ["sessionInfo": "s", "code": "000000"])) == .invalidMFAPendingCredential)
        peers.facts.withLock {
            $0.credentialUsed = false
            $0.provedNumber = "+15550199"
        }
        #expect(await harness.refusal(phoneBody(credential)) == .mfaEnrollmentNotFound)
        #expect(!peers.calls.contains(IssueSession.name))
    }

    @Test("SMS off in the scope: OPERATION_NOT_ALLOWED, before anything about the credential")
    func smsDisabled() async throws {
        peers.facts.withLock {
            $0.settings.mfaConfig = MultiFactorConfig(
                state: .disabled, enabledProviders: [],
                providerConfigs: [MultiFactorProviderConfig(state: .enabled, totpProviderConfig: TOTPProviderConfig(adjacentIntervals: 5))]
            )
        }
        #expect(await harness.refusal(phoneBody(nil, info: nil)) == .operationNotAllowed)
    }
}
