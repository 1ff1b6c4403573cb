import AuthVocabulary
import Contracts
import JSONRPC
import JWTKit

/// The claims of an ID token, exactly as contract §3.6 lists them (what Firebase clients and the
/// Admin SDKs read). Developer claims sit at the top level; reserved names always win.
struct IDTokenClaims: JWTPayload, Equatable {
    var issuer: String
    var audience: String
    var subject: String
    var issuedAt: EpochSeconds
    var expiresAt: EpochSeconds
    var authTime: EpochSeconds
    var email: String?
    var emailVerified: Bool?
    var phoneNumber: String?
    var name: String?
    var picture: String?
    var providerID: String?
    var identities: [String: [String]]
    var signInProvider: SignInProvider
    var signInSecondFactor: FactorKind?
    var secondFactorIdentifier: String?
    /// The first factor's own id where it has one (`passkey:<credential id>`, beside
    /// `second_factor_identifier`): a renewed session keeps it, and a deleted passkey's tokens end.
    var firstFactorIdentifier: String?
    /// `acr`: `phr` (OpenID EAP ACR values, "phishing-resistant") for a passkey sign-in, which is
    /// bound to the origin by WebAuthn and passed user verification; absent otherwise.
    var authenticationContext: String?
    var tenant: String?
    /// Our additions under `firebase` (docs/mfa-policy.md): when the session last passed a second
    /// factor, and the end of an enrollment-only session (with `mfa_enrollment_required: true`).
    var secondFactorAuthTime: EpochSeconds?
    var enrollmentOnlyUntil: EpochSeconds?
    var customClaims: [String: JSONValue]

    /// The `acr` a passkey sign-in's tokens carry.
    static let phishingResistant = "phr"

    /// Names developers may not set through custom claims.
    static var reserved: Set<String> { ReservedClaims.names }

