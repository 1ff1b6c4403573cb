import Contracts
import JSONRPC

/// `enrollment.add` and `enrollment.remove`, with the contract's checks and strings.
struct EnrollmentService: Sendable {
    let enrollments: EnrollmentRepository
    let accounts: AccountService
    /// At most this many second factors per user (decision 8).
    let maximum: Int

    func add(_ params: AddEnrollment.Params) async throws -> Account {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let enrollment = params.enrollment
        guard RandomIdentifier.isValid(enrollment.mfaEnrollmentId), ["phone", "totp"].contains(enrollment.kind) else {
            throw AccountService.rejected("INVALID_ARGUMENT : malformed enrollment")
        }
        if enrollment.kind == "phone" {
            guard let phone = enrollment.phoneNumber, PhoneNumber.isValid(phone) else {
                throw AccountService.rejected(PhoneNumber.invalidFormat)
            }
        }
        try AccountService.checkDisplayName(enrollment.displayName)
        switch try await enrollments.add(in: schema, localId: params.localId, enrollment, maximum: maximum) {
        case .added, .alreadyAdded:
            break
        case .accountMissing:
            throw AccountService.rejected("USER_NOT_FOUND")
        case .phoneAlreadyEnrolled:
            throw AccountService.rejected("SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
        case .limitReached:
            throw AccountService.rejected("SECOND_FACTOR_LIMIT_EXCEEDED")
        }
        guard let account = try await accounts.accounts.account(in: schema, localId: params.localId) else {
            throw AccountService.rejected("USER_NOT_FOUND")
        }
        return account
    }

    func remove(_ params: RemoveEnrollment.Params) async throws -> Account {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard try await enrollments.remove(in: schema, localId: params.localId, enrollmentId: params.mfaEnrollmentId) else {
            throw AccountService.rejected("MFA_ENROLLMENT_NOT_FOUND")
        }
        guard let account = try await accounts.accounts.account(in: schema, localId: params.localId) else {
            throw AccountService.rejected("USER_NOT_FOUND")
        }
        return account
    }
}
