import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC

/// One kind of second factor as the gateway serves it (contract §2.8-§2.12): which request members
/// carry it (its own messages, in its folder), whether a scope enables it, how an enrollment starts
/// and is proved, how a sign-in's code is checked, and how it shows in `mfaInfo`. The operations
/// (`MFAEnrollmentOperations`, `MFASignInOperations`) hold what every kind shares: the user's
/// checks, the session, the record.
///
/// Adding a kind means adding a folder beside `Phone/` and `TOTP/` with one type conforming to this,
/// and listing it in ``SecondFactorKinds``.
protocol SecondFactorKind: Sendable {
    /// The enrollment's kind, and the ID token's `sign_in_second_factor`.
    static var kind: FactorKind { get }
    /// Whether an enrollment of this kind makes a first-factor sign-in stop at the MFA branch
    /// under the scope's settings (contract §3.5).
    static func stopsFirstFactor(_ settings: AuthSettings) -> Bool
    /// Whether challenge-issuer keeps a secret under the enrollment's id (a TOTP secret, a
    /// recovery-code set), to be deleted with the factor.
    static var keepsSecret: Bool { get }
    /// Where `mfaSignIn:start` sends a sign-in's code for this factor; `nil` for a kind whose
    /// sign-in has no start (the code is the user's own: an authenticator app, a recovery code),
    /// which that call refuses.
    static func startsSignIn(to enrollment: Enrollment) -> String?
    /// Whether the request carries this kind's member (`totpEnrollmentInfo`, `totpVerificationInfo`).
    static func isNamed(by body: StartMFAEnrollmentRequest) -> Bool
    static func isNamed(by body: FinalizeMFAEnrollmentRequest) -> Bool
    static func isNamed(by body: FinalizeMFASignInRequest) -> Bool
    /// The enrollment session a finalize finishes (its verification member's `sessionInfo`).
    static func session(of body: FinalizeMFAEnrollmentRequest) -> String?
    /// This kind's own members of an `mfaInfo` entry; `masked` for first-factor answers (§3.2).
    static func hint(_ enrollment: Enrollment, masked: Bool, in entry: inout MFAEnrollment)
    /// The factor as the new-factor notice names it (challenge-issuer words it in the email's language).
    static func newFactor(_ enrollment: Enrollment) -> NewSecondFactor

    /// `OPERATION_NOT_ALLOWED` unless the scope enables this kind.
    func requireEnabled(_ settings: AuthSettings) throws

    /// `mfaEnrollment:start` once the user passed the shared checks: what the client finishes with.
    func startEnrollment(_ body: StartMFAEnrollmentRequest, user: SignedInUser, settings: AuthSettings, request: PublicRequest)
        async throws -> StartMFAEnrollmentResponse

    /// `mfaEnrollment:finalize` once the user passed the shared checks: the request's own members in
    /// the contract's order, `checkLimit` before the proof, then the proof. The factor to record.
    func finishEnrollment(
        _ body: FinalizeMFAEnrollmentRequest, user: SignedInUser, enrollmentId: String, settings: AuthSettings,
        checkLimit: () throws -> Void, request: PublicRequest
    ) async throws -> Enrollment

    /// `mfaSignIn:finalize`'s own members for this kind, in the contract's order, checked before
    /// the pending credential is looked at.
    static func signInProof(_ body: FinalizeMFASignInRequest) throws -> SignInProof

    /// `mfaSignIn:finalize` once the pending sign-in is known: the proof's check beside the
    /// account's (one hop), refusals answered in the contract's order. The account and the factor passed.
    func verifySignIn(_ proof: SignInProof, pending: PendingSignIn, settings: AuthSettings, request: PublicRequest)
        async throws -> PassedSecondFactor

    /// What follows a sign-in this kind finished, once its session is issued (a recovery code's
    /// notice to the account's email). Nothing it does can fail the sign-in.
    func afterSignIn(_ passed: PassedSecondFactor, request: PublicRequest) async
}

extension SecondFactorKind {
    func afterSignIn(_ passed: PassedSecondFactor, request: PublicRequest) async {}
}

/// What a finalize offers as its second factor: the code, and the factor (by enrollment id) or the
/// code's session (SMS) it is for.
struct SignInProof: Sendable {
    let code: String
    var enrollmentId: String?
    var sessionInfo: String?
}

/// A sign-in's second factor that passed: the sign-in, its account, and which factor.
struct PassedSecondFactor: Sendable {
    let pending: PendingSignIn
    let account: Account
    let enrollmentId: String
}

/// The kinds the gateway serves, and which one a request is for.
struct SecondFactorKinds: Sendable {
    let phone: PhoneFactor
    let totp: TOTPFactor
    let recoveryCode: RecoveryCodeFactor

    /// Recovery codes first: a finalize naming a recovery-code set also carries TOTP's members.
    var all: [any SecondFactorKind] { [recoveryCode, totp, phone] }

    /// The kind the request names; phone when it names none or both (contract §2.8: a request
    /// without TOTP members is the phone variant).
    func kind(namedBy isNamed: (any SecondFactorKind.Type) -> Bool) -> any SecondFactorKind {
        if isNamed(RecoveryCodeFactor.self) { return recoveryCode }
        let named = all.filter { isNamed(type(of: $0)) }
        return named.count == 1 ? named[0] : phone
    }

    static let types: [any SecondFactorKind.Type] = [RecoveryCodeFactor.self, TOTPFactor.self, PhoneFactor.self]

    /// The strategy of `kind`, as stored in an enrollment.
    static func of(_ kind: FactorKind) -> any SecondFactorKind.Type {
        switch kind {
        case .phone: PhoneFactor.self
        case .totp: TOTPFactor.self
        case .recoveryCode: RecoveryCodeFactor.self
        }
    }
}
