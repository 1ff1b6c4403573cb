import AuthVocabulary

/// The values each message offers its template. The same names in the built-in texts, in operators'
/// templates (checked against these when stored) and in docs/operations.md.
enum MessagePlaceholders {
    /// `expiry` is the lifetime in words ("10 minutes"), `minutes` the bare number.
    static let sms: Set<String> = ["code", "appName", "expiry", "minutes"]

    static func email(_ kind: OOBRequestType) -> Set<String> {
        switch kind {
        case .verifyAndChangeEmail, .recoverEmail: ["appName", "email", "link", "newEmail"]
        case .revertSecondFactorAddition: ["appName", "email", "link", "secondFactor"]
        case .revertPhoneNumberAddition: ["appName", "email", "link", "phoneNumber"]
        case .verifyEmail, .passwordReset, .emailSignIn, .recoveryCodeUsed: ["appName", "email", "link"]
        }
    }
}
