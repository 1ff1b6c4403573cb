/// Claim names an ID token reserves for itself: developer claims may not use them (Firebase's list).
public enum ReservedClaims {
    public static let names: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti",
        "nbf", "nonce", "sub", "user_id", "email", "email_verified", "phone_number", "name", "picture", "provider_id",
    ]

    /// Developer claims are at most this many bytes of JSON.
    public static let maximumBytes = 1000
}
