import Contracts

/// Whose `email_verified` proves that an address is its user's (issue 56, F-3). A provider can say
/// anything about an address it does not host: an OpenID Connect provider the operator added may
/// let its users claim any address, and an account "verified" that way would let the victim's later
/// Google sign-in link into it while the attacker keeps access. So an address counts as verified
/// only when a source vouches for it that is authoritative for it, by Firebase's published rules:
/// - Apple, for every address it hands out (its private relay addresses included);
/// - Google, for the addresses it hosts: Gmail (`gmail.com`, `googlemail.com`) and a Google
///   Workspace domain, which its tokens name as `hd` (Google's guidance for backends: "email_verified
///   is true and hd is set");
/// - an OpenID Connect provider the operator marked `trustEmailVerified` (off by default).
/// Anyone else's address is stored unverified, and a trusted provider's proof of it takes the
/// account over (`AddressProof`). Email links are our own proof and need no provider.
enum EmailTrust {
    static let gmailDomains: Set<String> = ["gmail.com", "googlemail.com"]

    /// Whether the provider's claim that `email` is verified proves it here.
    static func vouches(for email: String, providerId: String, hostedDomain: String?, config: IdentityProviderConfig) -> Bool {
        let domain = email.split(separator: "@").last.map { $0.lowercased() } ?? ""
        switch providerId {
        case DefaultSupportedProviders.apple:
            return true
        case DefaultSupportedProviders.google:
            if gmailDomains.contains(domain) { return true }
            guard let hostedDomain, !hostedDomain.isEmpty else { return false }
            return hostedDomain.lowercased() == domain
        default:
            return config.kind == .oidc && config.trustEmailVerified == true
        }
    }
}
