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
        func name(_ body: FinalizeMFASignInRequest) -> String { type(of: kinds.kind { $0.isNamed(by: body) }).name }
        #expect(name(FinalizeMFASignInRequest(totpVerificationInfo: .init())) == "totp")
        #expect(name(FinalizeMFASignInRequest(phoneVerificationInfo: .init())) == "phone")
        #expect(name(FinalizeMFASignInRequest()) == "phone")
        #expect(name(FinalizeMFASignInRequest(phoneVerificationInfo: .init(), totpVerificationInfo: .init())) == "phone")
    }

    @Test("the kinds served and the kinds named are one list, so every stored kind shows in mfaInfo")
    func servedKindsAreNamedKinds() {
        let served = kinds.all.map { type(of: $0).name }
        let named = SecondFactorKinds.types.map { $0.name }
        #expect(served == named)
        for name in served {
            let found = SecondFactorKinds.named(name).map { $0.name }
            #expect(found == name)
        }
        #expect(SecondFactorKinds.named("passkey") == nil)
    }

    @Test("a phone factor shows its number masked to a first factor and whole to lookup; a TOTP factor an empty totpInfo")
    func hints() throws {
        let phone = Enrollment(mfaEnrollmentId: "p", kind: "phone", displayName: "Work", phoneNumber: "+15550100", enrolledAt: "t")
        #expect(MFAInfo.entry(phone, masked: true).phoneInfo == "+****0100")
        #expect(MFAInfo.entry(phone, masked: true).unobfuscatedPhoneInfo == nil)
        #expect(MFAInfo.entry(phone, masked: false).unobfuscatedPhoneInfo == "+15550100")
        #expect(MFAInfo.entry(phone, masked: false).displayName == "Work")
        let totp = Enrollment(mfaEnrollmentId: "t", kind: "totp", displayName: nil, phoneNumber: nil, enrolledAt: "t")
        #expect(try JSONCoding.value(of: MFAInfo.entry(totp, masked: true))["totpInfo"] == [:])
        #expect(MFAInfo.entry(totp, masked: true).phoneInfo == nil)
    }
}
