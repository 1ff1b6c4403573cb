import Contracts
import Foundation
import JSONRPC
import Logging
import Testing

@testable import GatewayApp
@testable import IdentityToolkit
@testable import ServiceKit

/// `mfaEnrollment:start|finalize` as the gateway decides them (contract §2.8-§2.9, decision 8):
/// the kind chosen by the request's members, its checks in order, what every kind shares.
@Suite("mfaEnrollment decisions")
struct MFAEnrollmentTests {
    let peers = ScriptedPeers()
    let harness: MFASignInFinalizeTests

    init() {
        harness = MFASignInFinalizeTests(peers: peers)
    }

    var operations: MFAEnrollmentOperations {
        let registry = peers.client(FactorRegistryAPI.self)
        let challenges = peers.client(ChallengeIssuerAPI.self)
        return MFAEnrollmentOperations(
            registry: registry, scopeSettings: CachedSettings(registry: registry), sessions: peers.client(SessionTokenAPI.self),
            challenges: challenges, kinds: harness.operations.kinds,
            recentLogin: RecentLogin(),
            mail: OutOfBandMail(
                registry: registry, challenges: challenges,
                links: OOBLinkBuilder(base: "http://127.0.0.1/emulator/action", fallbackAPIKey: "key"),
                settings: CachedSettings(registry: registry), forgetsUsedCodes: false
            ),
            logger: Logger(label: "test")
        )
    }

    static let start = "identitytoolkit.accounts.mfaEnrollment.start"
    static let finalize = "identitytoolkit.accounts.mfaEnrollment.finalize"

    /// The answer of `start` or `finalize` to `body`.
    func answer(_ operationId: String, _ body: JSONValue) async throws -> JSONValue {
        let request = try harness.request(body, operation: operationId)
        return try await operationId == Self.start ? operations.start(request) : operations.finalize(request)
    }

    func refusal(_ operationId: String, _ body: JSONValue) async -> IdentityToolkitError.Code? {
        do {
            _ = try await answer(operationId, body)
            return nil
        } catch let error as IdentityToolkitError {
            return error.code
        } catch {
            Issue.record("not an Identity Toolkit error: \(error)")
            return nil
        }
    }

    @Test("start: the kind must be enabled before anything about the user; then the user's checks")
    func startOrder() async {
        peers.facts.withLock {
            $0.settings.mfaConfig = MultiFactorConfig(state: .enabled, enabledProviders: ["PHONE_SMS"], providerConfigs: [])
        }
        #expect(await refusal(Self.start, ["totpEnrollmentInfo": [:]]) == .operationNotAllowed)
        #expect(await refusal(Self.start, ["phoneEnrollmentInfo": ["phoneNumber": "+15550100"]]) == .missingIDToken)
        peers.facts.withLock { $0.emailVerified = false }
        #expect(await refusal(Self.start, ["idToken": "token", "phoneEnrollmentInfo": ["phoneNumber": "+15550100"]]) == .unverifiedEmail)
    }

    @Test("start, phone: the member, the number's form, a number already enrolled, in that order")
    func startPhone() async {
        #expect(await refusal(Self.start, ["idToken": "token"]) == .invalidArgument)
        #expect(
            await refusal(Self.start, ["idToken": "token", "phoneEnrollmentInfo": ["phoneNumber": "555 0100"]]) == .invalidPhoneNumber)
        peers.facts.withLock {
            $0.enrollments = [Enrollment(mfaEnrollmentId: "p", kind: .phone, displayName: nil, phoneNumber: "+15550100", enrolledAt: "")]
        }
        #expect(
            await refusal(Self.start, ["idToken": "token", "phoneEnrollmentInfo": ["phoneNumber": "+15550100"]]) == .secondFactorExists
        )
    }

    @Test("start, TOTP: the secret and the session to finish with")
    func startTOTP() async throws {
        let answer = try await self.answer(Self.start, ["idToken": "token", "totpEnrollmentInfo": [:]])
        #expect(answer["totpSessionInfo"]?["sharedSecretKey"] == "JBSWY3DPEHPK3PXP")
        #expect(answer["totpSessionInfo"]?["sessionInfo"] == "totp-session")
    }

    @Test("finalize, TOTP: a sixth factor is refused before its code is checked")
    func limitBeforeCode() async {
        peers.facts.withLock { facts in
            facts.enrollments = (1...5).map {
                Enrollment(mfaEnrollmentId: "t\($0)", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")
            }
        }
        let body: JSONValue = ["idToken": "token", "totpVerificationInfo": ["sessionInfo": "totp-session", "verificationCode": "000000"]]
        #expect(await refusal(Self.finalize, body) == .secondFactorLimitExceeded)
        #expect(!peers.calls.contains(FinalizeTOTPEnrollment.name))
    }

    @Test("finalize, TOTP: the members in order, then the code; a right code records a TOTP factor and signs in with it")
    func finalizeTOTP() async throws {
        #expect(await refusal(Self.finalize, ["idToken": "token", "totpVerificationInfo": ["sessionInfo": "s"]]) == .missingCode)
        #expect(
            await refusal(Self.finalize, ["idToken": "token", "totpVerificationInfo": ["verificationCode": "1"]]) == .missingSessionInfo)
        let wrong: JSONValue = ["idToken": "token", "totpVerificationInfo": ["sessionInfo": "s", "verificationCode": "000000"]]
        #expect(await refusal(Self.finalize, wrong) == .invalidCode)
        let right: JSONValue = [
            "idToken": "token", "displayName": "Phone app", "totpVerificationInfo": ["sessionInfo": "s", "verificationCode": "123456"],
        ]
        let answer = try await self.answer(Self.finalize, right)
        #expect(answer["idToken"] == "id-token")
        let added = peers.facts.withLock { $0.added }
        #expect(added.map(\.kind) == [.totp])
        #expect(added.first?.displayName == "Phone app")
        #expect(added.first?.mfaEnrollmentId == FinalizeAttempt.enrollmentId(finishing: "s"))
    }

    @Test("finalize, phone: the factor recorded is the number the code proved")
    func finalizePhone() async throws {
        peers.facts.withLock { $0.provedNumber = "+15550177" }
        let body: JSONValue = ["idToken": "token", "phoneVerificationInfo": ["sessionInfo": "s", "code": "123456"]]
        _ = try await answer(Self.finalize, body)
        let added = peers.facts.withLock { $0.added }
        #expect(added.map(\.kind) == [.phone])
        #expect(added.first?.phoneNumber == "+15550177")
    }
}
