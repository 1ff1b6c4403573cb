import Crypto

/// Who the credentials are for (a scope's `passkeyConfig`): the rp id the authenticator hashes, and
/// the exact origins a browser may run the ceremony on. The two ceremonies' checks are here
/// (registration, WebAuthn Level 2 §7.1; authentication, WebAuthn Level 2 §7.2), apart from the
/// challenge's single use and expiry and the credential's uniqueness, which the stores decide.
public struct RelyingParty: Sendable {
    public let id: String
    public let origins: [String]

    public init(id: String, origins: [String]) {
        self.id = id
        self.origins = origins
    }

    /// Why a response was refused (the client hears `INVALID_AUTHENTICATOR_RESPONSE`; the reason is logged).
    public struct Refusal: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    public struct Registration: Sendable {
        public let credentialId: [UInt8]
        public let publicKey: COSEKey
        public let publicKeyBytes: [UInt8]
        public let signCount: UInt32
        public let aaguid: [UInt8]
        public let flags: AuthenticatorData.Flags
    }

    /// WebAuthn §7.1: a new credential, from the `attestationObject` and `clientDataJSON` a browser returned
    /// for `challenge`. Attestation is requested as `none` and its statement ignored, as python-fido2's
    /// server does for that preference.
    public func register(
        clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8], claimedCredentialId: [UInt8]?
    ) throws(Refusal) -> Registration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let attestation: CBOR
        do { attestation = try CBORDecoder.decode(attestationObject) } catch { throw Refusal(error.description) }
        guard attestation["fmt"]?.text != nil, case .map? = attestation["attStmt"], let rawData = attestation["authData"]?.bytes else {
            throw Refusal("an attestation object without fmt, attStmt and authData")
        }
        let data = try authenticatorData(rawData)
        guard let credential = data.attestedCredential else { throw Refusal("no attested credential data") }
        if let claimedCredentialId, claimedCredentialId != credential.credentialId {
            throw Refusal("the credential id sent is not the authenticator's")
        }
        return Registration(
            credentialId: credential.credentialId, publicKey: credential.publicKey, publicKeyBytes: credential.publicKeyBytes,
            signCount: data.signCount, aaguid: credential.aaguid, flags: data.flags
        )
    }

    public struct Assertion: Sendable {
        public let signCount: UInt32
        public let flags: AuthenticatorData.Flags
    }

    /// WebAuthn §7.2: a sign-in with a stored credential. `storedUserHandle` is the owner's; a `userHandle` sent
    /// must be it. A counter that does not move forward while either count is non-zero is a cloned
    /// authenticator's (synced passkeys report 0 every time, and pass).
    public func authenticate(
        clientDataJSON: [UInt8], authenticatorData rawData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
        challenge: [UInt8], publicKey: COSEKey, storedSignCount: UInt32, storedUserHandle: [UInt8]
    ) throws(Refusal) -> Assertion {
        if let userHandle, !Self.equal(userHandle, storedUserHandle) { throw Refusal("the user handle is another account's") }
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try authenticatorData(rawData)
        guard data.attestedCredential == nil else { throw Refusal("attested credential data in an assertion") }
        guard publicKey.isValidSignature(signature, for: rawData + Array(SHA256.hash(data: clientDataJSON))) else {
            throw Refusal("the signature does not verify")
        }
        if (storedSignCount != 0 || data.signCount != 0) && data.signCount <= storedSignCount {
            throw Refusal("the signature counter went from \(storedSignCount) to \(data.signCount)")
        }
        return Assertion(signCount: data.signCount, flags: data.flags)
    }

    func checkClientData(_ raw: [UInt8], type: String, challenge: [UInt8]) throws(Refusal) {
        let client: CollectedClientData
        do { client = try CollectedClientData(raw) } catch { throw Refusal("client data: \(error.reason)") }
        guard client.type == type else { throw Refusal("client data of type \(client.type)") }
        guard let sent = Base64Bytes.decode(client.challenge), Self.equal(sent, challenge) else {
            throw Refusal("another challenge")
        }
        guard origins.contains(client.origin) else { throw Refusal("origin \(client.origin) is not expected") }
        guard !client.crossOrigin else { throw Refusal("a cross-origin ceremony") }
    }

    func authenticatorData(_ raw: [UInt8]) throws(Refusal) -> AuthenticatorData {
        let data: AuthenticatorData
        do { data = try AuthenticatorData(raw) } catch { throw Refusal(error.description) }
        guard Self.equal(data.rpIdHash, Array(SHA256.hash(data: Array(id.utf8)))) else { throw Refusal("another rp id") }
        guard data.flags.contains(.userPresent) else { throw Refusal("the user was not present") }
        guard data.flags.contains(.userVerified) else { throw Refusal("the user was not verified") }
        return data
    }

    /// Constant time for equal lengths: challenges and handles are compared as secrets.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
