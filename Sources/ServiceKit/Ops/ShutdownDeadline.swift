import Dispatch
import Foundation
import Logging
import Synchronization

/// Bounds how long a process takes to stop once it is asked to.
///
/// On the first SIGTERM or SIGINT a timer starts; if the process is still running `grace` later, it
/// logs why and exits. The signal source and the timer run on a dispatch queue of their own, not on
/// NIO's event loops or Swift concurrency's pool: what this guards against is a library blocking one
/// of those threads for good (docs/architecture.md, "Known limits"), and the guard must not need
/// the thread it guards. Exiting loses nothing committed: every write is one committed statement or
/// transaction, and PostgreSQL rolls back any it was still running.
public enum ShutdownDeadline {
    private static let queue = DispatchQueue(label: "mfa.shutdown-deadline")
    private static let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let fired = Atomic<Bool>(false)

    /// Arms the deadline once per process; later calls do nothing.
    public static func arm(grace: Duration, logger: Logger) {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for signalNumber in [SIGTERM, SIGINT] {
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    guard !fired.exchange(true, ordering: .relaxed) else { return }
                    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(grace.nanoseconds))) {
                        logger.error(
                            "shutdown did not finish in time; exiting",
                            metadata: ["shutdown.graceSeconds": "\(grace.components.seconds)"]
                        )
                        // No atexit handlers or stream flushes: a thread stuck on a lock could hold
                        // what they need. The log line above is already written and flushed.
                        _exit(0)
                    }
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
