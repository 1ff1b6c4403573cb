import Contracts
import JSONRPC

extension SessionUser {
    /// What an ID token says about `account`: profile and developer claims.
    init(_ account: Account) {
        var claims: [String: JSONValue]?
        if let text = account.customAttributes, case .object(let members)? = try? JSONCoding.parse(Array(text.utf8)) {
            claims = members
        }
        // `firebase.identities`: each provider's ids (`email` is added from the email).
        var identities: [String: [String]] = [:]
        if let phone = account.phoneNumber { identities["phone"] = [phone] }
        for identity in account.federatedIdentities ?? [] { identities[identity.providerId, default: []].append(identity.rawId) }
        self.init(
            email: account.email, emailVerified: account.emailVerified, phoneNumber: account.phoneNumber,
            displayName: account.displayName, photoUrl: account.photoUrl, identities: identities.isEmpty ? nil : identities,
            customClaims: claims
        )
    }
}
