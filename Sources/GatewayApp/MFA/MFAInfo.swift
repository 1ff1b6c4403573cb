import Contracts

/// `mfaInfo` entries as the contract shows them (§2.2, §2.3, §3.2).
enum MFAInfo {
    /// `masked`: first-factor answers (the MFA branch) mask phone numbers and have no
    /// `unobfuscatedPhoneInfo`; lookup and admin answers show the real number in both.
    static func entries(_ enrollments: [Enrollment], masked: Bool) -> [MFAEnrollment] {
        enrollments.map { entry($0, masked: masked) }
    }

    static func entry(_ enrollment: Enrollment, masked: Bool) -> MFAEnrollment {
        var entry = MFAEnrollment(
            mfaEnrollmentId: enrollment.mfaEnrollmentId, displayName: enrollment.displayName, enrolledAt: enrollment.enrolledAt
        )
        SecondFactorKinds.of(enrollment.kind).hint(enrollment, masked: masked, in: &entry)
        return entry
    }
}
