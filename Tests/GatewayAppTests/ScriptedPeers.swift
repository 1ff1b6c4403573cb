import AuthVocabulary
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import ServiceTransport
import Synchronization

@testable import ServiceKit

/// factor-registry, session-token and challenge-issuer as a test scripts them, in this process: each
/// answers from a few facts the test sets (the account's factors, whether the credential is used,
/// which code is right) and counts the calls it serves, so a test reads the gateway's decisions and
/// its hops without PostgreSQL. The real services' behaviour is tested against the real processes
/// (SystemTests, client-tests); this is for the gateway's own decision tables.
final class ScriptedPeers: Sendable {
    struct Facts: Sendable {
        var settings = AuthSettings.projectDefaults
        var accountExists = true
        var disabled = false
        var enrollments = [Enrollment(mfaEnrollmentId: "totp-1", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")]
        var credentialUsed = false
        var rightCode = "123456"
        /// The number an SMS code proves (challenge-issuer's `sms.verify` answers it).
        var provedNumber = "+15550100"
        var emailVerified = true
        /// Enrollments factor-registry recorded (`enrollment.add`).
        var added: [Enrollment] = []
    }

    let local = LocalPeers([.gateway, .factorRegistry, .sessionToken, .challengeIssuer])
    let facts = Mutex(Facts())
    private let served = Mutex<[String]>([])
    let sealKey = TokenSealKey(masterKey: SymmetricKey(size: .bits256))

    init() {
        openFactorRegistry()
        openSessionToken()
        openChallengeIssuer()
    }

    /// The methods served so far, in order.
    var calls: [String] { served.withLock { $0 } }
    func forgetCalls() { served.withLock { $0.removeAll() } }

    func client<API: DataServiceAPI>(_ api: API.Type) -> PeerClient<API> {
        PeerClient(RPCClient(peer: ServiceName(rawValue: API.service)!, in: local, caller: .gateway, timeout: .seconds(5)))
    }

    /// A pending credential sealed as session-token seals one.
    func sealedCredential(localId: String = "user-1", projectId: String = "demo-project") throws -> String {
        try SealedPendingCredential(
            projectId: projectId, tenantId: nil, localId: localId, signInProvider: .password,
            expiresAt: .now + 600
        ).seal(with: sealKey)
    }

    private func record(_ method: String) { served.withLock { $0.append(method) } }

    private func account() -> Account {
        let facts = facts.withLock { $0 }
        return Account(
            localId: "user-1", email: "user@example.com", emailVerified: facts.emailVerified, displayName: nil, disabled: facts.disabled,
            createdAt: "1700000000000", signInProvider: .password, mfaInfo: facts.enrollments
        )
    }

    private func openFactorRegistry() {
        var table = RPCMethodTable()
        table.register(ResolveSettings.self, callers: .anyAuthenticated) { [self] _, _ in
            record(ResolveSettings.name)
            return .init(settings: facts.withLock { $0.settings })
        }
        table.register(GetAccount.self, callers: .anyAuthenticated) { [self] _, _ in
            record(GetAccount.name)
            guard facts.withLock({ $0.accountExists }) else { throw Self.rejected(.accountRejected, .userNotFound) }
            return account()
        }
        table.register(RecordSignIn.self, callers: .anyAuthenticated) { [self] params, _ in
            record("\(RecordSignIn.name) \(params.mode?.rawValue ?? "durable")")
            guard facts.withLock({ $0.accountExists }) else { throw Self.rejected(.accountRejected, .userNotFound) }
            let account = account()
            if let required = params.requiredEnrollment,
                !(account.mfaInfo ?? []).contains(where: { $0.mfaEnrollmentId == required && $0.kind == params.requiredKind })
            {
                throw Self.rejected(.accountRejected, .mfaEnrollmentNotFound)
            }
            return account
        }
        table.register(CheckFactor.self, callers: .anyAuthenticated) { [self] params, _ in
            record(CheckFactor.name)
            guard facts.withLock({ $0.accountExists }) else { throw Self.rejected(.accountRejected, .userNotFound) }
            let account = account()
            guard (account.mfaInfo ?? []).contains(where: { $0.mfaEnrollmentId == params.enrollmentId && $0.kind == params.kind }) else {
                throw Self.rejected(.accountRejected, .mfaEnrollmentNotFound)
            }
            return account
        }
        table.register(AddEnrollment.self, callers: .anyAuthenticated) { [self] params, _ in
            record(AddEnrollment.name)
            facts.withLock {
                $0.added.append(params.enrollment)
                $0.enrollments.append(params.enrollment)
            }
            return account()
        }
        local.open(.factorRegistry, dispatcher: RPCDispatcher(table: table), logger: Logger(label: "factor-registry"))
    }

    private func openSessionToken() {
        var table = RPCMethodTable()
        table.register(PublishTokenSealKey.self, callers: .anyAuthenticated) { [self] _, _ in
            .init(key: sealKey.base64)
        }
        table.register(InspectPendingCredential.self, callers: .anyAuthenticated) { [self] params, _ in
            record(InspectPendingCredential.name)
            guard !facts.withLock({ $0.credentialUsed }),
                let opened = SealedPendingCredential.open(params.mfaPendingCredential, keys: [sealKey])
            else { throw Self.rejected(.invalidPendingCredential, .invalidMFAPendingCredential) }
            return .init(
                projectId: opened.projectId, tenantId: opened.tenantId, localId: opened.localId,
                signInProvider: opened.signInProvider
            )
        }
        // Any token but "expired-token" is a fresh password sign-in of user-1 in the demo project.
        table.register(VerifyIDToken.self, callers: .anyAuthenticated) { [self] params, _ in
            record(VerifyIDToken.name)
            if params.idToken == "expired-token" { throw Self.rejected(.invalidIDToken, .tokenExpired) }
            let now = EpochSeconds.now
            return .init(
                projectId: "demo-project", tenantId: nil, localId: "user-1", issuedAt: now, authTime: now, signInProvider: .password,
                secondFactor: nil, secondFactorIdentifier: nil
            )
        }
        table.register(IssueSession.self, callers: .anyAuthenticated) { [self] params, _ in
            record(IssueSession.name)
            guard params.consumePendingCredential != nil else {
                return .init(idToken: "id-token", refreshToken: "refresh-token", expiresIn: "3600")
            }
            if facts.withLock({ $0.credentialUsed }) { throw Self.rejected(.invalidPendingCredential, .invalidMFAPendingCredential) }
            facts.withLock { $0.credentialUsed = true }
            return .init(idToken: "id-token", refreshToken: "refresh-token", expiresIn: "3600")
        }
        local.open(.sessionToken, dispatcher: RPCDispatcher(table: table), logger: Logger(label: "session-token"))
    }

    private func openChallengeIssuer() {
        var table = RPCMethodTable()
        table.register(VerifyTOTP.self, callers: .anyAuthenticated) { [self] params, _ in
            record(VerifyTOTP.name)
            guard params.verificationCode == facts.withLock({ $0.rightCode }) else {
                throw Self.rejected(.challengeRejected, .invalidCode)
            }
            return .init()
        }
        table.register(StartTOTPEnrollment.self, callers: .anyAuthenticated) { [self] _, _ in
            record(StartTOTPEnrollment.name)
            return .init(
                sessionInfo: "totp-session", sharedSecretKey: "JBSWY3DPEHPK3PXP", verificationCodeLength: 6, hashingAlgorithm: "SHA1",
                periodSec: 30, finalizeEnrollmentTime: "2026-11-25T00:00:00Z"
            )
        }
        table.register(FinalizeTOTPEnrollment.self, callers: .anyAuthenticated) { [self] params, _ in
            record(FinalizeTOTPEnrollment.name)
            guard params.verificationCode == facts.withLock({ $0.rightCode }) else {
                throw Self.rejected(.challengeRejected, .invalidCode)
            }
            return .init()
        }
        table.register(VerifyPhoneCode.self, callers: .anyAuthenticated) { [self] params, _ in
            record(VerifyPhoneCode.name)
            let facts = facts.withLock { $0 }
            guard params.code == facts.rightCode else { throw Self.rejected(.challengeRejected, .invalidCode) }
            return .init(phoneNumber: facts.provedNumber)
        }
        local.open(.challengeIssuer, dispatcher: RPCDispatcher(table: table), logger: Logger(label: "challenge-issuer"))
    }

    static func rejected(_ code: RPCErrorCode, _ business: IdentityToolkitError.Code) -> RPCError {
        RPCError(code: code, business: IdentityToolkitError(business))
    }
}
