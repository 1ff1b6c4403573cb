import AuthVocabulary
import Foundation

/// Every flow that ends an account's sessions moves its `validSince` to the start of the next
/// second (factor-registry's `AccountRepository.sessionsEnd`): ID tokens count whole seconds and a
/// session is refused only when it began strictly before `validSince`, so ending them at the
/// current second would leave one begun in that second alive (issue 56, F-6). The tokens such a
/// flow answers with are minted once that second has begun, so the caller's own new session is
/// the one that survives. Half a second on average, paid only by the flows that end sessions.
enum SessionBoundary {
    /// Waits until `validSince` has begun; at once when it has, or when it is
    /// further away than any flow sets it (an admin's own `validSince` is not waited for).
    static func awaitStart(of validSince: EpochSeconds?) async throws {
        guard let validSince else { return }
        let wait = validSince.date.timeIntervalSinceNow
        if wait > 0, wait <= 2 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 5)) }
    }
}
