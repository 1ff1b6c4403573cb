extension BuiltInTexts {
    /// English, the last language of every fallback chain. SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let english = LocaleTexts(
        locale: "en",
        sms: "{{code}} is your verification code for {{appName}}. It expires in {{expiry}}. Do not share this code.",
        minutes: Plural(one: "1 minute", other: "{{count}} minutes"),
        phoneFactor: "the phone number ending in {{phoneEnding}}",
        authenticatorFactor: "an authenticator app",
        passkeyFactor: "a passkey",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verify your email for {{appName}}",
                body: """
                    Hello,

                    Follow this link to verify your email address.

                    {{link}}

                    If you didn't ask to verify this address, you can ignore this email.

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .passwordReset: EmailText(
                subject: "Reset your password for {{appName}}",
                body: """
                    Hello,

                    Follow this link to reset your {{appName}} password for your {{email}} account.

                    {{link}}

                    If you didn't ask to reset your password, you can ignore this email.

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Sign in to {{appName}}",
                body: """
                    Hello,

                    We received a request to sign in to {{appName}} using this email address. If you want to sign in \
                    with your {{email}} account, follow this link:

                    {{link}}

                    If you did not request this link, you can safely ignore this email.

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "Verify your new email for {{appName}}",
                body: """
                    Hello,

                    Follow this link to verify {{newEmail}} as the new sign-in email of your {{appName}} account.

                    {{link}}

                    If you didn't ask to change your email, you can ignore this email.

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .recoverEmail: EmailText(
                subject: "Your sign-in email was changed for {{appName}}",
                body: """
                    Hello,

                    Your sign-in email for {{appName}} was changed to {{newEmail}}.

                    If you didn't ask to change your email, follow this link to reset your sign-in email.

                    {{link}}

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "You've added 2-step verification to your {{appName}} account",
                body: """
                    Hello,

                    Your {{appName}} account has been updated with {{secondFactor}} for 2-step verification.

                    If you didn't add this 2-step verification, follow this link to remove it.

                    {{link}}

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "A phone number can now sign in to your {{appName}} account",
                body: """
                    Hello,

                    Your {{appName}} account has been updated with {{phoneNumber}} as a way to sign in.

                    If you didn't add it, follow this link to remove it and sign out everywhere.

                    {{link}}

                    Thanks,

                    Your {{appName}} team
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "A recovery code was used to sign in to your {{appName}} account",
                body: """
                    Hello,

                    A recovery code was just used instead of your second factor to sign in to your {{appName}} account, {{email}}. Each code works only once.

                    If this wasn't you, someone knows your password and one of your recovery codes: follow this link to reset your password, then sign in and make new recovery codes.

                    {{link}}

                    Thanks,

                    Your {{appName}} team
                    """
            ),
        ]
    )
}
