import Crypto
import Foundation
import PluginKit
import Testing

@testable import FactorSMS

/// Issue 39, L-6: a stored SMS code hash is keyed, so the database alone does not give the code away.
@Suite("SMS code hashes")
struct SMSCodeHashTests {
    let key = SymmetricKey(size: .bits256)
    let now = Date()

    @Test("a keyed challenge is no plain SHA-256 of salt and code, and only its code passes")
    func keyed() {
        let provider = SMSFactorProvider(codeKey: key)
        let issued = provider.issue(code: "123456", now: now, lifetime: .seconds(600))
        #expect(issued.challenge.codeHash != SMSFactorProvider.plainHash("123456", salt: issued.challenge.salt))
        // What a database reader would do: try every code against the plain hash. None matches.
        let recovered = (0..<1_000_000).lazy.map { String(format: "%06d", $0) }.first {
            SMSFactorProvider.plainHash($0, salt: issued.challenge.salt) == issued.challenge.codeHash
        }
        #expect(recovered == nil)
        #expect(provider.verify("123456", against: issued.challenge, now: now) == .accepted(step: nil))
        #expect(provider.verify("123457", against: issued.challenge, now: now) == .wrongCode)
        // Another key (another deployment, a reader with a guessed key) checks nothing.
        #expect(
            SMSFactorProvider(codeKey: SymmetricKey(size: .bits256)).verify("123456", against: issued.challenge, now: now) == .wrongCode)
    }

    @Test("a challenge stored before the key was introduced still passes with its code, and only with it")
    func storedBeforeTheKey() {
        let old = SMSFactorProvider().issue(code: "654321", now: now, lifetime: .seconds(600))
        let provider = SMSFactorProvider(codeKey: key)
        #expect(provider.verify("654321", against: old.challenge, now: now) == .accepted(step: nil))
        #expect(provider.verify("654320", against: old.challenge, now: now) == .wrongCode)
    }
}
