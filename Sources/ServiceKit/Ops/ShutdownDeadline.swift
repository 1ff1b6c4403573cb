import Dispatch
import Foundation
import Logging
import Synchronization

/// Bounds how long a process takes to stop once it is asked to, or once one of its services fails.
///
/// On the first SIGTERM or SIGINT a timer starts; if the process is still running `grace` later, it
/// logs why and exits with status 0. On the first service failure (``serviceFailed(_:_:)``) the
/// reason goes to standard error at once and the process exits with status 1 when its other
/// services have stopped (``ServiceMain``) or, at the latest, `failureGrace` later. The signal source and the timer run on a dispatch queue of their own, not on
/// NIO's event loops or Swift concurrency's pool: what this guards against is a library blocking one
/// of those threads for good (docs/architecture.md, "Known limits"), and the guard must not need
/// the thread it guards. Exiting loses nothing committed: every write is one committed statement or
/// transaction, and PostgreSQL rolls back any it was still running.
public enum ShutdownDeadline {
    private static let queue = DispatchQueue(label: "mfa.shutdown-deadline")
    private static let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let fired = Atomic<Bool>(false)
    private static let failed = Atomic<Bool>(false)

    /// How long the other services of a process get to stop after one failed. Shorter than
    /// ``EventLoopWatchdog``'s limit: a teardown stuck on the lock bug still ends with the failure's
    /// reason and status 1, not with the watchdog's status 70 and no reason.
    public static let failureGrace: Duration = .seconds(5)

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

    /// A service of this process failed (a listener could not bind, a configuration value is wrong):
    /// writes `service: error` to standard error (the first failure only) and makes sure the
    /// process ends with status 1 within ``failureGrace``.
    public static func serviceFailed(_ service: String, _ error: any Error) {
        guard !failed.exchange(true, ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data("\(service): \(error)\n".utf8))
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(failureGrace.nanoseconds))) { _exit(1) }
    }
}
