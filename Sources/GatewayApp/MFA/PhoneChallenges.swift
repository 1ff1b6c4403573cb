import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// The gateway's side of SMS challenges: the region policy and test numbers from the scope's
/// settings, the scope's `beforeSendSms` function, the app proof from the request, then
/// challenge-issuer's `sms.start` / `sms.verify`.
struct PhoneChallenges: Sendable {
    let challenges: PeerClient<ChallengeIssuerAPI>
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    let functions: BlockingFunctions

    static let regionRefused = IdentityToolkitError(
        .operationNotAllowed, detail: "SMS unable to be sent until this region enabled by the app developer.")

    /// `account`: the user the code is for (`nil` for a phone sign-in, whose user may not exist yet).
    func start(
        number: String, purpose: VerificationPurpose, account: Account?, proof: AppVerificationProof, settings: AuthSettings,
        projectId: String,
        tenantId: String?, request: PublicRequest
    ) async throws -> String {
        let testCode = settings.testPhoneNumbers[number]
        if testCode == nil, let regions = settings.smsRegionConfig, !regions.allows(region: CallingCodes.region(of: number)) {
            throw Self.regionRefused
        }
        // A test number is sent nothing, so no function hears of it. Otherwise challenge-issuer
        // checks the app's proof and the limits first, and holds the message for the function.
        let smsTrigger =
            testCode == nil
            ? try await functions.smsTrigger(settings, projectId: projectId, tenantId: tenantId, requestID: request.requestID) : nil
        let localId = account?.localId ?? ""
        // A tenant without its own authorized domains uses its project's for the reCAPTCHA hostname check.
        let domains =
            testCode != nil
            ? settings.authorizedDomains
            : try await scopeSettings.authorizedDomains(
                projectId: projectId, tenantId: tenantId, settings: settings, requestID: request.requestID
            )
        do {
            let started = try await PeerCall.call(
                challenges, StartPhoneVerification.self,
                .init(
                    projectId: projectId, tenantId: tenantId, phoneNumber: number, purpose: purpose, localId: localId,
                    clientAddress: request.clientAddress, proof: proof, testCode: testCode,
                    authorizedDomains: domains, locale: request.locale, notification: settings.notification,
                    smsDefense: settings.smsDefense, holdDelivery: smsTrigger != nil ? true : nil
                ),
                requestID: request.requestID
            )
            if let held = started.heldMessage, let smsTrigger {
                let route = try await functions.beforeSendSms(
                    to: number, smsType: purpose.smsType, account: account, trigger: smsTrigger,
                    projectId: projectId, tenantId: tenantId, request: request
                )
                try await deliver(held, route: route, projectId: projectId, tenantId: tenantId, request: request)
            }
            return started.sessionInfo
        } catch let error as RPCError where error.code == .deliveryFailed {
            throw IdentityToolkitError.unavailable
        }
    }

    /// The held message, by the function's route: a route this deployment lacks is the function's
    /// error, told as its others are.
    private func deliver(_ held: String, route: String?, projectId: String, tenantId: String?, request: PublicRequest) async throws {
        do {
            _ = try await PeerCall.call(
                challenges, DeliverPhoneVerification.self,
                .init(projectId: projectId, tenantId: tenantId, heldMessage: held, route: route), requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .invalidArgument {
            throw IdentityToolkitError(
                .blockingFunctionErrorResponse, detail: "HTTP Cloud Function named an SMS route this deployment does not have"
            )
        }
    }

    /// The number the session verified.
    func verify(
        sessionInfo: String, code: String, purpose: VerificationPurpose, localId: String, projectId: String, tenantId: String?,
        attempt: String?, request: PublicRequest
    ) async throws -> String {
        try await PeerCall.call(
            challenges, VerifyPhoneCode.self,
            .init(
                projectId: projectId, tenantId: tenantId, sessionInfo: sessionInfo, code: code, purpose: purpose, localId: localId,
                attempt: attempt
            ),
            requestID: request.requestID
        ).phoneNumber
    }
}
