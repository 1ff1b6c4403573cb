import Contracts
import IdentityToolkit
import JSONRPC
import Testing

@testable import GatewayApp

/// What the gateway takes from a blocking function's answer, where it lets a function live, and
/// the event it describes a user with (docs/blocking-functions.md).
@Suite("Blocking functions")
struct BlockingFunctionTests {
    func answer(_ text: String, event: BlockingFunctionsConfig.Event = .beforeSignIn) throws -> BlockingFunctionAnswer {
        try BlockingFunctionAnswer(JSONCoding.parse(Array(text.utf8)), event: event)
    }

    @Test func onlyTheMembersTheUpdateMaskNamesCount() throws {
        let parsed = try answer(
            #"{"userRecord": {"displayName": "Ada", "disabled": true, "customClaims": {"role": "staff"}, "updateMask": "displayName,customClaims"}}"#
        )
        #expect(parsed.displayName == .some("Ada"))
        #expect(parsed.disabled == nil)
        #expect(parsed.customClaims == ["role": "staff"])
        let update = try parsed.update(projectId: "p", tenantId: nil, localId: "u")
        #expect(update?.displayName == "Ada")
        #expect(update?.customAttributes == #"{"role":"staff"}"#)
        #expect(update?.disabled == nil)
    }

    @Test func anEmptyAnswerChangesNothing() throws {
        let parsed = try answer("{}")
        #expect(parsed == BlockingFunctionAnswer())
        #expect(try parsed.update(projectId: "p", tenantId: nil, localId: "u") == nil)
    }

    @Test func reservedAndOversizedClaimsAreRefused() throws {
        #expect(throws: BlockingFunctionAnswer.Unusable.self) {
            try answer(#"{"userRecord": {"sessionClaims": {"aud": "x"}, "updateMask": "sessionClaims"}}"#)
        }
        let big = String(repeating: "x", count: 1001)
        #expect(throws: BlockingFunctionAnswer.Unusable.self) {
            try answer(#"{"userRecord": {"customClaims": {"k": "\#(big)"}, "updateMask": "customClaims"}}"#)
        }
        let half = String(repeating: "y", count: 600)
        #expect(throws: BlockingFunctionAnswer.Unusable.self) {
            try answer(
                #"{"userRecord": {"customClaims": {"a": "\#(half)"}, "sessionClaims": {"b": "\#(half)"}, "updateMask": "customClaims,sessionClaims"}}"#
            )
        }
    }

    @Test func beforeCreateMayNotSetSessionClaims() throws {
        #expect(throws: BlockingFunctionAnswer.Unusable.self) {
            try answer(#"{"userRecord": {"sessionClaims": {"a": 1}, "updateMask": "sessionClaims"}}"#, event: .beforeCreate)
        }
    }

    @Test func aSendEventsBlockOverrideBlocks() throws {
        #expect(try answer(#"{"recaptchaActionOverride": "BLOCK"}"#, event: .beforeSendSms).blocks)
        #expect(try !answer(#"{"recaptchaActionOverride": "ALLOW"}"#, event: .beforeSendSms).blocks)
    }

    @Test func privateLoopbackAndLinkLocalAddressesAreNotPublic() {
        for address: [UInt8] in [
            [127, 0, 0, 1], [10, 1, 2, 3], [172, 16, 0, 1], [192, 168, 1, 1], [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0],
        ] {
            #expect(!FunctionAddressPolicy.isPublic(address))
        }
        let loopback6 = [UInt8](repeating: 0, count: 15) + [1]
        let uniqueLocal: [UInt8] = [0xFD] + [UInt8](repeating: 0, count: 15)
        let mappedPrivate: [UInt8] = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 1]
        for address in [loopback6, uniqueLocal, mappedPrivate] { #expect(!FunctionAddressPolicy.isPublic(address)) }
        #expect(FunctionAddressPolicy.isPublic([8, 8, 8, 8]))
        #expect(FunctionAddressPolicy.isPublic([0x20, 0x01, 0x48, 0x60] + [UInt8](repeating: 0, count: 11) + [0x88]))
    }

    /// Issue 57, F-9: IPv4 inside IPv6 is judged as that IPv4 address, and site-local is no public address.
    @Test func embeddedIPv4AndSiteLocalAddressesAreJudgedAsWhatTheyReach() {
        let zeros = { (count: Int) in [UInt8](repeating: 0, count: count) }
        let compatibleLoopback: [UInt8] = zeros(12) + [127, 0, 0, 1]  // ::127.0.0.1
        let compatiblePrivate: [UInt8] = zeros(12) + [10, 0, 0, 1]  // ::10.0.0.1
        let sixToFourLoopback: [UInt8] = [0x20, 0x02, 127, 0, 0, 1] + zeros(10)  // 2002:7f00:1::
        let sixToFourMetadata: [UInt8] = [0x20, 0x02, 169, 254, 169, 254] + zeros(10)
        let siteLocal: [UInt8] = [0xFE, 0xC0] + zeros(13) + [1]  // fec0::1
        for address in [compatibleLoopback, compatiblePrivate, sixToFourLoopback, sixToFourMetadata, siteLocal] {
            #expect(!FunctionAddressPolicy.isPublic(address), "\(address)")
        }
        // The same forms around a public IPv4 address are public.
        #expect(FunctionAddressPolicy.isPublic(zeros(12) + [8, 8, 8, 8]))
        #expect(FunctionAddressPolicy.isPublic([0x20, 0x02, 8, 8, 8, 8] + zeros(10)))
        // And a name that resolves to them is refused: the literal resolves to itself.
        #expect(FunctionAddressPolicy.resolve("::127.0.0.1").allSatisfy { !FunctionAddressPolicy.isPublic($0) })
        #expect(FunctionAddressPolicy.resolve("2002:7f00:1::").allSatisfy { !FunctionAddressPolicy.isPublic($0) })
    }

    @Test func theUserRecordCarriesFactorsButNotRecoveryCodes() {
        let account = Account(
            localId: "u1", email: "ada@example.com", emailVerified: true, displayName: nil, disabled: false, createdAt: "1795000000000",
            signInProvider: .password, customAttributes: #"{"role":"staff"}"#,
            mfaInfo: [
                Enrollment(
                    mfaEnrollmentId: "totp-1", kind: .totp, displayName: "Phone app", phoneNumber: nil, enrolledAt: "2026-11-27T14:00:00Z"),
                Enrollment(
                    mfaEnrollmentId: "recovery-1", kind: .recoveryCode, displayName: nil, phoneNumber: nil,
                    enrolledAt: "2026-11-27T14:00:00Z"),
            ],
            passwordSet: true
        )
        let record = BlockingEvent.userRecord(account, tenantId: "t1")
        #expect(record["uid"] == "u1")
        #expect(record["tenant_id"] == "t1")
        #expect(record["custom_claims"] == ["role": "staff"])
        #expect(record["metadata"]?["creation_time"] == .int(1_795_000_000_000))
        #expect(record["provider_data"] == [["uid": "ada@example.com", "provider_id": "password", "email": "ada@example.com"]])
        guard case .array(let factors)? = record["multi_factor"]?["enrolled_factors"] else {
            Issue.record("no enrolled_factors")
            return
        }
        #expect(factors.count == 1)
        #expect(factors.first?["factor_id"] == "totp")
    }
}
