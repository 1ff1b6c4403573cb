import Contracts
import JSONRPC
import ServiceKit
import ServiceTransport

/// session-token's RPC methods, each the gateway's alone, registered with the component that
/// serves it.
enum SessionTokenMethods {
    static let gatewayOnly = RPCCallerPolicy.only([ServiceName.gateway.rawValue])

    /// The public signing keys and the key pending credentials and refresh tokens are sealed with.
    static func registerKeys(_ methods: inout RPCMethodTable, keyring: SigningKeyring, maxAgeSeconds: Int, sealKey: TokenSealKey) {
        methods.register(PublishSigningKeys.self, callers: gatewayOnly) { _, _ in
            .init(
                keys: keyring.published().map {
                    PublicSigningKey(
                        kid: $0.kid, algorithm: "RS256", modulus: $0.modulus, exponent: $0.exponent, certificatePem: $0.certificatePEM
                    )
                },
                maxAgeSeconds: maxAgeSeconds
            )
        }
        methods.register(PublishTokenSealKey.self, callers: gatewayOnly) { _, _ in .init(key: sealKey.base64) }
    }

    /// Sessions: issued, refreshed, ended; ID tokens checked.
    static func registerSessions(
        _ methods: inout RPCMethodTable, issuance: SessionIssuance, refresh: RefreshExchange, sessions: SessionRepository,
        issuer: IDTokenIssuer
    ) {
        methods.register(IssueSession.self, callers: gatewayOnly) { params, _ in try await issuance.issue(params) }
        methods.register(InspectRefreshToken.self, callers: gatewayOnly) { params, _ in try await refresh.inspect(params) }
        methods.register(RefreshSession.self, callers: gatewayOnly) { params, _ in try await refresh.refresh(params) }
        methods.register(VerifyIDToken.self, callers: gatewayOnly) { params, _ in try await issuer.check(params) }
        methods.register(IssueSessionCookie.self, callers: gatewayOnly) { params, _ in try await issuer.sessionCookie(params) }
        methods.register(RevokeFactorSessions.self, callers: gatewayOnly) { params, _ in
            .init(revoked: try await sessions.revokeFactor(params))
        }
        methods.register(ForgetAccountSessions.self, callers: gatewayOnly) { params, _ in
            .init(deleted: try await sessions.forget(params))
        }
    }

    /// Pending MFA credentials and custom tokens: what a first factor hands to the next step.
    static func registerSignInSteps(
        _ methods: inout RPCMethodTable, pending: PendingCredentials, customTokens: CustomTokenVerifier
    ) {
        methods.register(IssuePendingCredential.self, callers: gatewayOnly) { params, _ in try await pending.issue(params) }
        methods.register(InspectPendingCredential.self, callers: gatewayOnly) { params, _ in
            try await pending.inspect(params.mfaPendingCredential, finishing: params.finishing == true)
        }
        methods.register(VerifyCustomToken.self, callers: gatewayOnly) { params, _ in try customTokens.verify(params) }
    }

    /// Blocking functions' event tokens and their audit entries.
    static func registerBlockingEvents(_ methods: inout RPCMethodTable, signer: BlockingEventSigner) {
        methods.register(SignBlockingEvent.self, callers: gatewayOnly) { params, _ in try signer.sign(params) }
        methods.register(RecordBlockingEvent.self, callers: gatewayOnly) { params, _ in try await signer.record(params) }
    }
}
