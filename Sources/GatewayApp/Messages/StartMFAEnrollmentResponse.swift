/// The answer of `v2/accounts/mfaEnrollment:start`: the started kind's member.
struct StartMFAEnrollmentResponse: DiscoveryMessage {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaEnrollmentResponse"
    var phoneSessionInfo: StartMFAPhoneResponseInfo?
    var totpSessionInfo: StartMFATOTPEnrollmentResponseInfo?
}
