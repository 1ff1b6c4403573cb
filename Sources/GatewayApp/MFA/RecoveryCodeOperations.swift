import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `POST v2/accounts/mfaRecoveryCodes:generate` and `…:lookup` (this server's own; docs/mfa-policy.md).
///
/// Generating shows ten new codes once and kills the old set in the same commit. It needs a full
/// session of a user who has a second factor and passed one recently (the scope's `stepUpMaxAge`,
/// else ``defaultMaximumAge``): a stolen refresh token cannot mint a way in. The set is one
/// enrollment of kind `recovery_code` whose id stays the same across regenerations, so sessions
/// signed in with an old code stay (decision 4 ends them only when the set is withdrawn).
///
/// Looking up says how many codes are left (never the codes): to the user with an ID token, to an
/// admin with `localId` on the project's or tenant's path.
struct RecoveryCodeOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let sessions: PeerClient<SessionTokenAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let cachedSettings: CachedSettings

    static let defaultMaximumAge: Int64 = 300
    static let needsFactor = IdentityToolkitError(
        .mfaEnrollmentNotFound, detail: "Recovery codes need a second factor enrolled first.")

    func generate(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(RecoveryCodesRequest.self)
        let settings = try await cachedSettings.enabled(
            projectId: request.callerProjectId, tenantId: body.tenantId ?? RoutingHint.tenant(ofIDToken: body.idToken),
            requestID: request.requestID
        )
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: cachedSettings)
        try RecoveryCodeFactor.requireEnabled(settings)
        let enrollments = user.account.mfaInfo ?? []
        guard enrollments.contains(where: { $0.kind != RecoveryCodeFactor.kind }) else { throw Self.needsFactor }
        try StepUp.requireSecondFactor(within: settings.mfaConfig.stepUpMaxAgeSeconds ?? Self.defaultMaximumAge, user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        let existing = enrollments.first { $0.kind == RecoveryCodeFactor.kind }
        let enrollmentId = existing?.mfaEnrollmentId ?? RecoveryCodeFactor.idPrefix + RandomIdentifier.make()
        let generated = try await PeerCall.call(
            challenges, GenerateRecoveryCodes.self,
            .init(projectId: projectId, tenantId: tenantId, localId: localId, mfaEnrollmentId: enrollmentId),
            requestID: request.requestID
        )
        if existing == nil {
            // After the set exists: a set without its enrollment opens nothing (every redemption
            // checks the account lists it), an enrollment without its set would.
            _ = try await PeerCall.call(
                registry, AddEnrollment.self,
                .init(
                    projectId: projectId, tenantId: tenantId, localId: localId,
                    enrollment: Enrollment(
                        mfaEnrollmentId: enrollmentId, kind: RecoveryCodeFactor.kind, displayName: RecoveryCodeFactor.displayName,
                        phoneNumber: nil, enrolledAt: ""
                    )
                ),
                requestID: request.requestID
            )
        }
        return [
            "mfaEnrollmentId": .string(enrollmentId), "recoveryCodes": .array(generated.codes.map(JSONValue.string)),
            "remaining": .int(Int64(generated.codes.count)),
        ]
    }

    func lookup(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(RecoveryCodesRequest.self)
        let (projectId, tenantId, account): (String, String?, Account)
        if request.caller == .admin, body.idToken == nil {
            let scope = try await AdminScope.existing(request, in: cachedSettings)
            guard let localId = body.localId.nonEmpty else { throw IdentityToolkitError(.missingLocalID) }
            account = try await PeerCall.call(
                registry, GetAccount.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId),
                requestID: request.requestID
            )
            (projectId, tenantId) = (scope.projectId, scope.tenantId)
        } else {
            let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: cachedSettings)
            (projectId, tenantId, account) = (user.token.projectId, user.token.tenantId, user.account)
        }
        guard let set = account.mfaInfo?.first(where: { $0.kind == RecoveryCodeFactor.kind }) else {
            return ["localId": .string(account.localId), "remaining": .int(0)]
        }
        let counted = try await PeerCall.call(
            challenges, CountRecoveryCodes.self,
            .init(projectId: projectId, tenantId: tenantId, localId: account.localId, mfaEnrollmentId: set.mfaEnrollmentId),
            requestID: request.requestID
        )
        var answer: [String: JSONValue] = [
            "localId": .string(account.localId), "mfaEnrollmentId": .string(set.mfaEnrollmentId),
            "remaining": .int(Int64(counted.remaining)),
        ]
        if let generatedAt = counted.generatedAt { answer["generatedAt"] = .string(generatedAt) }
        return .object(answer)
    }
}
