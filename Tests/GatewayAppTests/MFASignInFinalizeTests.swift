import Contracts
import Foundation
import JSONRPC
import Logging
import Testing

@testable import GatewayApp
@testable import IdentityToolkit
@testable import ServiceKit

/// `mfaSignIn:finalize` for TOTP, as the gateway decides it (contract §2.12): the order of its
/// refusals and the calls it makes, against scripted peers.
@Suite("mfaSignIn:finalize decisions (TOTP)")
struct MFASignInFinalizeTests {
    let peers: ScriptedPeers

    init() { peers = ScriptedPeers() }

    /// The same operations against peers another suite scripted.
    init(peers: ScriptedPeers) { self.peers = peers }

    var operations: MFASignInOperations {
        let registry = peers.client(FactorRegistryAPI.self)
        let sessions = peers.client(SessionTokenAPI.self)
        let challenges = peers.client(ChallengeIssuerAPI.self)
        return MFASignInOperations(
            registry: registry, sessions: sessions, challenges: challenges,
            phone: PhoneChallenges(
                challenges: challenges, registry: registry, scopeSettings: CachedSettings(registry: registry),
                functions: .scripted(registry: registry, sessions: sessions, settings: CachedSettings(registry: registry))
            ),
            keys: TokenSealKeys(sessions: sessions),
            cachedSettings: CachedSettings(registry: registry),
            recoveryNotice: RecoveryCodeNotice(
                mail: OutOfBandMail(
                    registry: registry, challenges: challenges,
                    links: OOBLinkBuilder(base: "http://127.0.0.1/emulator/action", fallbackAPIKey: "key"),
                    settings: CachedSettings(registry: registry), forgetsUsedCodes: false
                ),
                logger: Logger(label: "test")
            )
        )
    }

    /// `body` as the gateway hands it to the handler of `operation` (its id in the discovery document).
    func request(
        _ body: JSONValue, operation: String = "identitytoolkit.accounts.mfaSignIn.finalize", projectId: String = "demo-project"
    ) throws -> PublicRequest {
        PublicRequest(
            operation: Discovery.operation(operation),
            pathParameters: [:], body: try Discovery.body(body, of: operation), query: [:], caller: .apiKey(projectId: projectId),
            apiKey: "key",
            requestID: "test", clientAddress: "127.0.0.1", logger: Logger(label: "test"), defaultProjectId: projectId
        )
    }

    func totpBody(_ credential: String?, enrollment: String? = "totp-1", code: String? = "123456") -> JSONValue {
        var body: [String: JSONValue] = ["totpVerificationInfo": code.map { ["verificationCode": .string($0)] } ?? [:]]
        if let credential { body["mfaPendingCredential"] = .string(credential) }
        if let enrollment { body["mfaEnrollmentId"] = .string(enrollment) }
        return .object(body)
    }

