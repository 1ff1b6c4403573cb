import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import Testing

@testable import GatewayApp

/// The MFA policy's decisions (docs/mfa-policy.md): who gets an enrollment-only session under
/// MANDATORY and until when, and when step-up refuses a sensitive change.
@Suite("MFA policy: MANDATORY and step-up")
struct MFAPolicyTests {
    static let created: EpochSeconds = 1_000_000

    func settings(_ state: String, grace: Int64? = nil, since: EpochSeconds? = nil, stepUp: Int64? = nil) -> AuthSettings {
        var settings = AuthSettings.projectDefaults
        settings.mfaConfig.state = MultiFactorState(rawValue: state)
        settings.mfaConfig.enrollmentGracePeriodSeconds = grace
        settings.mfaConfig.mandatorySince = since?.milliseconds
        settings.mfaConfig.stepUpMaxAgeSeconds = stepUp
        return settings
    }

    func account(factors: [Enrollment] = []) -> Account {
        Account(
            localId: "u", email: "u@example.com", emailVerified: true, displayName: nil, disabled: false,
            createdAt: String(Self.created.milliseconds), signInProvider: .password, mfaInfo: factors
        )
    }

    let totp = Enrollment(mfaEnrollmentId: "t", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")

    func at(_ instant: EpochSeconds) -> Date { instant.date }

    @Test("only MANDATORY, a first factor that can carry a second and no factor make an enrollment-only session")
    func whoIsEnrollmentOnly() throws {
        let now = at(Self.created + 10)
        #expect(try MandatoryEnrollment.sessionEnd(settings("ENABLED"), account: account(), signInProvider: .password, now: now) == nil)
        #expect(
            try MandatoryEnrollment.sessionEnd(
                settings("MANDATORY"), account: account(factors: [totp]), signInProvider: .password, now: now)
                == nil)
        for exempt: SignInProvider in [.anonymous, .phone, .custom, .gameCenter] {
            #expect(try MandatoryEnrollment.sessionEnd(settings("MANDATORY"), account: account(), signInProvider: exempt, now: now) == nil)
        }
        #expect(
            try MandatoryEnrollment.sessionEnd(
                settings("MANDATORY"), account: account(), signInProvider: .federated("google.com"), now: now)
                == Self.created + MultiFactorConfig.defaultEnrollmentGracePeriod)
    }

    @Test("the grace period counts from the later of the account's creation and the moment the scope became MANDATORY")
    func graceStart() throws {
        let older = settings("MANDATORY", grace: 100, since: Self.created - 5_000)
        #expect(
            try MandatoryEnrollment.sessionEnd(older, account: account(), signInProvider: .password, now: at(Self.created)) == Self.created
                + 100)
        let newer = settings("MANDATORY", grace: 100, since: Self.created + 5_000)
        #expect(
            try MandatoryEnrollment.sessionEnd(newer, account: account(), signInProvider: .password, now: at(Self.created + 5_050))
                == Self.created + 5_100)
    }

    @Test("once the grace period has run out the sign-in is refused with MFA_ENROLLMENT_REQUIRED")
    func gracePassed() {
        let mandatory = settings("MANDATORY", grace: 100)
        #expect(throws: IdentityToolkitError.self) {
            try MandatoryEnrollment.sessionEnd(mandatory, account: account(), signInProvider: .password, now: at(Self.created + 100))
        }
        #expect(MandatoryEnrollment.gracePassed.message.hasPrefix("OPERATION_NOT_ALLOWED : MFA_ENROLLMENT_REQUIRED"))
        #expect(MandatoryEnrollment.enrollFirst.message.hasPrefix("OPERATION_NOT_ALLOWED : MFA_ENROLLMENT_REQUIRED"))
    }

    func user(_ settings: AuthSettings, factors: [Enrollment], passedAt: EpochSeconds?) -> SignedInUser {
        SignedInUser(
            token: .init(
                projectId: "p", tenantId: nil, localId: "u", issuedAt: 2_000_000, authTime: 2_000_000, signInProvider: .password,
                secondFactor: nil, secondFactorIdentifier: nil, secondFactorAuthTime: passedAt
            ),
            account: account(factors: factors), settings: settings
        )
    }

    @Test("step-up asks a user with a factor for one passed within the scope's maximum age, and nobody else")
    func stepUp() throws {
        let policy = settings("ENABLED", stepUp: 600)
        let now = at(2_000_600)
        try StepUp.require(user(policy, factors: [totp], passedAt: 2_000_000), now: now)
        #expect(throws: IdentityToolkitError.self) { try StepUp.require(user(policy, factors: [totp], passedAt: 1_999_999), now: now) }
        #expect(throws: IdentityToolkitError.self) { try StepUp.require(user(policy, factors: [totp], passedAt: nil), now: now) }
        // No factor to step up with, or no policy: nothing asked.
        try StepUp.require(user(policy, factors: [], passedAt: nil), now: now)
        try StepUp.require(user(settings("ENABLED"), factors: [totp], passedAt: nil), now: now)
    }
}
