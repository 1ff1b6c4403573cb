import Contracts
import JSONRPC
import ServiceKit
import ServiceTransport

/// challenge-issuer's RPC methods, registered with the component that serves each. The gateway
/// calls them all; factor-registry also lists and deletes TOTP secrets no enrollment owns.
enum ChallengeIssuerMethods {
    static let gatewayOnly = RPCCallerPolicy.only([ServiceName.gateway.rawValue])

    /// WebAuthn challenges for passkey enrollment and sign-in.
    static func registerPasskeys(_ methods: inout RPCMethodTable, challenges: PasskeyChallenges) {
        methods.register(IssuePasskeyChallenge.self, callers: gatewayOnly) { params, _ in try await challenges.issue(params) }
        methods.register(RedeemPasskeyChallenge.self, callers: gatewayOnly) { params, _ in
            try await challenges.redeem(params)
            return RPCEmpty()
        }
    }

    static func registerEmail(_ methods: inout RPCMethodTable, email: EmailDelivery) {
        methods.register(SendEmail.self, callers: gatewayOnly) { params, _ in try await email.send(params) }
        methods.register(ListOutboxOOBCodes.self, callers: gatewayOnly) { params, _ in try await email.oobCodes(params) }
        methods.register(ForgetOutboxOOBCode.self, callers: gatewayOnly) { params, _ in
            try await email.forget(params)
            return RPCEmpty()
        }
    }

    static func registerTOTP(_ methods: inout RPCMethodTable, totp: TOTPFactors, recovery: RecoveryCodes) {
        methods.register(StartTOTPEnrollment.self, callers: gatewayOnly) { params, _ in try await totp.startEnrollment(params) }
        methods.register(ImportTOTPSecrets.self, callers: gatewayOnly) { params, _ in try await totp.importSecrets(params) }
        methods.register(FinalizeTOTPEnrollment.self, callers: gatewayOnly) { params, _ in
            try await totp.finalizeEnrollment(params)
            return RPCEmpty()
        }
        methods.register(VerifyTOTP.self, callers: gatewayOnly) { params, _ in
            try await totp.verify(params)
            return RPCEmpty()
        }
        // The gateway deletes a withdrawn factor's secret; factor-registry an orphan's (a secret whose
        // enrollment was never recorded or whose deletion failed: OrphanSecretSweep).
        let gatewayOrRegistry = RPCCallerPolicy.only([ServiceName.gateway.rawValue, ServiceName.factorRegistry.rawValue])
        // A withdrawn recovery-code enrollment's set goes the same way (its id names it).
        methods.register(DeleteTOTPFactor.self, callers: gatewayOrRegistry) { params, _ in
            try await totp.delete(params)
            try await recovery.delete(
                enrollmentId: params.mfaEnrollmentId, localId: params.localId, in: try ScopeSchema.of(params.projectId, params.tenantId)
            )
            return RPCEmpty()
        }
        methods.register(GenerateRecoveryCodes.self, callers: gatewayOnly) { params, _ in try await recovery.generate(params) }
        methods.register(RedeemRecoveryCode.self, callers: gatewayOnly) { params, _ in try await recovery.redeem(params) }
        methods.register(CountRecoveryCodes.self, callers: gatewayOnly) { params, _ in try await recovery.count(params) }
        methods.register(ListStoredTOTPFactors.self, callers: .only([ServiceName.factorRegistry.rawValue])) { params, _ in
            try await totp.listStored(params)
        }
    }

    static func registerPhone(
        _ methods: inout RPCMethodTable, phone: PhoneVerifications, proofs: PhoneProofs, receipts: IosReceipts
    ) {
        methods.register(StartPhoneVerification.self, callers: gatewayOnly) { params, _ in try await phone.start(params) }
        methods.register(DeliverPhoneVerification.self, callers: gatewayOnly) { params, _ in try await phone.deliver(params) }
        methods.register(VerifyPhoneCode.self, callers: gatewayOnly) { params, _ in try await phone.verify(params) }
        methods.register(ListOutboxVerificationCodes.self, callers: gatewayOnly) { params, _ in
            try await phone.verificationCodes(params)
        }
        methods.register(IssuePhoneProof.self, callers: gatewayOnly) { params, _ in try await proofs.issue(params) }
        methods.register(RedeemPhoneProof.self, callers: gatewayOnly) { params, _ in
            try await proofs.redeem(params)
            return RPCEmpty()
        }
        methods.register(IssueIosReceipt.self, callers: gatewayOnly) { params, _ in try await receipts.issue(params) }
    }

    /// The admin API's view of the SMS pumping defence, and an operator's resume of a paused destination.
    static func registerSMSDefense(_ methods: inout RPCMethodTable, defense: SMSDefense) {
        methods.register(GetSMSDefenseStatus.self, callers: gatewayOnly) { params, _ in try await defense.status(params) }
        methods.register(ResumeSMSRegion.self, callers: gatewayOnly) { params, _ in try await defense.resume(params) }
    }

    static func registerAccounts(_ methods: inout RPCMethodTable, challenges: AccountChallenges) {
        methods.register(ForgetAccountChallenges.self, callers: gatewayOnly) { params, _ in
            .init(deleted: try await challenges.forget(params))
        }
    }
}
