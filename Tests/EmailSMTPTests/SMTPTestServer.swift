import Foundation
import TestSupport

/// A real SMTP server for one test: `smtp_test_server.py` (aiosmtpd) in a child Python process on a
/// loopback port of its own, recording what it receives in a temporary directory.
///
/// Use ``with(_:_:)``: it stops the child on every path. The child is a plain foreground process
/// (it leaves no daemon behind, so Foundation's `Process` sees it end) and it also exits by itself
/// when the test process goes away.
final class SMTPTestServer {
    enum Security: String { case none, starttls, implicit }

    struct Options {
        var security: Security = .none
        /// The only account AUTH accepts; nil offers no AUTH.
        var account: (username: String, password: String)?
        /// Offer AUTH before TLS too (to show the client still does not use it).
        var authOverPlain = false
        /// Answer every RCPT TO with 550.
        var rejectRecipients = false
        /// Instead of aiosmtpd, a scripted server that sends a forged reply with its `220` to STARTTLS.
        var injectAfterSTARTTLS = false
    }

    /// What the server recorded for one accepted message (Python's email parser read it).
    struct Received: Decodable {
        let mailFrom: String
        let recipients: [String]
        let headers: [String: String]
        let body: String
        let raw: String
        let overTLS: Bool
        let authenticated: Bool
    }

    let port: Int
    let directory: URL
    private let process: Process

    private init(port: Int, directory: URL, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// The CA that issued the server's certificate (only with TLS).
    var trustRootsPath: String { directory.appendingPathComponent("ca.pem").path }

    /// Starts a server, runs `body`, stops the server whatever happened.
    static func with<T>(_ options: Options = Options(), _ body: (SMTPTestServer) async throws -> T) async throws -> T {
        let server = try await start(options)
        defer { server.stop() }
        return try await body(server)
    }

    /// The messages received so far, in order.
    func received() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
            .sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
        return try names.map { try JSONDecoder().decode(Received.self, from: Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// The logins of the AUTH commands the server saw.
    func authAttempts() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("auth-attempts"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func log() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    // MARK: starting and stopping

    private static func start(_ options: Options) async throws -> SMTPTestServer {
        let python = try TestTools.python()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("smtp_test_server.py")
        var lastFailure = ""
        // A port can be taken between the check and the child's bind: then the child exits and the
        // next port is tried.
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-test-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var arguments = [script.path, "--port", "\(port)", "--dir", directory.path, "--tls", options.security.rawValue]
            if let account = options.account { arguments += ["--user", account.username, "--password", account.password] }
            if options.authOverPlain { arguments.append("--auth-over-plain") }
            if options.rejectRecipients { arguments.append("--reject-recipients") }
            if options.injectAfterSTARTTLS { arguments.append("--inject-after-starttls") }

            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = arguments
            let logURL = directory.appendingPathComponent("server.log")
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
            let log = try FileHandle(forWritingTo: logURL)
            process.standardOutput = log
            process.standardError = log
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try? log.close()
            let server = SMTPTestServer(port: port, directory: directory, process: process)

            let ready = directory.appendingPathComponent("ready")
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, process.isRunning, !FileManager.default.fileExists(atPath: ready.path) {
                try await Task.sleep(for: .milliseconds(50))
            }
            if FileManager.default.fileExists(atPath: ready.path), process.isRunning { return server }
            lastFailure = server.log()
            server.stop()
        }
        throw TestFailure("the SMTP test server did not start:\n\(lastFailure)")
    }

    /// SIGTERM, then SIGKILL if it lingers; waits (bounded) until the child is gone, then removes its files.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(5)
            while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                let hardDeadline = ContinuousClock.now + .seconds(5)
                while process.isRunning, ContinuousClock.now < hardDeadline { usleep(20_000) }
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Where the tests find Python.
enum TestTools {
    /// `MFA_TEST_PYTHON` (scripts/test.sh points it at its venv), else the venv scripts/test.sh makes
    /// in the checkout. Fails with a clear message when neither exists.
    static func python() throws -> String {
        if let python = ProcessInfo.processInfo.environment["MFA_TEST_PYTHON"], !python.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: python) else {
                throw TestFailure("MFA_TEST_PYTHON=\(python) is not an executable")
            }
            return python
        }
        let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let packageRoot = testsDirectory.deletingLastPathComponent()
        let fallback = packageRoot.appendingPathComponent(".venv-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: fallback) else {
            throw TestFailure(
                """
                MFA_TEST_PYTHON is not set and \(fallback) does not exist: run scripts/test.sh, or point \
                MFA_TEST_PYTHON at a Python with aiosmtpd and cryptography (client-tests/requirements.txt)
                """
            )
        }
        return fallback
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
