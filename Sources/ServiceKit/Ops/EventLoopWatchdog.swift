import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Ends the process when one of NIO's event loops stops running tasks, so that a supervisor
/// (systemd, Docker, Kubernetes) starts it again instead of it hanging half its connections.
///
/// Swift concurrency runs on these loops (``ServiceMain``), so a library that blocks a loop thread
/// for good stalls every request on that loop. One such bug is known: swift-async-algorithms 1.1.4's
/// `merge` holds a lock while entering `withUnsafeThrowingContinuation`, and the Swift runtime can
/// enqueue that continuation's closure behind the very job that then waits for the lock
/// (docs/architecture.md, "Known limits"). Nothing of ours reaches it since ``HTTPListener``; this
/// guard stays for any other of the kind. Every `interval`, a dispatch timer, which needs no loop,
/// posts a no-op to each loop; a loop that has not run one for `limit` is stuck, since loops never
/// run blocking work (``BlockingWork``). Exiting loses nothing committed, as after a crash.
public enum EventLoopWatchdog {
    private static let queue = DispatchQueue(label: "mfa.event-loop-watchdog")
    private static let timer = Mutex<(any DispatchSourceTimer)?>(nil)

    /// Starts watching the loops of `group` (once per process; later calls do nothing).
    public static func start(
        _ group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, interval: Duration = .seconds(1),
        limit: Duration = .seconds(10), logger: Logger
    ) {
        timer.withLock { timer in
            guard timer == nil else { return }
            let loops = Array(group.makeIterator())
            let lastRun = loops.map { _ in Box(ContinuousClock.now) }
            let previousTick = Box(ContinuousClock.now)
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + .nanoseconds(Int(interval.nanoseconds)), repeating: .nanoseconds(Int(interval.nanoseconds)))
            source.setEventHandler {
                let now = ContinuousClock.now
                // A late tick means the whole process was not running (a paused VM or container, a
                // debugger), not one loop: start counting again.
                let paused = now - previousTick.swap(now) > interval * 3
                for (index, loop) in loops.enumerated() {
                    if paused { _ = lastRun[index].swap(now) }
                    if now - lastRun[index].read() > limit {
                        logger.critical(
                            "an event loop has run nothing for too long; exiting so that the process is restarted",
                            metadata: ["loop": "\(index)", "limitSeconds": "\(limit.components.seconds)"]
                        )
                        _exit(70)  // EX_SOFTWARE
                    }
                    let seen = lastRun[index]
                    loop.execute { _ = seen.swap(ContinuousClock.now) }
                }
            }
            source.resume()
            timer = source
        }
    }

    private final class Box: Sendable {
        private let value: Mutex<ContinuousClock.Instant>
        init(_ value: ContinuousClock.Instant) { self.value = Mutex(value) }
        func read() -> ContinuousClock.Instant { value.withLock { $0 } }
        /// Stores `new`, returns the old value.
        func swap(_ new: ContinuousClock.Instant) -> ContinuousClock.Instant {
            value.withLock { old in
                defer { old = new }
                return old
            }
        }
    }
}
