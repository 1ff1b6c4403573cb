import AuthVocabulary
import Contracts
import Foundation
import JSONRPC
import ServiceKit
import Synchronization

/// The key session-token seals pending credentials and refresh tokens with, fetched once and kept,
/// so the gateway reads a token's facts (`SealedPendingCredential`, `SealedRefreshToken`) without a
/// call per request. A token naming a key id not held here (session-token's master key rotated)
/// fetches the key again, at most once per `refetchInterval`, so forged ids cannot make every
/// request a fetch.
final class TokenSealKeys: Sendable {
    private struct State {
        var keys: [TokenSealKey] = []
        var fetchedAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    let sessions: PeerClient<SessionTokenAPI>
    let refetchInterval: Duration

    init(sessions: PeerClient<SessionTokenAPI>, refetchInterval: Duration = .seconds(5)) {
        self.sessions = sessions
        self.refetchInterval = refetchInterval
    }

    /// The facts of a sealed, unexpired pending credential; `nil` for anything else (an unsealed or
    /// altered text, an expired credential, session-token unreachable): the caller then asks
    /// session-token, which answers in the contract's terms.
    func pendingCredential(_ text: String, requestID: String) async -> SealedPendingCredential? {
        guard let keys = await keys(for: text, requestID: requestID),
            let facts = SealedPendingCredential.open(text, keys: keys), facts.expiresAt > .now
        else { return nil }
        return facts
    }

    /// The user a sealed refresh token names; `nil` for any other text (the caller then asks
    /// session-token, `session.inspectRefresh`).
    func refreshToken(_ text: String, requestID: String) async -> SealedRefreshToken? {
        guard let keys = await keys(for: text, requestID: requestID) else { return nil }
        return SealedRefreshToken.open(text, keys: keys)
    }

    private func keys(for text: String, requestID: String) async -> [TokenSealKey]? {
        guard let keyID = SealedPendingCredential.keyID(of: text) else { return nil }
        let keys = state.withLock { $0.keys }
        if keys.contains(where: { $0.id == keyID }) { return keys }
        return await fetch(requestID: requestID)
    }

    private func fetch(requestID: String) async -> [TokenSealKey]? {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard let last = state.fetchedAt, now - last < refetchInterval else {
                state.fetchedAt = now
                return true
            }
            return false
        }
        guard due,
            let answer = try? await sessions.call(PublishTokenSealKey.self, .init(), requestID: requestID),
            let key = TokenSealKey(base64: answer.key)
        else { return nil }
        return state.withLock { state in
            // The newest first; the one before stays for tokens sealed before a rotation.
            state.keys = [key] + state.keys.filter { $0.id != key.id }.prefix(1)
            return state.keys
        }
    }
}
