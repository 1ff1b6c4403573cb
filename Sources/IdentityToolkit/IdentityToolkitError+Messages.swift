extension IdentityToolkitError {
    // The business errors whose detail the contract fixes word for word and that more than one
    // place (or more than one service) answers: one spelling each.

    /// Any phone number that is not E.164 (decision 7).
    public static let invalidPhoneNumberFormat: IdentityToolkitError = .init(Code.invalidPhoneNumber, detail: "Invalid format.")
    /// A phone would become the first factor of a user with second factors (§2.13).
    public static let phoneFirstFactorOnMFAUser: IdentityToolkitError = .init(
        Code.unsupportedFirstFactor, detail: "A phone number cannot be set as a first factor on an SMS based MFA user."
    )
    public static let smsMFADisabled: IdentityToolkitError = .init(Code.operationNotAllowed, detail: "SMS based MFA not enabled.")
    public static let totpMFADisabled: IdentityToolkitError = .init(Code.operationNotAllowed, detail: "TOTP based MFA not enabled.")
    public static let missingMFAEnrollmentID: IdentityToolkitError = .init(
        Code.missingMFAEnrollmentID, detail: "No second factor identifier is provided."
    )
    public static let mfaProviderNotSupported: IdentityToolkitError = .init(
        Code.invalidArgument, detail: "MFA provider not supported!"
    )
    public static let phoneAlreadyEnrolled: IdentityToolkitError = .init(
        Code.secondFactorExists, detail: "Phone number already enrolled as second factor for this account."
    )
    public static let unexpectedUserID: IdentityToolkitError = .init(Code.unexpectedParameter, detail: "User ID")
    public static let targetProjectNeedsAdmin: IdentityToolkitError = .init(
        Code.insufficientPermission, detail: "Only authenticated requests can specify target_project_id."
    )
}
