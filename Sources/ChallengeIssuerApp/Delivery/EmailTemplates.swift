import Contracts
import PluginKit

/// The text of each out-of-band email. Plain text, one link, the wording Firebase's default
/// templates use, so an app team recognises it.
enum EmailTemplates {
    static func render(_ params: SendEmail.Params, appName: String) -> EmailMessage {
        switch params.requestType {
        default:
            // VERIFY_EMAIL, the only type the registry issues codes for.
            EmailMessage(
                to: params.email,
                subject: "Verify your email for \(appName)",
                text: """
                    Hello,

                    Follow this link to verify your email address.

                    \(params.oobLink)

                    If you didn't ask to verify this address, you can ignore this email.

                    Thanks,

                    Your \(appName) team
                    """
            )
        }
    }
}
