import AuthVocabulary
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import ServiceKit
import WebAuthn

/// Passkeys (issue 59) on Identity Platform's preview contract: `v2/accounts/passkeyEnrollment:start|finalize`
/// for a signed-in user, `v2/accounts/passkeySignIn:start|finalize` for anyone holding one
/// (discoverable credentials: the sign-in names nobody until the authenticator does).
///
/// Each ceremony's challenge is challenge-issuer's (single use, bound to purpose, user and scope);
/// the checks of WebAuthn Level 2 §7.1 and §7.2 are the `WebAuthn` kit's; the credentials are
/// factor-registry's. A challenge is redeemed before the response is checked, so a response that
/// fails uses its challenge up all the same. Options carry bytes in padded standard base64, which
/// both SDKs read (iOS reads no other); responses are read in either alphabet.
struct PasskeyOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let sessions: PeerClient<SessionTokenAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let scopeSettings: CachedSettings
    /// A passkey is a way in: adding one is as sensitive as linking a provider (and needs step-up
    /// where the scope asks for it).
    let recentLogin: RecentLogin
    /// The scope's `beforeSignIn` function hears of a passkey sign-in (`sign_in_method: passkey`)
    /// and may refuse it, as every other first factor's.
    let functions: BlockingFunctions
    /// `passkeys.maximumPerAccount`.
    let maximumPerAccount: Int
    /// The new-passkey notice to the account's verified address, with a link that removes it.
    let notice: NewFactorNotice
    let logger: Logger

    /// The algorithms offered, in the order of preference.
    static let algorithms: [COSEKey.Algorithm] = [.es256, .edDSA, .rs256]

    /// The scope's relying party; `PASSKEY_NOT_ENABLED` until its `passkeyConfig` is set.
    static func relyingParty(_ settings: AuthSettings) throws -> RelyingParty {
        guard let config = settings.passkeyConfig else { throw IdentityToolkitError(.passkeyNotEnabled) }
        return RelyingParty(id: config.rpId, origins: config.expectedOrigins)
    }

    /// The WebAuthn user handle of an account: derived, never stored, and no personal data (WebAuthn §14.6.1).
    static func userHandle(_ localId: String) -> [UInt8] { Array(SHA256.hash(data: Array("passkey-user:\(localId)".utf8))) }

    /// Every refused response reads the same to the client; a check's reason goes to the log.
    static let refused = IdentityToolkitError(.invalidAuthenticatorResponse)

    // MARK: enrollment

    func startEnrollment(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(StartPasskeyEnrollmentRequest.self)
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        let party = try Self.relyingParty(user.settings)
        try recentLogin.require(user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        async let existing = PeerCall.call(
            registry, ListPasskeys.self, .init(projectId: projectId, tenantId: tenantId, localIds: [localId]), requestID: request.requestID
        )
        let issued = try await PeerCall.call(
            challenges, IssuePasskeyChallenge.self,
            .init(projectId: projectId, tenantId: tenantId, purpose: .enroll, localId: localId, clientAddress: request.clientAddress),
            requestID: request.requestID
        )
        let name = user.account.email ?? user.account.phoneNumber ?? localId
        let excluded: [JSONValue] = try await existing.passkeys.compactMap { entry in
            Base64Bytes.decode(entry.credentialId).map { ["type": "public-key", "id": .string(Base64Bytes.standard($0))] }
        }
        return [
            "credentialCreationOptions": [
                "rp": ["id": .string(party.id), "name": .string(party.id)],
                "user": [
                    "id": .string(Base64Bytes.standard(Self.userHandle(localId))), "name": .string(name),
                    "displayName": .string(user.account.displayName ?? name),
                ],
                "challenge": .string(try Self.standard(issued.challenge)),
                "pubKeyCredParams": .array(Self.algorithms.map { ["type": "public-key", "alg": .int($0.rawValue)] }),
                "timeout": .int(Int64(issued.timeoutMs)),
                "attestation": "none",
                "authenticatorSelection": ["residentKey": "required", "requireResidentKey": true, "userVerification": "required"],
                "excludeCredentials": .array(excluded),
            ]
        ]
    }

    func finalizeEnrollment(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(FinalizePasskeyEnrollmentRequest.self)
        let user = try await SignedInUser.resolve(body, request, registry: registry, sessions: sessions, scopeSettings: scopeSettings)
        let party = try Self.relyingParty(user.settings)
        try recentLogin.require(user)
        let (projectId, tenantId, localId) = (user.token.projectId, user.token.tenantId, user.account.localId)
        let sent = try Registration(body.authenticatorRegistrationResponse)
        try await redeem(sent.challenge, purpose: .enroll, localId: localId, projectId: projectId, tenantId: tenantId, request: request)
        let registration: RelyingParty.Registration
        do {
            registration = try party.register(
                clientDataJSON: sent.clientData, attestationObject: sent.attestationObject, challenge: sent.challenge,
                claimedCredentialId: sent.credentialId
            )
        } catch {
            logger.info("passkey registration refused", metadata: ["reason": "\(error.reason)", "requestId": "\(request.requestID)"])
            throw Self.refused
        }
        let name = (body.name.nonEmpty ?? body.displayName.nonEmpty).map { String($0.prefix(256)) } ?? "Unnamed passkey"
        let credentialId = Base64URL.encode(registration.credentialId)
        _ = try await PeerCall.call(
            registry, AddPasskey.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId,
                credential: PasskeyCredential(
                    credentialId: credentialId, publicKey: Base64URL.encode(registration.publicKeyBytes),
                    algorithm: Int(registration.publicKey.algorithm.rawValue), signCount: Int64(registration.signCount), name: name,
                    aaguid: Base64URL.encode(registration.aaguid), backupEligible: registration.flags.contains(.backupEligible),
                    backedUp: registration.flags.contains(.backedUp)
                ),
                maximumPerAccount: maximumPerAccount
            ),
            requestID: request.requestID
        )
        // The SDKs take the answer's tokens as the user's (iOS needs them): the same session, renewed.
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId, signInProvider: user.token.signInProvider,
                secondFactor: user.token.secondFactor, secondFactorIdentifier: user.token.secondFactorIdentifier,
                authTime: user.token.authTime, user: SessionUser(user.account), secondFactorAuthTime: user.token.secondFactorAuthTime,
                firstFactorIdentifier: user.token.firstFactorIdentifier
            ),
            requestID: request.requestID
        )
        await notice.send(
            factorId: PasskeyCredential.factorIdentifier(credentialId), named: .passkey, account: user.account, projectId: projectId,
            tenantId: tenantId, request: request
        )
        return Self.signedIn(localId: localId, tokens)
    }

    // MARK: sign-in

    func startSignIn(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(StartPasskeySignInRequest.self)
        let projectId = request.callerProjectId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: body.tenantId, requestID: request.requestID)
        let party = try Self.relyingParty(settings)
        let issued = try await PeerCall.call(
            challenges, IssuePasskeyChallenge.self,
            .init(projectId: projectId, tenantId: body.tenantId, purpose: .signIn, clientAddress: request.clientAddress),
            requestID: request.requestID
        )
        return [
            "credentialRequestOptions": [
                "challenge": .string(try Self.standard(issued.challenge)), "rpId": .string(party.id), "userVerification": "required",
                "timeout": .int(Int64(issued.timeoutMs)),
            ]
        ]
    }

    func finalizeSignIn(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(FinalizePasskeySignInRequest.self)
        let (projectId, tenantId) = (request.callerProjectId, body.tenantId)
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        let party = try Self.relyingParty(settings)
        let sent = try Assertion(body.authenticatorAuthenticationResponse)
        try await redeem(sent.challenge, purpose: .signIn, localId: nil, projectId: projectId, tenantId: tenantId, request: request)
        let found = try await PeerCall.call(
            registry, FindPasskey.self, .init(projectId: projectId, tenantId: tenantId, credentialId: Base64URL.encode(sent.credentialId)),
            requestID: request.requestID
        )
        let account = try await PeerCall.call(
            registry, GetAccount.self, .init(projectId: projectId, tenantId: tenantId, localId: found.localId), requestID: request.requestID
        )
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        let stored = found.credential
        guard let keyBytes = Base64Bytes.decode(stored.publicKey), let key = try? COSEKey(CBORDecoder.decode(keyBytes)) else {
            logger.error("a stored passkey's key does not parse", metadata: ["requestId": "\(request.requestID)"])
            throw Self.refused
        }
        let assertion: RelyingParty.Assertion
        do {
            assertion = try party.authenticate(
                clientDataJSON: sent.clientData, authenticatorData: sent.authenticatorData, signature: sent.signature,
                userHandle: sent.userHandle, challenge: sent.challenge, publicKey: key,
                storedSignCount: UInt32(clamping: stored.signCount), storedUserHandle: Self.userHandle(found.localId)
            )
        } catch {
            logger.info("passkey sign-in refused", metadata: ["reason": "\(error.reason)", "requestId": "\(request.requestID)"])
            throw Self.refused
        }
        _ = try await PeerCall.call(
            registry, RecordPasskeyUse.self,
            .init(
                projectId: projectId, tenantId: tenantId, credentialId: stored.credentialId, previousSignCount: stored.signCount,
                signCount: Int64(assertion.signCount)
            ),
            requestID: request.requestID
        )
        let recorded = try await PeerCall.call(
            registry, RecordSignIn.self,
            .init(projectId: projectId, tenantId: tenantId, localId: found.localId, firstFactor: SignInProvider.passkey.rawValue),
            requestID: request.requestID
        )
        let signedIn = try await functions.beforeSignIn(
            recorded, settings: settings, projectId: projectId, tenantId: tenantId, signInMethod: "passkey", request: request
        )
        // A passkey verified with user verification is a sign-in no second factor follows (decision
        // 24): under MANDATORY too, its session is a full one, and it counts for step-up as a second
        // factor passed now (a user with a TOTP factor who signs in with a passkey can still change
        // the password: reauthenticating with the passkey moves the time).
        let tokens = try await PeerCall.call(
            sessions, IssueSession.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: found.localId, signInProvider: .passkey,
                authTime: recorded.lastSignIn, user: SessionUser(signedIn.account),
                sessionClaims: signedIn.sessionClaims, secondFactorAuthTime: .now,
                firstFactorIdentifier: PasskeyCredential.factorIdentifier(stored.credentialId)
            ),
            requestID: request.requestID
        )
        return Self.signedIn(localId: found.localId, tokens)
    }

    // MARK: parts

    /// Uses the ceremony's challenge up: the one the client data names.
    private func redeem(
        _ challenge: [UInt8], purpose: PasskeyPurpose, localId: String?, projectId: String, tenantId: String?, request: PublicRequest
    ) async throws {
        _ = try await PeerCall.call(
            challenges, RedeemPasskeyChallenge.self,
            .init(projectId: projectId, tenantId: tenantId, purpose: purpose, localId: localId, challenge: Base64URL.encode(challenge)),
            requestID: request.requestID
        )
    }

    /// Removes an account's passkeys among `credentialIds` (another account's are never touched,
    /// unknown ids ignored, as in the Auth emulator) and ends the sessions each one started, as a
    /// withdrawn factor's (decision 4), and returns the ids removed (base64url, as stored). The user's
    /// `deletePasskey` and an admin's use it.
    static func remove(
        _ credentialIds: [String], of localId: String, projectId: String, tenantId: String?, registry: PeerClient<FactorRegistryAPI>,
        sessions: PeerClient<SessionTokenAPI>,
        requestID: String
    ) async throws -> [String] {
        let removed = try await PeerCall.call(
            registry, RemovePasskeys.self,
            .init(
                projectId: projectId, tenantId: tenantId, localId: localId,
                // As stored: the SDKs spell ids in either base64 alphabet (iOS: standard, padded).
                credentialIds: credentialIds.map { Base64Bytes.decode($0).map { Base64URL.encode($0) } ?? $0 }
            ),
            requestID: requestID
        )
        for credentialId in removed.removed {
            _ = try await PeerCall.call(
                sessions, RevokeFactorSessions.self,
                .init(
                    projectId: projectId, tenantId: tenantId, localId: localId,
                    secondFactorIdentifier: PasskeyCredential.factorIdentifier(credentialId)),
                requestID: requestID
            )
        }
        return removed.removed
    }

    static func standard(_ challenge: String) throws -> String {
        guard let bytes = Base64Bytes.decode(challenge) else { throw IdentityToolkitError.unavailable }
        return Base64Bytes.standard(bytes)
    }

    static func signedIn(localId: String, _ tokens: IssueSession.Result) -> JSONValue {
        [
            "localId": .string(localId), "idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken),
            "expiresIn": .string(tokens.expiresIn),
        ]
    }

    /// The client data's bytes (`clientDataJSON`, the proto shape's `clientDataJson`) and the
    /// challenge they name; `nil` unless both decode.
    static func clientData(_ json: String?, _ protoJSON: String?) -> (bytes: [UInt8], challenge: [UInt8])? {
        guard let bytes = (json ?? protoJSON).flatMap(Base64Bytes.decode),
            let challenge = (try? CollectedClientData(bytes)).flatMap({ Base64Bytes.decode($0.challenge) })
        else { return nil }
        return (bytes, challenge)
    }

    /// A registration's bytes, from either request shape.
    struct Registration {
        let clientData: [UInt8]
        let attestationObject: [UInt8]
        let credentialId: [UInt8]?
        /// The challenge as the client data carries it (the check compares it with the redeemed one).
        let challenge: [UInt8]

        init(_ sent: AuthenticatorRegistrationResponse?) throws {
            let response = sent?.response ?? sent?.authenticatorAttestationResponse
            // Refused: no client data or attestation, or an id that does not decode.
            guard let client = PasskeyOperations.clientData(response?.clientDataJSON, response?.clientDataJson),
                let attestationObject = response?.attestationObject.flatMap(Base64Bytes.decode)
            else { throw PasskeyOperations.refused }
            let id = sent?.rawId ?? sent?.id ?? sent?.credentialId
            guard id == nil || id.flatMap(Base64Bytes.decode) != nil else { throw PasskeyOperations.refused }
            (self.clientData, self.attestationObject, self.challenge) = (client.bytes, attestationObject, client.challenge)
            credentialId = id.flatMap(Base64Bytes.decode)
        }
    }

    /// An assertion's bytes, from either request shape.
    struct Assertion {
        let credentialId: [UInt8]
        let clientData: [UInt8]
        let authenticatorData: [UInt8]
        let signature: [UInt8]
        let userHandle: [UInt8]?
        let challenge: [UInt8]

        init(_ sent: AuthenticatorAuthenticationResponse?) throws {
            let response = sent?.response ?? sent?.authenticatorAssertionResponse
            guard let credentialId = (sent?.rawId ?? sent?.id ?? sent?.credentialId).flatMap(Base64Bytes.decode), !credentialId.isEmpty,
                credentialId.count <= AuthenticatorData.maximumCredentialIdLength,
                let client = PasskeyOperations.clientData(response?.clientDataJSON, response?.clientDataJson),
                let authenticatorData = response?.authenticatorData.flatMap(Base64Bytes.decode),
                let signature = response?.signature.flatMap(Base64Bytes.decode)
            else { throw PasskeyOperations.refused }
            let handle = response?.userHandle.nonEmpty
            guard handle == nil || handle.flatMap(Base64Bytes.decode) != nil else { throw PasskeyOperations.refused }
            (self.credentialId, self.clientData, self.authenticatorData, self.signature) = (
                credentialId, client.bytes, authenticatorData, signature
            )
            (userHandle, self.challenge) = (handle.flatMap(Base64Bytes.decode), client.challenge)
        }
    }
}
