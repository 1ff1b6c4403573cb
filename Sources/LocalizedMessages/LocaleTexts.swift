import AuthVocabulary

/// One language's built-in texts: Mustache templates rendered as plain text. Every text names what
/// the reader must see: the code or the link, the app's name, and for SMS how long the code lasts and
/// that it is not to be shared.
struct LocaleTexts: Sendable {
    /// The BCP 47 tag the texts are written in (`pt-BR`).
    let locale: String
    /// `{{code}}`, `{{appName}}`, `{{expiry}}` (the lifetime, written with `minutes`).
    let sms: String
    /// The lifetime in minutes: `one` for 1, `other` with `{{count}}` for the rest.
    let minutes: Plural
    /// How a notice names a new phone factor: `{{phoneEnding}}` is the number's last four digits.
    let phoneFactor: String
    /// How a notice names a new authenticator app (TOTP) factor.
    let authenticatorFactor: String
    /// How a notice names a new passkey (a way in that also satisfies MFA, decision 24).
    let passkeyFactor: String
    /// Every kind's subject and body: `{{appName}}`, `{{email}}`, `{{link}}`, and where the kind has
    /// them `{{newEmail}}` (`recoverEmail`, `verifyAndChangeEmail`), `{{secondFactor}}`
    /// (`revertSecondFactorAddition`) and `{{phoneNumber}}` (`revertPhoneNumberAddition`).
    let emails: [OOBRequestType: EmailText]
}

/// A count's two forms, for the languages here (none needs more than one and other).
struct Plural: Sendable {
    let one: String
    let other: String
}

struct EmailText: Sendable {
    let subject: String
    let body: String
}
