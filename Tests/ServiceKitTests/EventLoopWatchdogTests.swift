import Foundation
import Logging
import NIOPosix
import Testing

@testable import ServiceKit

/// Each case runs in a child process of its own (an exit test).
@Suite("A process whose event loop is stuck for good ends, so that it can be restarted")
struct EventLoopWatchdogTests {
    @Test("a loop blocked past the limit ends the process with status 70")
    func stuckLoopEndsTheProcess() async {
        await #expect(processExitsWith: .exitCode(70)) {
            EventLoopWatchdog.start(interval: .milliseconds(50), limit: .milliseconds(300), logger: Logger(label: "test"))
            // A loop thread waiting for good, as one waiting on a lock nobody will release.
            MultiThreadedEventLoopGroup.singleton.next().execute { sleep(30) }
            // Bounded, so a watchdog that never fires fails the test (status 3) instead of hanging it.
            sleep(20)
            exit(3)
        }
    }

    @Test("loops that keep running tasks, however busy, never trip it")
    func busyLoopsAreLeftAlone() async {
        await #expect(processExitsWith: .exitCode(4)) {
            EventLoopWatchdog.start(interval: .milliseconds(50), limit: .seconds(1), logger: Logger(label: "test"))
            // Each loop busy for 100 ms at a time, well under the limit, for two seconds.
            let deadline = Date().addingTimeInterval(2)
            while Date() < deadline {
                for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                    loop.execute { usleep(100_000) }
                }
                usleep(100_000)
            }
            exit(4)
        }
    }
}