    /// jwt-kit calls this after the signature checked out; `exp`, `iss` and `aud` are checked by
    /// ``IDTokenIssuer/verify(_:now:)``, which tells an expired token from an invalid one.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in customClaims where !Self.reserved.contains(name) {
            try container.encode(value, forKey: Key(name))
        }
        try container.encode(issuer, forKey: Key("iss"))
        try container.encode(audience, forKey: Key("aud"))
        try container.encode(authTime, forKey: Key("auth_time"))
        try container.encode(subject, forKey: Key("user_id"))
        try container.encode(subject, forKey: Key("sub"))
        try container.encode(issuedAt, forKey: Key("iat"))
        try container.encode(expiresAt, forKey: Key("exp"))
        try container.encodeIfPresent(email, forKey: Key("email"))
        try container.encodeIfPresent(emailVerified, forKey: Key("email_verified"))
        try container.encodeIfPresent(phoneNumber, forKey: Key("phone_number"))
        try container.encodeIfPresent(name, forKey: Key("name"))
        try container.encodeIfPresent(picture, forKey: Key("picture"))
        try container.encodeIfPresent(providerID, forKey: Key("provider_id"))
        try container.encodeIfPresent(authenticationContext, forKey: Key("acr"))
        var firebase = container.nestedContainer(keyedBy: Key.self, forKey: Key("firebase"))
        try firebase.encode(identities, forKey: Key("identities"))
        try firebase.encode(signInProvider, forKey: Key("sign_in_provider"))
        try firebase.encodeIfPresent(signInSecondFactor, forKey: Key("sign_in_second_factor"))
        try firebase.encodeIfPresent(secondFactorIdentifier, forKey: Key("second_factor_identifier"))
        try firebase.encodeIfPresent(firstFactorIdentifier, forKey: Key("first_factor_identifier"))
        try firebase.encodeIfPresent(tenant, forKey: Key("tenant"))
        try firebase.encodeIfPresent(secondFactorAuthTime, forKey: Key("second_factor_auth_time"))
        if let enrollmentOnlyUntil {
            try firebase.encode(true, forKey: Key("mfa_enrollment_required"))
            try firebase.encode(enrollmentOnlyUntil, forKey: Key("mfa_enrollment_deadline"))
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        issuer = try container.decode(String.self, forKey: Key("iss"))
        audience = try container.decode(String.self, forKey: Key("aud"))
        subject = try container.decode(String.self, forKey: Key("sub"))
        issuedAt = try container.decode(EpochSeconds.self, forKey: Key("iat"))
        expiresAt = try container.decode(EpochSeconds.self, forKey: Key("exp"))
        authTime = try container.decode(EpochSeconds.self, forKey: Key("auth_time"))
        email = try container.decodeIfPresent(String.self, forKey: Key("email"))
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: Key("email_verified"))
        phoneNumber = try container.decodeIfPresent(String.self, forKey: Key("phone_number"))
        name = try container.decodeIfPresent(String.self, forKey: Key("name"))
        picture = try container.decodeIfPresent(String.self, forKey: Key("picture"))
        providerID = try container.decodeIfPresent(String.self, forKey: Key("provider_id"))
        authenticationContext = try container.decodeIfPresent(String.self, forKey: Key("acr"))
        let firebase = try container.nestedContainer(keyedBy: Key.self, forKey: Key("firebase"))
        identities = try firebase.decode([String: [String]].self, forKey: Key("identities"))
        signInProvider = try firebase.decode(SignInProvider.self, forKey: Key("sign_in_provider"))
        signInSecondFactor = try firebase.decodeIfPresent(FactorKind.self, forKey: Key("sign_in_second_factor"))
        secondFactorIdentifier = try firebase.decodeIfPresent(String.self, forKey: Key("second_factor_identifier"))
        firstFactorIdentifier = try firebase.decodeIfPresent(String.self, forKey: Key("first_factor_identifier"))
        tenant = try firebase.decodeIfPresent(String.self, forKey: Key("tenant"))
        secondFactorAuthTime = try firebase.decodeIfPresent(EpochSeconds.self, forKey: Key("second_factor_auth_time"))
        enrollmentOnlyUntil = try firebase.decodeIfPresent(EpochSeconds.self, forKey: Key("mfa_enrollment_deadline"))
        var custom: [String: JSONValue] = [:]
        for key in container.allKeys where !Self.reserved.contains(key.stringValue) && key.stringValue != "user_id" {
            custom[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        customClaims = custom
    }

    init(
        issuer: String, audience: String, subject: String, issuedAt: EpochSeconds, expiresAt: EpochSeconds, authTime: EpochSeconds,
        user: SessionUser, signInProvider: SignInProvider, signInSecondFactor: FactorKind?, secondFactorIdentifier: String?,
        tenant: String?, secondFactorAuthTime: EpochSeconds? = nil, enrollmentOnlyUntil: EpochSeconds? = nil,
        firstFactorIdentifier: String? = nil
    ) {
        self.firstFactorIdentifier = firstFactorIdentifier
        authenticationContext = signInProvider == .passkey ? Self.phishingResistant : nil
        self.secondFactorAuthTime = secondFactorAuthTime
        self.enrollmentOnlyUntil = enrollmentOnlyUntil
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        email = user.email
        emailVerified = user.email == nil ? nil : (user.emailVerified ?? false)
        phoneNumber = user.phoneNumber
        name = user.displayName
        picture = user.photoUrl
        providerID = signInProvider == .anonymous ? SignInProvider.anonymous.rawValue : nil
        var identities = user.identities ?? [:]
        if let email = user.email { identities["email"] = [email] }
        if let phone = user.phoneNumber, identities["phone"] == nil { identities["phone"] = [phone] }
        self.identities = identities
        self.signInProvider = signInProvider
        self.signInSecondFactor = signInSecondFactor
        self.secondFactorIdentifier = secondFactorIdentifier
        self.tenant = tenant
        customClaims = user.customClaims ?? [:]
    }
}
