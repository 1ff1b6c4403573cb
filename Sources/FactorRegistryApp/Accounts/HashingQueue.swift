import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit
import Synchronization

/// At most `maximum` password hashes waiting for or running on the blocking pool.
/// scrypt is the one thing a client can make us spend tens of milliseconds of CPU on,
/// and each unknown email costs one too (so timing tells nothing): under a flood the queue stays
/// bounded and the excess is answered `TOO_MANY_ATTEMPTS_TRY_LATER` at once, instead of every
/// sign-in waiting behind it.
final class HashingQueue: Sendable {
    let maximum: Int
    /// A hash that waited longer than this for a thread is dropped unhashed (issue 57, F-4): its
    /// caller (whose deadline is `rpc.timeoutMs`) has given up, and hashing it would only delay
    /// everyone behind it. `nil`: no limit.
    let deadline: Duration?
    private let pending = Atomic<Int>(0)

    init(maximum: Int, deadline: Duration? = nil) {
        self.maximum = max(1, maximum)
        self.deadline = deadline
    }

    /// No bound (tests, and the start-up decoys).
    static let unbounded = HashingQueue(maximum: .max)

    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let queued = pending.add(1, ordering: .relaxed).newValue
        defer { pending.subtract(1, ordering: .relaxed) }
        guard queued <= maximum else { throw Self.full }
        let (enqueued, deadline) = (ContinuousClock.now, self.deadline)
        return try await BlockingWork.run {
            if let deadline, ContinuousClock.now - enqueued > deadline { throw Self.full }
            return try body()
        }
    }

    static let full = RPCError(code: .accountRejected, business: IdentityToolkitError(.tooManyAttemptsTryLater))
}
