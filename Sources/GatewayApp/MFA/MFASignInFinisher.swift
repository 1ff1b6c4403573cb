import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// The last hop of a second-factor sign-in whose factor passed: the session (using the pending
/// credential up: a durable commit) beside the sign-in's record on the account (`lastLoginAt`: an
/// asynchronous commit, since the session is the sign-in's durable record). Both carry the same
/// time, the ID token's `auth_time`. The record requires the factor again, so a factor withdrawn
/// between the hops refuses the answer.
struct MFASignInFinisher: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let sessions: PeerClient<SessionTokenAPI>
    /// `beforeSignIn` runs here, after the second factor (as Identity Platform's docs say).
    let functions: BlockingFunctions

    /// `settings`: the pending sign-in's scope's.
    func finish(
        _ pending: PendingSignIn, account: Account, secondFactor: FactorKind, enrollmentId: String, settings: AuthSettings,
        request: PublicRequest
    ) async throws -> JSONValue {
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        let facts = pending.facts
        let signedIn = try await functions.beforeSignIn(
            account, settings: settings, projectId: facts.projectId, tenantId: facts.tenantId, signInMethod: facts.signInProvider.rawValue,
            request: request
        )
        let signedInAt = Int64(Date().timeIntervalSince1970 * 1000)
        async let recorded = Result.capturing {
            try await PeerCall.call(
                registry, RecordSignIn.self,
                .init(
                    projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId,
                    requiredEnrollment: enrollmentId, requiredKind: secondFactor, signedInAt: signedInAt, mode: .asynchronous
                ),
                requestID: request.requestID
            )
        }
        let tokens = await Result.capturing {
            try await PeerCall.call(
                sessions, IssueSession.self,
                .init(
                    projectId: facts.projectId, tenantId: facts.tenantId, localId: facts.localId,
                    signInProvider: facts.signInProvider, secondFactor: secondFactor, secondFactorIdentifier: enrollmentId,
                    authTime: EpochSeconds(milliseconds: signedInAt), user: SessionUser(signedIn.account),
                    sessionClaims: signedIn.sessionClaims,
                    consumePendingCredential: pending.credential,
                    secondFactorAuthTime: EpochSeconds(milliseconds: signedInAt)
                ),
                requestID: request.requestID
            )
        }
        let issued = try tokens.get()
        do {
            _ = try await recorded.get()
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidMFAPendingCredential)
        }
        return try request.answer(FinalizeMFASignInResponse(issued))
    }
}
