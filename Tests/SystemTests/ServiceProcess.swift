import AsyncHTTPClient
import Foundation
import ServiceKit
import ServiceTransport

/// One real service executable, started with its own environment, logs kept in a file, stopped
/// with SIGTERM (or SIGKILL when a test simulates a crash).
final class ServiceProcess: @unchecked Sendable {
    let service: ServiceName
    let rpcPort: Int
    let opsPort: Int
    let environment: [String: String]
    let logFile: URL
    private var process: Process?

    init(service: ServiceName, rpcPort: Int, opsPort: Int, environment: [String: String], logDirectory: URL) {
        self.service = service
        self.rpcPort = rpcPort
        self.opsPort = opsPort
        self.environment = environment
        self.logFile = logDirectory.appendingPathComponent("\(service.rawValue).log")
    }

    var rpcURL: String { "https://127.0.0.1:\(rpcPort)" }
    var opsURL: String { "http://127.0.0.1:\(opsPort)" }
    var isRunning: Bool { process?.isRunning ?? false }

    func start() throws {
        let process = Process()
        process.executableURL = TestEnvironment.binaryDirectory.appendingPathComponent(service.rawValue)
        // Configuration under its current names (MFA_…); PATH and names already prefixed stay.
        process.environment = Dictionary(
            uniqueKeysWithValues: environment.map { key, value in
                (key == "PATH" || key.hasPrefix("MFA_") ? key : "MFA_" + key, value)
            }
        )
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
    }

    /// Asks the process to stop (SIGTERM) and returns at once.
    func signalStop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
    }

    /// The exit status once the process has ended by itself within `timeout`, else `nil`.
    func exitStatus(within timeout: Duration) async throws -> Int32? {
        guard let process else { return nil }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Stops the process: SIGTERM for a clean shutdown, SIGKILL for a crash.
    func stop(crash: Bool = false) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, crash ? SIGKILL : SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { usleep(20_000) }
        }
    }

    /// Runs a command to completion and returns its exit status.
    ///
    /// Uses `posix_spawn` and `waitpid` rather than `Process`: on Linux, Foundation learns of a
    /// child's exit through a descriptor the child inherits, so a command that leaves a daemon
    /// behind (`pg_ctl start`) would never be seen to finish. `waitpid` runs on its own thread.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
                let exited = status & 0x7f == 0
                continuation.resume(returning: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
            }
        }
    }

    /// The last lines of the log, for failure messages. After a crash, the last lines before it,
    /// the crash, and the top of the crashed thread's backtrace: the end of a backtrace (what a
    /// plain tail shows) never names the failed check.
    func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let crash = all.firstIndex(where: { $0.hasPrefix("*** Program crashed") }) else {
            return all.suffix(lines).joined(separator: "\n")
        }
        var excerpt = Array(all[..<crash].suffix(lines)) + [all[crash]]
        if let thread = all[crash...].firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix(" crashed:") }) {
            excerpt += all[thread..<min(all.count, thread + 6)]
        }
        return excerpt.joined(separator: "\n")
    }

    /// Polls `/readyz` until it answers `expected` (200 for ready).
    func waitForReadiness(_ http: HTTPClient, ready: Bool = true, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if ready, !isRunning { throw ProcessFailure(message: "\(service.rawValue) exited:\n\(logTail())") }
            if let response = try? await http.execute(HTTPClientRequest(url: "\(opsURL)/readyz"), timeout: .seconds(3)) {
                _ = try? await response.body.collect(upTo: 1 << 16)
                if (response.status == .ok) == ready { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ProcessFailure(message: "\(service.rawValue) did not become \(ready ? "ready" : "unready") in time:\n\(logTail())")
    }
}

struct ProcessFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
