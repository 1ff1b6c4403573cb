import AuthVocabulary
import Contracts
import Foundation
import Testing

/// `EpochSeconds` types the instants of the contracts without changing their wire: each is the
/// plain integer of seconds it was as `Int64`, and milliseconds become seconds only through the
/// one conversion that says so.
@Suite("Epoch seconds on the wire")
struct EpochSecondsWireTests {
    @Test("an instant encodes and decodes as the plain integer of seconds")
    func plainInteger() throws {
        let result = VerifyIDToken.Result(
            projectId: "p", tenantId: nil, localId: "u", issuedAt: 1_700_000_100, authTime: 1_700_000_000,
            signInProvider: .password, secondFactor: nil, secondFactorIdentifier: nil, secondFactorAuthTime: 1_700_000_050
        )
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Any]
        #expect(encoded?["authTime"] as? Int == 1_700_000_000)
        #expect(encoded?["issuedAt"] as? Int == 1_700_000_100)
        #expect(encoded?["secondFactorAuthTime"] as? Int == 1_700_000_050)
        let decoded = try JSONDecoder().decode(
            VerifyIDToken.Result.self,
            from: Data(
                #"{"projectId":"p","localId":"u","issuedAt":5,"authTime":4,"signInProvider":"password"}"#.utf8)
        )
        #expect(decoded.authTime == EpochSeconds(4) && decoded.issuedAt.rawValue == 5)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EpochSeconds.self, from: Data(#""1700000000""#.utf8))
        }
    }

    @Test("milliseconds fall in the second they belong to, before 1970 too")
    func millisecondsRoundDown() {
        #expect(EpochSeconds(milliseconds: 1_700_000_000_999) == 1_700_000_000)
        #expect(EpochSeconds(milliseconds: 0) == 0)
        #expect(EpochSeconds(milliseconds: -1) == -1)
        #expect(EpochSeconds(milliseconds: -1000) == -1)
        #expect(EpochSeconds(1_700_000_000).milliseconds == 1_700_000_000_000)
        #expect(EpochSeconds(Date(timeIntervalSince1970: 1_700_000_000.9)) == 1_700_000_000)
    }

    @Test("seconds added and instants subtracted stay in seconds")
    func arithmetic() {
        let signedIn: EpochSeconds = 1_000
        #expect(signedIn + 300 == 1_300)
        #expect(signedIn - 1 < signedIn)
        #expect((signedIn + 300) - signedIn == 300)
    }
}
