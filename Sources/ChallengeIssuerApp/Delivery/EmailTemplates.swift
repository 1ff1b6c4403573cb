import Contracts
import PluginKit

/// The text of each out-of-band email. Plain text, one link, the wording of Firebase's default
/// templates, so an app team recognises it. The link is the only way to act on a message; the
/// notices (an email change, a new second factor) say what happened and how to undo it.
enum EmailTemplates {
    static func render(_ params: SendEmail.Params, appName: String) -> EmailMessage {
        let (subject, body) = text(params, appName: appName)
        return EmailMessage(
            to: params.email, subject: subject,
            text: """
                Hello,

                \(body)

                Thanks,

                Your \(appName) team
                """
        )
    }

    private static func text(_ params: SendEmail.Params, appName: String) -> (subject: String, body: String) {
        let link = params.oobLink
        switch params.requestType {
        case "PASSWORD_RESET":
            return (
                "Reset your password for \(appName)",
                """
                Follow this link to reset your \(appName) password for your \(params.email) account.

                \(link)

                If you didn't ask to reset your password, you can ignore this email.
                """
            )
        case "EMAIL_SIGNIN":
            return (
                "Sign in to \(appName)",
                """
                We received a request to sign in to \(appName) using this email address. If you want to sign in with \
                your \(params.email) account, follow this link:

                \(link)

                If you did not request this link, you can safely ignore this email.
                """
            )
        case "VERIFY_AND_CHANGE_EMAIL":
            return (
                "Verify your new email for \(appName)",
                """
                Follow this link to verify \(params.email) as the new sign-in email of your \(appName) account.

                \(link)

                If you didn't ask to change your email, you can ignore this email.
                """
            )
        case "RECOVER_EMAIL":
            return (
                "Your sign-in email was changed for \(appName)",
                """
                Your sign-in email for \(appName) was changed to \(params.newEmail ?? "another address").

                If you didn't ask to change your email, follow this link to reset your sign-in email.

                \(link)
                """
            )
        case "REVERT_SECOND_FACTOR_ADDITION":
            return (
                "You've added 2-step verification to your \(appName) account",
                """
                Your \(appName) account has been updated with \(params.secondFactor ?? "a new second factor") for \
                2-step verification.

                If you didn't add this 2-step verification, follow this link to remove it.

                \(link)
                """
            )
        default:
            return (
                "Verify your email for \(appName)",
                """
                Follow this link to verify your email address.

                \(link)

                If you didn't ask to verify this address, you can ignore this email.
                """
            )
        }
    }
}
