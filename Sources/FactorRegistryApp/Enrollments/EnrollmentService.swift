import Contracts
import IdentityToolkit
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
        guard !enrollment.mfaEnrollmentId.isEmpty, enrollment.mfaEnrollmentId.utf8.count <= 128 else {
            throw AccountService.rejected(.invalidArgument, detail: "malformed enrollment")
        }
        if enrollment.kind == .phone {
            guard let phone = enrollment.phoneNumber, PhoneNumber.isValid(phone) else {
                throw AccountService.rejected(.invalidPhoneNumberFormat)
            }
        }
        try AccountService.checkDisplayName(enrollment.displayName)
        switch try await enrollments.add(
            in: schema, localId: params.localId, enrollment, maximum: maximum, revokeSessions: params.revokeSessions == true
        ) {
        case .added, .alreadyAdded:
            break
        case .accountMissing:
            throw AccountService.rejected(.userNotFound)
        case .phoneAlreadyEnrolled:
            throw AccountService.rejected(.secondFactorExists, detail: "Phone number already enrolled as second factor for this account.")
        case .limitReached:
            throw AccountService.rejected(.secondFactorLimitExceeded)
        case .noFactorToRecover:
            throw AccountService.rejected(.mfaEnrollmentNotFound, detail: "Recovery codes need a second factor enrolled first.")
        }
        guard let account = try await accounts.accounts.account(in: schema, localId: params.localId) else {
            throw AccountService.rejected(.userNotFound)
        }
        return account
    }

    func replace(_ params: ReplaceEnrollments.Params) async throws -> Account {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let enrollments = try Self.checkedPhoneFactors(params.enrollments, maximum: maximum)
        guard try await self.enrollments.replace(in: schema, localId: params.localId, enrollments) else {
            throw AccountService.rejected(.userNotFound)
        }
        guard let account = try await accounts.accounts.account(in: schema, localId: params.localId) else {
            throw AccountService.rejected(.userNotFound)
        }
        return account
    }

    /// The admin-written list of §2.4: repeated numbers dropped (first wins) before the id checks.
    static func checkedPhoneFactors(_ items: [Enrollment], maximum: Int) throws -> [Enrollment] {
        var numbers: Set<String> = []
        var kept: [Enrollment] = []
        for item in items {
            guard let number = item.phoneNumber, PhoneNumber.isValid(number) else {
                throw AccountService.rejected(.invalidMFAPhoneNumber, detail: "Invalid format.")
            }
            if numbers.insert(number).inserted { kept.append(item) }
        }
        var ids: Set<String> = []
        for item in kept {
            guard !item.mfaEnrollmentId.isEmpty else {
                throw AccountService.rejected(.invalidMFAEnrollmentID, detail: "mfaEnrollmentId must be defined.")
            }
            guard item.mfaEnrollmentId.utf8.count <= 128 else {
                throw AccountService.rejected(.invalidMFAEnrollmentID, detail: "mfaEnrollmentId must be at most 128 bytes.")
            }
            guard ids.insert(item.mfaEnrollmentId).inserted else { throw AccountService.rejected(.duplicateMFAEnrollmentID) }
            try AccountService.checkDisplayName(item.displayName)
        }
        guard kept.count <= maximum else { throw AccountService.rejected(.secondFactorLimitExceeded) }
        return kept.map {
            Enrollment(
                mfaEnrollmentId: $0.mfaEnrollmentId, kind: .phone, displayName: $0.displayName,
                phoneNumber: $0.phoneNumber, enrolledAt: $0.enrolledAt)
        }
    }

    func remove(_ params: RemoveEnrollment.Params) async throws -> Account {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard try await enrollments.remove(in: schema, localId: params.localId, enrollmentId: params.mfaEnrollmentId) else {
            throw AccountService.rejected(.mfaEnrollmentNotFound)
        }
        guard let account = try await accounts.accounts.account(in: schema, localId: params.localId) else {
            throw AccountService.rejected(.userNotFound)
        }
        return account
    }
}
