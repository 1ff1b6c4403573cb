import AuthVocabulary
import Contracts
import JSONRPC
import Testing

@testable import GatewayApp

/// Which kind a request is for, and how each kind shows in `mfaInfo` (contract §2.8, §3.2).
@Suite("Second-factor kinds")
struct SecondFactorKindsTests {
    let kinds = MFASignInFinalizeTests().operations.kinds

    @Test("a request is TOTP only when it carries the TOTP member alone; otherwise phone")
    func kindOfRequest() {
        func kind(_ body: FinalizeMFASignInRequest) -> FactorKind { type(of: kinds.kind { $0.isNamed(by: body) }).kind }
        #expect(kind(FinalizeMFASignInRequest(totpVerificationInfo: .init())) == .totp)
        #expect(kind(FinalizeMFASignInRequest(phoneVerificationInfo: .init())) == .phone)
        #expect(kind(FinalizeMFASignInRequest()) == .phone)
        #expect(kind(FinalizeMFASignInRequest(phoneVerificationInfo: .init(), totpVerificationInfo: .init())) == .phone)
        #expect(kind(FinalizeMFASignInRequest(mfaEnrollmentId: "recovery-1", totpVerificationInfo: .init())) == .recoveryCode)
    }

    @Test("the kinds served, the strategies listed and the kinds that exist are one list, each kind its own strategy")
    func servedKindsAreEveryKind() {
        let served = kinds.all.map { type(of: $0).kind }
        #expect(served == SecondFactorKinds.types.map { $0.kind })
        #expect(Set(served) == Set(FactorKind.allCases))
        for kind in FactorKind.allCases { #expect(SecondFactorKinds.of(kind).kind == kind) }
    }

    @Test("which kinds stop a first-factor sign-in: any factor while MFA is on, TOTP alone when only TOTP is configured")
    func kindsThatStopASignIn() {
        var settings = AuthSettings.projectDefaults
        settings.mfaConfig.state = .disabled
        settings.mfaConfig.providerConfigs = []
        #expect(SecondFactorPolicy.requiredKinds(settings).isEmpty)
        settings.mfaConfig.providerConfigs = [.init(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 5))]
        #expect(SecondFactorPolicy.requiredKinds(settings) == [.totp])
        settings.mfaConfig.state = .enabled
        #expect(Set(SecondFactorPolicy.requiredKinds(settings)) == [.phone, .totp])
        settings.mfaConfig.providerConfigs = []
        settings.mfaConfig.state = .mandatory
        #expect(Set(SecondFactorPolicy.requiredKinds(settings)) == [.phone, .totp])
    }

    @Test("a sign-in can be started (a code sent) for a phone factor only, to its number")
    func kindsThatStartASignIn() {
        let phone = Enrollment(mfaEnrollmentId: "p", kind: .phone, displayName: nil, phoneNumber: "+15550100", enrolledAt: "")
        #expect(SecondFactorKinds.of(.phone).startsSignIn(to: phone) == "+15550100")
        for kind in [FactorKind.totp, .recoveryCode] {
            let factor = Enrollment(mfaEnrollmentId: "f", kind: kind, displayName: nil, phoneNumber: nil, enrolledAt: "")
            #expect(SecondFactorKinds.of(kind).startsSignIn(to: factor) == nil)
        }
    }

    @Test("only the kinds whose secret challenge-issuer keeps have it deleted with the factor")
    func kindsThatKeepASecret() {
        #expect(FactorKind.allCases.filter { SecondFactorKinds.of($0).keepsSecret } == [.totp, .recoveryCode])
    }

    @Test("a phone factor shows its number masked to a first factor and whole to lookup; a TOTP factor an empty totpInfo")
    func hints() throws {
        let phone = Enrollment(mfaEnrollmentId: "p", kind: .phone, displayName: "Work", phoneNumber: "+15550100", enrolledAt: "t")
        #expect(MFAInfo.entry(phone, masked: true).phoneInfo == "+****0100")
        #expect(MFAInfo.entry(phone, masked: true).unobfuscatedPhoneInfo == nil)
        #expect(MFAInfo.entry(phone, masked: false).unobfuscatedPhoneInfo == "+15550100")
        #expect(MFAInfo.entry(phone, masked: false).displayName == "Work")
        let totp = Enrollment(mfaEnrollmentId: "t", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "t")
        #expect(try JSONCoding.value(of: MFAInfo.entry(totp, masked: true))["totpInfo"] == [:])
        #expect(MFAInfo.entry(totp, masked: true).phoneInfo == nil)
    }
}
