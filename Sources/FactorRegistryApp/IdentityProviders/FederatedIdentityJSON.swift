import Contracts
import Foundation

/// An account's linked identities as the account query returns them (a JSON array; NULL when the
/// read did not select them).
enum FederatedIdentityJSON {
    static func decode(_ text: String?) -> [FederatedIdentity]? {
        guard let text else { return nil }
        return (try? JSONDecoder().decode([FederatedIdentity].self, from: Data(text.utf8))) ?? []
    }
}
