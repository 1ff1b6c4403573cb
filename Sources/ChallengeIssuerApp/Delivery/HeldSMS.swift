import AuthVocabulary
import Contracts
import Foundation
import ServiceKit

/// An SMS `sms.start` made but did not send (`holdDelivery`): sealed under challenge-issuer's
/// master key for the gateway to hand back to `sms.deliver` once the scope's `beforeSendSms`
/// function allowed it. The gateway cannot read it (the code is inside), and it opens for a minute.
struct HeldSMS: Codable, Sendable, Equatable {
    let projectId: String
    let tenantId: String?
    let to: String
    let text: String
    let locale: String
    let gsm7: Bool
    let segments: Int
    /// For the development outbox, which lists codes as they are sent.
    let code: String
    let sessionInfo: String
    let heldAt: EpochSeconds

    /// A function answers within 7 seconds; the rest is margin.
    static let lifetimeSeconds: Int64 = 60
    static let keyID = "held-sms"

    func sealed(with sealer: SecretSealer) throws -> String {
        Base64URL.encode(try sealer.seal(try JSONEncoder().encode(self), keyID: Self.keyID))
    }

    static func opened(_ text: String, with sealer: SecretSealer) -> HeldSMS? {
        guard text.utf8.count <= 8192, let sealed = Base64URL.decode(text),
            let plain = try? sealer.open(sealed, keyID: keyID)
        else { return nil }
        return try? JSONDecoder().decode(HeldSMS.self, from: plain)
    }
}
