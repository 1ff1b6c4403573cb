import Contracts

/// A request that carries an app's proof that it is a real app before an SMS is sent (contract
/// §2.13): `sendVerificationCode`'s body, the phone member of the MFA starts.
protocol AppProofMembers {
    var recaptchaToken: String? { get }
    /// What some SDK versions send for a reCAPTCHA: the same check.
    var captchaResponse: String? { get }
    var iosReceipt: String? { get }
    var iosSecret: String? { get }
    var safetyNetToken: String? { get }
    var playIntegrityToken: String? { get }
}

extension AppProofMembers {
    var proof: AppVerificationProof {
        AppVerificationProof(
            recaptchaToken: recaptchaToken ?? captchaResponse, iosReceipt: iosReceipt, iosSecret: iosSecret,
            safetyNetToken: safetyNetToken, playIntegrityToken: playIntegrityToken
        )
    }
}
