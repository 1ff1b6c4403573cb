import Contracts
import Foundation
import JSONRPC

/// `oobCode.create` and `oobCode.apply` (contract §2.4, §2.5). Only `VERIFY_EMAIL` is served; the
/// other request types are refused by the gateway before they get here.
struct OobCodeService: Sendable {
    let codes: OobCodeRepository
    let accounts: AccountService
    /// How long a code works (Firebase's email verification links last three days).
    let lifetime: Duration

    static let supportedRequestTypes: Set<String> = ["VERIFY_EMAIL"]

    func create(_ params: CreateOobCode.Params) async throws -> CreateOobCode.Result {
        guard Self.supportedRequestTypes.contains(params.requestType) else {
            throw AccountService.rejected("INVALID_REQ_TYPE : \(params.requestType) is not supported")
        }
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let account: Account?
        if let localId = params.localId {
            account = try await accounts.accounts.account(in: schema, localId: localId)
        } else if let email = params.email, !email.isEmpty {
            account = try await accounts.accounts.credentials(in: schema, email: email)?.account
        } else {
            throw AccountService.rejected("MISSING_EMAIL")
        }
        guard let account else { throw AccountService.rejected("USER_NOT_FOUND") }
        guard let email = account.email else { throw AccountService.rejected("MISSING_EMAIL") }
        if let address = params.clientAddress {
            try await accounts.limits.admit(address: address)
            try await accounts.limits.admitMail(schema, localId: account.localId)
        }
        let code = Self.makeCode()
        try await codes.insert(
            in: schema, code: code, requestType: params.requestType, localId: account.localId, email: email, lifetime: lifetime
        )
        return .init(oobCode: code, email: email, localId: account.localId)
    }

    func apply(_ params: ApplyOobCode.Params) async throws -> ApplyOobCode.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        // A code is 54 characters; anything else cannot be one, and is not worth a hash and a query.
        guard params.oobCode.utf8.count == 54 else { throw AccountService.rejected("INVALID_OOB_CODE") }
        switch try await codes.applyVerifyEmail(in: schema, code: params.oobCode) {
        case .applied(let requestType, let localId):
            guard let account = try await accounts.accounts.account(in: schema, localId: localId) else {
                throw AccountService.rejected("INVALID_OOB_CODE")
            }
            return .init(requestType: requestType, account: account)
        case .expired:
            throw AccountService.rejected("EXPIRED_OOB_CODE")
        case .unknown, .stale:
            throw AccountService.rejected("INVALID_OOB_CODE")
        }
    }

    /// 40 random bytes from the system CSPRNG as 54 base64url characters (the emulator's length).
    static func makeCode() -> String { Base64URL.random(byteCount: 40) }
}
