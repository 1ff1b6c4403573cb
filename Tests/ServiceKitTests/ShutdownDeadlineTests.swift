import Foundation
import Logging
import Testing

@testable import ServiceKit

/// Each case runs in a child process of its own (an exit test): the deadline ends the process.
@Suite("A process asked to stop exits by its deadline, even when its shutdown never finishes")
struct ShutdownDeadlineTests {
    @Test("after SIGTERM or SIGINT, a shutdown stuck for good ends at the deadline with status 0", arguments: [SIGTERM, SIGINT])
    func stuckShutdownEndsAtTheDeadline(signalNumber: Int32) async {
        await #expect(processExitsWith: .success) { [signalNumber] in
            // As ServiceLifecycle does: the signal is handled, not fatal.
            signal(signalNumber, SIG_IGN)
            ShutdownDeadline.arm(grace: .milliseconds(200), logger: Logger(label: "test"))
            // Sent until it is seen: dispatch registers the signal source asynchronously, and a
            // signal before that is ignored. Repeats do not move the deadline. A shutdown that
            // never finishes; bounded, so a broken deadline fails the test (status 3) instead of
            // hanging it.
            for _ in 0..<200 {
                kill(getpid(), signalNumber)
                usleep(100_000)
            }
            exit(3)
        }
    }

    @Test("without a stop signal the deadline never fires")
    func noSignalNoExit() async {
        await #expect(processExitsWith: .exitCode(4)) {
            ShutdownDeadline.arm(grace: .milliseconds(100), logger: Logger(label: "test"))
            sleep(1)
            exit(4)
        }
    }
}
