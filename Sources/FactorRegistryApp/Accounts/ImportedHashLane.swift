import Contracts
import IdentityToolkit
import JSONRPC
import Synchronization

/// Where checks of imported password hashes wait their turn (issue 57, F-4): at most `width` at
/// once, half the hashing pool, so however slow one user's imported hash is, the other half stays
/// for everyone's own scrypt hashes; and one at a time per account, so parallel attempts at one
/// slow hash take one slot, not all of them (a second attempt while one runs is answered
/// `TOO_MANY_ATTEMPTS_TRY_LATER` at once). At most `maximumWaiting` wait; a check that waited past
/// `deadline` (the caller's: `rpc.timeoutMs`) is dropped unhashed, since nobody waits for its answer.
final class ImportedHashLane: Sendable {
    let width: Int
    let maximumWaiting: Int
    let deadline: Duration

    private struct State {
        var running = 0
        var accounts: Set<String> = []
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    init(width: Int, maximumWaiting: Int, deadline: Duration) {
        self.width = max(1, width)
        self.maximumWaiting = max(1, maximumWaiting)
        self.deadline = deadline
    }

    /// The lane of a pool of `poolThreads` threads: half of them.
    convenience init(poolThreads: Int, maximumWaiting: Int, deadline: Duration) {
        self.init(width: poolThreads / 2, maximumWaiting: maximumWaiting, deadline: deadline)
    }

    func run<T: Sendable>(account: String?, _ body: () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        let entry: LaneEntry = state.withLock { state in
            if let account {
                if state.accounts.contains(account) { return .refused }
                state.accounts.insert(account)
            }
            if state.running < width {
                state.running += 1
                return .admitted
            }
            if state.waiting.count >= maximumWaiting {
                if let account { state.accounts.remove(account) }
                return .refused
            }
            return .queued
        }
        switch entry {
        case .refused:
            throw Self.busy
        case .queued:
            // The slot is handed over by `release`: `running` already counts this check.
            await withCheckedContinuation { continuation in
                let resumeNow: Bool = state.withLock { state in
                    if state.running < width {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        case .admitted:
            break
        }
        defer { release(account) }
        guard ContinuousClock.now - started <= deadline else { throw Self.busy }
        return try await body()
    }

    private func release(_ account: String?) {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if let account { state.accounts.remove(account) }
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    private enum LaneEntry { case refused, admitted, queued }

    static let busy = RPCError(code: .accountRejected, business: IdentityToolkitError(.tooManyAttemptsTryLater))
}
