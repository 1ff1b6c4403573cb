import Contracts
import Foundation
import JSONRPC
import ServiceKit
import Synchronization

/// The key session-token seals pending credentials with, fetched once and kept, so the gateway
/// reads a credential's facts (`SealedPendingCredential`) without a call per sign-in. A credential
/// naming a key id not held here (session-token's master key rotated) fetches the key again, at
/// most once per `refetchInterval`, so forged ids cannot make every request a fetch.
final class PendingCredentialKeys: Sendable {
    private struct State {
        var keys: [PendingCredentialKey] = []
        var fetchedAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    let sessions: RPCClient
    let refetchInterval: Duration

    init(sessions: RPCClient, refetchInterval: Duration = .seconds(5)) {
        self.sessions = sessions
        self.refetchInterval = refetchInterval
    }

    /// The facts of a sealed, unexpired credential; `nil` for anything else (an unsealed or
    /// altered text, an expired credential, session-token unreachable): the caller then asks
    /// session-token, which answers in the contract's terms.
    func open(_ text: String, requestID: String) async -> SealedPendingCredential? {
        guard let keyID = SealedPendingCredential.keyID(of: text) else { return nil }
        var keys = state.withLock { $0.keys }
        if !keys.contains(where: { $0.id == keyID }) {
            guard let fetched = await fetch(requestID: requestID) else { return nil }
            keys = fetched
        }
        guard let facts = SealedPendingCredential.open(text, keys: keys),
            facts.expiresAt > Int64(Date().timeIntervalSince1970)
        else { return nil }
        return facts
    }

    private func fetch(requestID: String) async -> [PendingCredentialKey]? {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard let last = state.fetchedAt, now - last < refetchInterval else {
                state.fetchedAt = now
                return true
            }
            return false
        }
        guard due,
            let answer = try? await sessions.call(PendingCredentialSealKey.self, .init(), requestID: requestID),
            let key = PendingCredentialKey(base64: answer.key)
        else { return nil }
        return state.withLock { state in
            // The newest first; the one before stays for credentials sealed before a rotation.
            state.keys = [key] + state.keys.filter { $0.id != key.id }.prefix(1)
            return state.keys
        }
    }
}
