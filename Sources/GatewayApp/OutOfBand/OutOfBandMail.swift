import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// An out-of-band code made at factor-registry and its link mailed through challenge-issuer: every
/// `sendOobCode` request type, and the notices the server sends of itself (an email change to the
/// old address, a new second factor or a linked phone number to the account's address).
struct OutOfBandMail: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let links: OOBLinkBuilder
    /// The scope's `notification` settings choose the email's language and text.
    let settings: CachedSettings
    /// Development only: a used code leaves the emulator's `oobCodes` list.
    let forgetsUsedCodes: Bool

    struct Made: Sendable {
        let code: CreateOOBCode.Result
        let link: String
    }

    func make(_ params: CreateOOBCode.Params, apiKey: String?, continueUrl: String?, locale: String?, requestID: String) async throws
        -> Made
    {
        let code = try await PeerCall.call(registry, CreateOOBCode.self, params, requestID: requestID)
        let link = links.link(
            requestType: params.requestType, oobCode: code.oobCode, apiKey: apiKey, tenantId: params.tenantId, continueUrl: continueUrl,
            locale: locale
        )
        return Made(code: code, link: link)
    }

    /// Mails a made code's link to `recipient`, in `locale` (the client's `X-Firebase-Locale`) where
    /// the scope has texts for it. An unreachable mail server is the deployment's outage (503),
    /// never the caller's mistake.
    func send(
        _ made: Made, requestType: OOBRequestType, to recipient: String, projectId: String, tenantId: String?,
        secondFactor: NewSecondFactor? = nil, linkedPhoneEnding: String? = nil, locale: String?, requestID: String
    ) async throws {
        let notification = try await settings.enabled(projectId: projectId, tenantId: tenantId, requestID: requestID).notification
        do {
            _ = try await challenges.call(
                SendEmail.self,
                .init(
                    projectId: projectId, tenantId: tenantId, requestType: requestType, email: recipient, oobCode: made.code.oobCode,
                    oobLink: made.link, newEmail: made.code.newEmail, secondFactor: secondFactor,
                    linkedPhoneEnding: linkedPhoneEnding, locale: locale, notification: notification
                ),
                requestID: requestID
            )
        } catch let error as RPCError where error.code == .deliveryFailed {
            throw IdentityToolkitError.unavailable
        } catch is RPCTransportError {
            throw IdentityToolkitError.unavailable
        }
    }

    func forget(_ oobCode: String, projectId: String, tenantId: String?, requestID: String) async {
        guard forgetsUsedCodes else { return }
        _ = try? await challenges.call(
            ForgetOutboxOOBCode.self, .init(projectId: projectId, tenantId: tenantId, oobCode: oobCode), requestID: requestID
        )
    }
}

/// Addresses compare case-insensitively (factor-registry keeps them that way).
enum EmailAddressText {
    static func differ(_ one: String, _ other: String) -> Bool { one.lowercased() != other.lowercased() }
}