    /// The business error code `finalize` answers with (`nil` for any other error, or none).
    func refusal(_ body: JSONValue, projectId: String = "demo-project") async -> IdentityToolkitError.Code? {
        do {
            _ = try await operations.finalize(request(body, projectId: projectId))
            return nil
        } catch let error as IdentityToolkitError {
            if error.code == nil { #expect(error.httpStatus == 501, "\(error)") }
            return error.code
        } catch {
            Issue.record("not an Identity Toolkit error: \(error)")
            return nil
        }
    }

    @Test("a sealed credential and the right code sign in with two hops: the check beside the account, then the session beside the record")
    func twoHops() async throws {
        let credential = try peers.sealedCredential()
        // The settings and the seal key are read once and then cached; the hops are what is left.
        _ = await refusal(totpBody(credential, code: "000000"))
        peers.facts.withLock { $0.credentialUsed = false }
        peers.forgetCalls()
        let answer = try await operations.finalize(request(totpBody(credential)))
        #expect(answer["idToken"]?.stringValue == "id-token")
        let calls = peers.calls.filter { $0 != ResolveSettings.name }
        #expect(Set(calls.prefix(2)) == ["totp.verify", "account.checkFactor"])
        #expect(Set(calls.dropFirst(2)) == ["session.issue", "account.recordSignIn asynchronous"])
        #expect(!calls.contains(InspectPendingCredential.name))
    }

    @Test("the contract's order: PROJECT_DISABLED, then TOTP off, then the missing credential, enrollment and code")
    func requestChecksInOrder() async throws {
        let credential = try peers.sealedCredential()
        #expect(await refusal(totpBody(nil, enrollment: nil, code: nil)) == .missingCredential)
        #expect(await refusal(totpBody(credential, enrollment: nil, code: nil)) == .missingMFAEnrollmentID)
        #expect(await refusal(totpBody(credential, code: nil)) == .missingCode)
        peers.facts.withLock {
            $0.settings.mfaConfig = MultiFactorConfig(state: .enabled, enabledProviders: ["PHONE_SMS"], providerConfigs: [])
        }
        #expect(await refusal(totpBody(nil, enrollment: nil, code: nil)) == .operationNotAllowed)
        peers.facts.withLock { $0.settings.disableAuth = true }
        #expect(await refusal(totpBody(nil, enrollment: nil, code: nil)) == .projectDisabled)
    }

    @Test("a used credential is refused as such before a wrong code, and a wrong code costs no session")
    func credentialBeforeCode() async throws {
        let credential = try peers.sealedCredential()
        peers.facts.withLock { $0.credentialUsed = true }
        #expect(await refusal(totpBody(credential, code: "000000")) == .invalidMFAPendingCredential)
        peers.facts.withLock { $0.credentialUsed = false }
        peers.forgetCalls()
        #expect(await refusal(totpBody(credential, code: "000000")) == .invalidCode)
        #expect(!peers.calls.contains(IssueSession.name))
        #expect(peers.facts.withLock { !$0.credentialUsed })
    }

    @Test("a factor the account does not have is MFA_ENROLLMENT_NOT_FOUND, before the code's own refusal")
    func enrollmentBeforeCode() async throws {
        let credential = try peers.sealedCredential()
        #expect(await refusal(totpBody(credential, enrollment: "phone-9", code: "000000")) == .mfaEnrollmentNotFound)
        peers.facts.withLock {
            $0.enrollments = [
                Enrollment(mfaEnrollmentId: "totp-1", kind: .phone, displayName: nil, phoneNumber: "+15550100", enrolledAt: "")
            ]
        }
        #expect(await refusal(totpBody(credential)) == .mfaEnrollmentNotFound)
    }

    @Test("an account deleted since the first factor makes the credential invalid; a disabled one is USER_DISABLED")
    func accountStates() async throws {
        let credential = try peers.sealedCredential()
        peers.facts.withLock { $0.accountExists = false }
        #expect(await refusal(totpBody(credential)) == .invalidMFAPendingCredential)
        peers.facts.withLock {
            $0.accountExists = true
            $0.disabled = true
        }
        #expect(await refusal(totpBody(credential)) == .userDisabled)
        #expect(peers.facts.withLock { !$0.credentialUsed })
    }

    @Test("another project's credential is read by session-token and refused, never signed in")
    func anotherProjectsCredential() async throws {
        let credential = try peers.sealedCredential(projectId: "other-project")
        #expect(await refusal(totpBody(credential)) == .invalidMFAPendingCredential)
        #expect(peers.calls.contains(InspectPendingCredential.name))
        #expect(!peers.calls.contains(IssueSession.name))
    }

    @Test("a credential that does not open is read by session-token first, which refuses an altered one")
    func unsealedCredential() async throws {
        // One character of the sealed part changed (the last one may carry only padding bits, and
        // appending the one it already was would change nothing).
        var characters = Array(try peers.sealedCredential())
        var index = characters.count / 2
        while !(characters[index].isLetter || characters[index].isNumber) { index += 1 }
        characters[index] = characters[index] == "A" ? "B" : "A"
        let credential = String(characters)
        #expect(await refusal(totpBody(credential)) == .invalidMFAPendingCredential)
        #expect(peers.calls.filter { $0 != ResolveSettings.name }.first == InspectPendingCredential.name)
    }
}
