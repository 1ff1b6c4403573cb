import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Testing

@testable import SessionTokenApp

/// The account's checks of a refresh, made by session-token with the state the gateway read
/// (contract §2.14, decision 4): in this order, each with its own answer.
@Suite("Refresh: the account's checks")
struct RefreshChecksTests {
    /// A session signed in at 1,000,000 (auth time and start) with TOTP factor `totp-1`.
    let family = RefreshSessions.Family(
        familyID: "f", projectId: "demo-project", tenantId: nil, localId: "user-1", signInProvider: .password,
        secondFactor: .totp, secondFactorIdentifier: "totp-1", authTime: 1_000_000, signedInAt: 1_000_000, sessionClaims: nil,
        secondFactorAuthTime: 1_000_000, enrollmentOnlyUntil: nil, firstFactorIdentifier: nil
    )

    func account(
        localId: String = "user-1", createdAtSeconds: Int64 = 900_000, disabled: Bool = false, validSince: EpochSeconds? = nil,
        factors: [String] = ["totp-1"]
    ) -> RefreshSession.AccountState {
        .init(localId: localId, createdAt: createdAtSeconds * 1000, disabled: disabled, validSince: validSince, secondFactors: factors)
    }

    func answer(_ state: RefreshSession.AccountState) -> IdentityToolkitError.Code? {
        do {
            try RefreshSessions.check(family, against: state)
            return nil
        } catch let error as RPCError {
            return error.business?.code
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("an account in good standing that still has the session's factor refreshes")
    func goodStanding() {
        #expect(answer(account()) == nil)
        #expect(answer(account(validSince: 1_000_000)) == nil)
    }

    @Test("another account, or one created after the sign-in (a deleted account's uid given again), is INVALID_REFRESH_TOKEN")
    func notTheSameAccount() {
        #expect(answer(account(localId: "user-2")) == .invalidRefreshToken)
        #expect(answer(account(createdAtSeconds: 1_000_001)) == .invalidRefreshToken)
    }

    @Test("USER_DISABLED comes before TOKEN_EXPIRED")
    func disabledFirst() {
        #expect(answer(account(disabled: true, validSince: 2_000_000, factors: [])) == .userDisabled)
    }

    @Test("a sign-in older than validSince, or whose second factor is gone, is TOKEN_EXPIRED")
    func expired() {
        #expect(answer(account(validSince: 1_000_001)) == .tokenExpired)
        #expect(answer(account(factors: ["phone-2"])) == .tokenExpired)
    }

    @Test("an enrollment-only session (MANDATORY MFA) refreshes until its grace period ends, then is TOKEN_EXPIRED")
    func enrollmentOnlyEnds() throws {
        let now = Date(timeIntervalSince1970: 2_000_000)
        func session(until: EpochSeconds) -> RefreshSessions.Family {
            RefreshSessions.Family(
                familyID: "f", projectId: "demo-project", tenantId: nil, localId: "user-1", signInProvider: .password,
                secondFactor: nil, secondFactorIdentifier: nil, authTime: 1_000_000, signedInAt: 1_000_000, sessionClaims: nil,
                secondFactorAuthTime: nil, enrollmentOnlyUntil: until, firstFactorIdentifier: nil
            )
        }
        try RefreshSessions.checkEnrollmentWindow(session(until: 2_000_001), now: now)
        #expect(throws: RPCError.self) { try RefreshSessions.checkEnrollmentWindow(session(until: 2_000_000), now: now) }
        do {
            try RefreshSessions.checkEnrollmentWindow(session(until: 1_999_000), now: now)
            Issue.record("an ended enrollment-only session refreshed")
        } catch let error as RPCError {
            #expect(error.business?.code == .tokenExpired)
        }
    }
}
