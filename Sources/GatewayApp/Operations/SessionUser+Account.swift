import Contracts
import JSONRPC

extension SessionUser {
    /// What an ID token says about `account`: profile and developer claims.
    init(_ account: Account) {
        var claims: [String: JSONValue]?
        if let text = account.customAttributes, case .object(let members)? = try? JSONCoding.parse(Array(text.utf8)) {
            claims = members
        }
        self.init(
            email: account.email, emailVerified: account.emailVerified, phoneNumber: account.phoneNumber,
            displayName: account.displayName, photoUrl: account.photoUrl, identities: account.phoneNumber.map { ["phone": [$0]] },
            customClaims: claims
        )
    }
}
