import Crypto
import Foundation
import Testing

@testable import ChallengeIssuerApp

/// Recovery codes as typed and stored (docs/mfa-policy.md).
@Suite("Recovery codes")
struct RecoveryCodeTests {
    @Test("a code is four groups of four Crockford base32 symbols, 80 random bits, and codes differ")
    func generated() {
        let codes = (0..<200).map { _ in RecoveryCode.generate() }
        #expect(Set(codes).count == codes.count)
        for code in codes {
            let groups = code.split(separator: "-")
            #expect(groups.count == 4 && groups.allSatisfy { $0.count == 4 })
            #expect(code.replacingOccurrences(of: "-", with: "").allSatisfy { RecoveryCode.alphabet.contains($0) })
        }
        // 16 symbols of 32: 80 bits, above the 60 asked for.
        #expect(Double(RecoveryCode.symbols) * log2(Double(RecoveryCode.alphabet.count)) >= 80)
    }

    @Test("what a user types is normalised: case, spaces and dashes, and O, I, L read as digits")
    func normalised() {
        let code = "7K2M-QX4R-9TWD-H3NB"
        #expect(RecoveryCode.normalised(code) == "7K2MQX4R9TWDH3NB")
        #expect(RecoveryCode.normalised("7k2m qx4r 9twd h3nb") == "7K2MQX4R9TWDH3NB")
        #expect(RecoveryCode.normalised(" 7k2m-qx4r9twd-h3nb ") == "7K2MQX4R9TWDH3NB")
        #expect(RecoveryCode.normalised("OIL0-0000-0000-0000") == "0110000000000000")
    }

    @Test("anything that cannot be a code is refused before hashing")
    func refused() {
        for typed in [
            "", "123456", "7K2M-QX4R-9TWD-H3N", "7K2M-QX4R-9TWD-H3NBX", "7K2M-QX4R-9TWD-H3NU", "7K2M_QX4R_9TWD_H3NB",
            String(repeating: " ", count: 100) + "7K2MQX4R9TWDH3NB",
        ] {
            #expect(RecoveryCode.normalised(typed) == nil, "\(typed)")
        }
    }

    @Test("the stored hash is keyed and bound to its set: another key or another set gives another hash")
    func hashes() {
        let key = SymmetricKey(size: .bits256)
        let code = "7K2MQX4R9TWDH3NB"
        let stored = RecoveryCode.hash(code, enrollmentId: "recovery-a", key: key)
        #expect(stored == RecoveryCode.hash(code, enrollmentId: "recovery-a", key: key))
        #expect(stored != RecoveryCode.hash(code, enrollmentId: "recovery-b", key: key))
        #expect(stored != RecoveryCode.hash(code, enrollmentId: "recovery-a", key: SymmetricKey(size: .bits256)))
        #expect(stored.count == 32)
    }
}
