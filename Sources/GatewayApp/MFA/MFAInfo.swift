import Contracts
import JSONRPC

/// `mfaInfo` entries as the contract shows them (§2.2, §2.3, §3.2).
enum MFAInfo {
    /// `masked`: first-factor answers (the MFA branch) mask phone numbers and have no
    /// `unobfuscatedPhoneInfo`; lookup and admin answers show the real number in both.
    static func entries(_ enrollments: [Enrollment], masked: Bool) -> [MFAEnrollment] {
        enrollments.map { entry($0, masked: masked) }
    }

    /// The first-factor answers' `mfaInfo`, as JSON for their hand-made answers.
    static func hints(_ enrollments: [Enrollment]) throws -> JSONValue {
        try JSONCoding.value(of: entries(enrollments, masked: true))
    }

    static func entry(_ enrollment: Enrollment, masked: Bool) -> MFAEnrollment {
        var entry = MFAEnrollment(
            mfaEnrollmentId: enrollment.mfaEnrollmentId, displayName: enrollment.displayName, enrolledAt: enrollment.enrolledAt
        )
        SecondFactorKinds.named(enrollment.kind)?.hint(enrollment, masked: masked, in: &entry)
        return entry
    }
}
