import Crypto
import Foundation
import Testing

@testable import ChallengeIssuerApp
@testable import ServiceKit

/// A message `sms.start` holds for a `beforeSendSms` function: sealed for the gateway to carry,
/// never readable or reusable elsewhere (docs/blocking-functions.md).
@Suite("Held SMS")
struct HeldSMSTests {
    let sealer = SecretSealer(masterKey: SymmetricKey(size: .bits256))
    let held = HeldSMS(
        projectId: "demo-project", tenantId: nil, to: "+447700900123", text: "123456 is your code", locale: "en", gsm7: true, segments: 1,
        code: "123456", sessionInfo: "s1", heldAt: 1_795_000_000
    )

    @Test func opensUnderTheSameKeyOnly() throws {
        let sealed = try held.sealed(with: sealer)
        #expect(!sealed.contains("123456"))
        #expect(HeldSMS.opened(sealed, with: sealer) == held)
        #expect(HeldSMS.opened(sealed, with: SecretSealer(masterKey: SymmetricKey(size: .bits256))) == nil)
        #expect(HeldSMS.opened(String(sealed.dropLast(2)), with: sealer) == nil)
        #expect(HeldSMS.opened("not a held message", with: sealer) == nil)
    }

    @Test func routeNamesAreShortLowercaseWords() {
        for name in ["eu", "us-east", "route1"] { #expect(SMSRoutes.isValidName(name)) }
        for name in ["", "EU", "eu.west", "a b", String(repeating: "x", count: 33)] { #expect(!SMSRoutes.isValidName(name)) }
    }
}
