import Contracts
import JSONRPC

/// `mfaInfo` entries as the contract shows them (§2.2, §2.3, §3.2).
enum MFAInfo {
    /// Lookup and admin answers: the real number in both `phoneInfo` and `unobfuscatedPhoneInfo`.
    static func full(_ enrollments: [Enrollment]) -> JSONValue {
        .array(enrollments.map { entry($0, masked: false) })
    }

    /// First-factor answers (the MFA branch): phone numbers masked, no `unobfuscatedPhoneInfo`.
    static func hints(_ enrollments: [Enrollment]) -> JSONValue {
        .array(enrollments.map { entry($0, masked: true) })
    }

    static func entry(_ enrollment: Enrollment, masked: Bool) -> JSONValue {
        var members: [String: JSONValue] = [
            "mfaEnrollmentId": .string(enrollment.mfaEnrollmentId), "enrolledAt": .string(enrollment.enrolledAt),
        ]
        if let name = enrollment.displayName { members["displayName"] = .string(name) }
        if let kind = SecondFactorKinds.named(enrollment.kind) {
            members.merge(kind.hint(enrollment, masked: masked)) { _, own in own }
        }
        return .object(members)
    }
}
