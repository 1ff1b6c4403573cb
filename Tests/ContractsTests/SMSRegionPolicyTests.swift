import Contracts
import Testing

@Suite("SMS region policy: calling codes and allow/deny lists")
struct SMSRegionPolicyTests {
    @Test(
        "a number's region comes from its calling code, with +1 split by area code and +7 by its next digit",
        arguments: [
            ("+15555550100", "US"), ("+14165550100", "CA"), ("+16045550100", "CA"), ("+18765550100", "JM"),
            ("+17875550100", "PR"), ("+447700900123", "GB"), ("+33123456789", "FR"), ("+4915112345678", "DE"),
            ("+77012345678", "KZ"), ("+74951234567", "RU"), ("+212612345678", "MA"), ("+353861234567", "IE"),
            ("+8613812345678", "CN"), ("+5511912345678", "BR"), ("+61412345678", "AU"),
        ]
    )
    func regions(number: String, region: String) {
        #expect(CallingCodes.region(of: number) == region)
    }

    @Test("numbers that are not E.164 or have no known calling code have no region")
    func unknown() {
        for number in ["15555550100", "+", "+1 555 0100", "+999123", "+0123456"] {
            #expect(CallingCodes.region(of: number) == nil, "\(number)")
        }
    }

    @Test("an allowlist admits only its regions; a denylist refuses only its own")
    func policy() {
        let allowlist = SMSRegionConfig(allowlistOnly: .init(allowedRegions: ["US"]))
        #expect(allowlist.allows(region: "US"))
        #expect(!allowlist.allows(region: "CA"))
        #expect(!allowlist.allows(region: nil))
        let denylist = SMSRegionConfig(allowByDefault: .init(disallowedRegions: ["RU"]))
        #expect(!denylist.allows(region: "RU"))
        #expect(denylist.allows(region: "KZ"))
        #expect(SMSRegionConfig().allows(region: "RU"))
    }

    @Test("every region in the table is a two-letter upper-case code")
    func table() {
        #expect(CallingCodes.regions.count > 200)
        #expect(CallingCodes.regions.allSatisfy { $0.count == 2 && $0 == $0.uppercased() })
    }
}
