import ArgumentParser
import AsyncHTTPClient
import FactorTOTP
import Foundation
import Histogram
import JSONRPC
import NIOHTTP1
import NIOSSL

/// The MFA load generator: prepares users with verified emails, TOTP factors and a phone
/// factor on a test number, then runs each chosen scenario closed-loop after a warm-up, and prints
/// and writes (JSON) requests/s, latency percentiles (HdrHistogram) and errors by message.
///
/// Scenarios: `totp-signin` (password, then `mfaSignIn:finalize` with a computed code, timed
/// together), `totp-finalize` (the second step alone, from pending credentials made beforehand),
/// `sms-signin` (`mfaSignIn:start` + `finalize` on test numbers, from pending credentials),
/// `refresh` (token rotation), `enroll-totp` (start + finalize of a new TOTP factor; each waits for
/// the next second, see docs/architecture.md, so it is bounded by concurrency / 0.5 s).
struct LoadScenarios: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "MFA load generator: prepare users, run scenarios, write results.")

    @Option(help: "The gateway's public URL (loopback only).") var gateway: String = "http://127.0.0.1:8080"
    @Option(help: "The admin bearer token.") var adminToken: String = "owner"
    @Option(help: "Users to prepare.") var users: Int = 1000
    @Option(
        help:
            "TOTP factors per user (each allows about five sign-ins per 30 s; with the phone factor, at most 3 leave room for enroll-totp)."
    )
    var totpFactors: Int = 3
    @Option(help: "Comma-separated scenarios, or all.") var scenarios: String = "all"
    @Option(help: "Concurrent clients.") var concurrency: Int = 64
    @Option(help: "Seconds measured per scenario.") var duration: Double = 10
    @Option(help: "Seconds of warm-up per scenario (not measured).") var warmup: Double = 2
    @Option(help: "Pending credentials made ahead for totp-finalize and sms-signin (each; warm-up included).") var pending: Int = 3000
    // No default that names parameters: the bench cannot see the stack's configuration, and a report
    // stating the default N = 2^14 for a stack run with cheaper ones would be wrong.
    @Option(help: "The stack's password hashing (its passwords.scrypt parameters), stated in the report.")
    var passwordHashing: String = "not stated (mfa-bench load --password-hashing)"
    @Option(help: "Where to write the JSON results.") var output: String = "mfa-bench-results.json"
    @Option(help: "HTTP version to the gateway: 1.1, or 2 (needs an https gateway URL; ALPN h2).") var httpVersion: String = "1.1"
    @Option(help: "The CA that signed the gateway's certificate (https only).") var caFile: String = ".stack/certs/ca.pem"
    @Option(help: "Paced load: requests per second over all clients (each request timed from when it was due). Default: closed loop.")
    var rate: Double?

    static let allScenarios = ["totp-signin", "totp-finalize", "sms-signin", "refresh", "enroll-totp"]

    func run() async throws {
        guard RPCRoundTrip.isLoopback(gateway) else { throw ValidationError("benchmarks target loopback only") }
        let chosen = scenarios == "all" ? Self.allScenarios : scenarios.split(separator: ",").map(String.init)
        guard chosen.allSatisfy(Self.allScenarios.contains) else { throw ValidationError("scenarios: \(Self.allScenarios)") }
        guard ["1.1", "2"].contains(httpVersion) else { throw ValidationError("--http-version is 1.1 or 2") }
        let secure = gateway.hasPrefix("https://")
        guard secure || httpVersion == "1.1" else { throw ValidationError("HTTP/2 needs an https:// gateway (the stack's TLS port, 8443)") }
        if let rate, rate <= 0 { throw ValidationError("--rate must be positive") }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(concurrency, 32))
        if secure {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            configuration.tlsConfiguration = tls
            configuration.httpVersion = httpVersion == "2" ? .automatic : .http1Only
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = client.shutdown() }
        let api = PublicClient(client: client, gateway: gateway)
        let admin = AdminClient(client: client, gateway: gateway, token: adminToken)
        let run = UUID().uuidString.prefix(6).lowercased()
        let password = "bench-password-\(run)"
        let startedAt = ISO8601DateFormatter().string(from: Date())

        let numbers = (0..<10).map { "+1555010\(String(format: "%04d", $0))" }
        _ = try await admin.send(
            .PATCH, "v2/projects/demo-project/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
            ["signIn": ["phoneNumber": ["testPhoneNumbers": .object(Dictionary(uniqueKeysWithValues: numbers.map { ($0, "123456") }))]]]
        )
        let prepared = BenchUsers()
        let progress = Progress(label: "users prepared", total: users)
        try await Self.parallel(users, width: 32) { index in
            try await Self.prepare(
                index: index, run: run, password: password, totpFactors: totpFactors, number: numbers[index % numbers.count],
                api: api, admin: admin, into: prepared
            )
            await progress.tick()
        }
        var results: [ScenarioResult] = []
        for scenario in chosen {
            let call = try await makeCall(scenario, users: prepared, api: api, password: password)
            Self.log("\(scenario): warming up \(warmup) s")
            _ = await ClosedLoop.run(concurrency: concurrency, seconds: warmup, call: call)
            Self.log(
                "\(scenario): measuring \(duration) s at \(concurrency) clients" + (rate.map { ", paced at \($0)/s" } ?? ", closed loop"))
            let tally = LiveTally()
            let reporter = Task { await tally.report(label: scenario) }
            let measured = await ClosedLoop.timedRun(concurrency: concurrency, seconds: duration, rate: rate, tally: tally, call: call)
            reporter.cancel()
            if measured.elapsed < duration - 0.5 {
                Self.log("\(scenario): ran out of prepared work after \(String(format: "%.1f", measured.elapsed)) s")
            }
            let result = ScenarioResult(
                scenario: scenario, concurrency: concurrency, seconds: measured.elapsed, histogram: measured.histogram,
                errors: measured.errors, http: secure ? "HTTP/\(httpVersion) over TLS" : "HTTP/1.1", pacedRate: rate
            )
            print(result.line)
            results.append(result)
        }
        let report = LoadReport(
            startedAt: startedAt, gateway: gateway, users: await prepared.count, passwordHashing: passwordHashing, results: results
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: output))
        Self.log("results written to \(output)")
        _ = try await admin.send(
            .PATCH, "v2/projects/demo-project/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
            ["signIn": ["phoneNumber": ["testPhoneNumbers": [:]]]]
        )
    }

    /// The timed call of a scenario (preparing what it needs first).
    func makeCall(_ scenario: String, users: BenchUsers, api: PublicClient, password: String) async throws
        -> @Sendable (Int) async throws -> Void
    {
        let count = await users.count
        let counter = Counter()
        switch scenario {
        case "totp-signin":
            return { _ in
                // A user whose factors have a step left (with too few users for the rate, the
                // window's refill of one step per factor every 30 s is what bounds the loop).
                guard let (index, enrollment, code) = await users.reserveCode(from: await counter.next() % count) else {
                    throw BenchExhausted(message: "every user's TOTP steps are used up: run with more --users or --totp-factors")
                }
                let email = await users.email(at: index)
                let first = try await api.post("v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])
                guard let credential = first["mfaPendingCredential"]?.stringValue else { throw BenchFailure(message: "no MFA branch") }
                try await Self.finishTOTP(credential: credential, enrollment: enrollment, code: code, api: api)
            }
        case "totp-finalize", "sms-signin":
            let pool = PendingPool()
            let total = pending
            let progress = Progress(label: "\(scenario): pending credentials made", total: total)
            try await Self.parallel(total, width: concurrency) { number in
                let index = number % count
                let answer = try await api.post(
                    "v1/accounts:signInWithPassword", ["email": .string(await users.email(at: index)), "password": .string(password)]
                )
                guard let credential = answer["mfaPendingCredential"]?.stringValue else { throw BenchFailure(message: "no MFA branch") }
                await pool.add(index: index, credential: credential)
                await progress.tick()
            }
            if scenario == "totp-finalize" {
                // Each pending credential is one user's: refuse to measure if some user has more of
                // them than fresh TOTP steps, rather than fail part-way through the run.
                try await Self.requireFreshSteps(pending: total, users: users)
                return { _ in
                    guard let (index, credential) = await pool.take() else { throw BenchExhausted(message: "out of pending credentials") }
                    try await Self.finishTOTP(index: index, credential: credential, users: users, api: api)
                }
            }
            return { _ in
                guard let (index, credential) = await pool.take() else { throw BenchExhausted(message: "out of pending credentials") }
                guard let enrollment = await users.phoneEnrollmentId(at: index) else { throw BenchFailure(message: "no phone factor") }
                let started = try await api.post(
                    "v2/accounts/mfaSignIn:start",
                    [
                        "mfaPendingCredential": .string(credential), "mfaEnrollmentId": .string(enrollment),
                        "phoneSignInInfo": ["recaptchaToken": "test-recaptcha-token"],
                    ]
                )
                _ = try await api.post(
                    "v2/accounts/mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": .string(credential),
                        "phoneVerificationInfo": ["sessionInfo": started["phoneResponseInfo"]?["sessionInfo"] ?? "", "code": "123456"],
                    ]
                )
            }
        case "refresh":
            return { caller in
                let current = await users.refreshToken(of: caller)
                let answer = try await api.post(
                    "securetoken.googleapis.com/v1/token", ["grant_type": "refresh_token", "refresh_token": .string(current)], prefix: false
                )
                guard let next = answer["refresh_token"]?.stringValue else { throw BenchFailure(message: "no refresh_token") }
                await users.setRefreshToken(next, of: caller)
            }
        default:  // enroll-totp
            // Each user has room for one more factor (five at most): every enrollment takes the next
            // user, with the ID token its last enrollment returned.
            return { _ in
                let index = await counter.next() - 1
                guard index < count else { throw BenchExhausted(message: "every prepared user enrolled its fifth factor") }
                let idToken = await users.idToken(of: index)
                let started = try await api.post(
                    "v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
                guard let info = started["totpSessionInfo"], let key = info["sharedSecretKey"]?.stringValue, let secret = Base32.decode(key)
                else {
                    throw BenchFailure(message: "no TOTP session")
                }
                let step = Int64(Date().timeIntervalSince1970) / 30
                let done = try await api.post(
                    "v2/accounts/mfaEnrollment:finalize",
                    [
                        "idToken": .string(idToken),
                        "totpVerificationInfo": [
                            "sessionInfo": info["sessionInfo"] ?? "",
                            "verificationCode": .string(TOTPFactorProvider.code(secret: secret, step: step)),
                        ],
                    ]
                )
                if let token = done["idToken"]?.stringValue { await users.setIDToken(token, of: index) }
            }
        }
    }

    /// Every user can finish the pending credentials made for it (`pending` spread round-robin).
    static func requireFreshSteps(pending: Int, users: BenchUsers) async throws {
        let count = await users.count
        var short = 0
        var least = Int.max
        for index in 0..<count {
            let demand = pending / count + (index < pending % count ? 1 : 0)
            let fresh = await users.freshSteps(for: index)
            least = min(least, fresh)
            if fresh < demand { short += 1 }
        }
        guard short == 0 else {
            let needed = (pending + max(1, least) - 1) / max(1, least)
            throw BenchFailure(
                message: "\(short) of \(count) users have fewer fresh TOTP steps than pending sign-ins (\(pending) over \(count) users, "
                    + "at least \(least) steps each now): run with --users \(needed) or more, or fewer --pending")
        }
    }

    static func finishTOTP(index: Int, credential: String, users: BenchUsers, api: PublicClient) async throws {
        guard let (enrollment, code) = await users.nextCode(for: index) else { throw BenchFailure(message: "no unused TOTP step") }
        try await finishTOTP(credential: credential, enrollment: enrollment, code: code, api: api)
    }

    static func finishTOTP(credential: String, enrollment: String, code: String, api: PublicClient) async throws {
        _ = try await api.post(
            "v2/accounts/mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(credential), "mfaEnrollmentId": .string(enrollment),
                "totpVerificationInfo": ["verificationCode": .string(code)],
            ]
        )
    }

    /// One user: sign-up, verified email (admin), sign-in, TOTP factors, a phone factor on a test number.
    static func prepare(
        index: Int, run: String, password: String, totpFactors: Int, number: String, api: PublicClient, admin: AdminClient,
        into users: BenchUsers
    ) async throws {
        let email = "load-\(run)-\(index)@bench.example"
        let account = try await api.post("v1/accounts:signUp", ["email": .string(email), "password": .string(password)])
        guard let localId = account["localId"]?.stringValue else { throw BenchFailure(message: "no account") }
        _ = try await admin.send(
            .POST, "identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
            ["localId": .string(localId), "emailVerified": true]
        )
        var idToken =
            try await api.post("v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])["idToken"]?
            .stringValue ?? ""
        var totp: [(id: String, secret: [UInt8], lastStep: Int64)] = []
        var refresh = ""
        for _ in 0..<totpFactors {
            let started = try await api.post("v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
            guard let info = started["totpSessionInfo"], let key = info["sharedSecretKey"]?.stringValue, let secret = Base32.decode(key)
            else {
                throw BenchFailure(message: "no TOTP session")
            }
            let step = Int64(Date().timeIntervalSince1970) / 30
            let done = try await api.post(
                "v2/accounts/mfaEnrollment:finalize",
                [
                    "idToken": .string(idToken),
                    "totpVerificationInfo": [
                        "sessionInfo": info["sessionInfo"] ?? "",
                        "verificationCode": .string(TOTPFactorProvider.code(secret: secret, step: step)),
                    ],
                ]
            )
            idToken = done["idToken"]?.stringValue ?? idToken
            refresh = done["refreshToken"]?.stringValue ?? refresh
            guard let id = RoutingHintFactor.identifier(idToken) else { throw BenchFailure(message: "no factor id") }
            totp.append((id, secret, step))
        }
        let started = try await api.post(
            "v2/accounts/mfaEnrollment:start",
            [
                "idToken": .string(idToken),
                "phoneEnrollmentInfo": ["phoneNumber": .string(number), "recaptchaToken": "test-recaptcha-token"],
            ]
        )
        let done = try await api.post(
            "v2/accounts/mfaEnrollment:finalize",
            [
                "idToken": .string(idToken),
                "phoneVerificationInfo": ["sessionInfo": started["phoneSessionInfo"]?["sessionInfo"] ?? "", "code": "123456"],
            ]
        )
        idToken = done["idToken"]?.stringValue ?? idToken
        refresh = done["refreshToken"]?.stringValue ?? refresh
        await users.add(
            BenchUser(
                email: email, totp: totp, phoneEnrollmentId: RoutingHintFactor.identifier(idToken), refreshToken: refresh, idToken: idToken)
        )
    }

    /// Runs `body(0..<count)` with `width` workers.
    static func parallel(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let next = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, width) {
                group.addTask {
                    while true {
                        let index = await next.next() - 1
                        if index >= count { return }
                        try await body(index)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Progress goes to standard error, unbuffered, so it shows while the run goes on.
    static func log(_ line: String) {
        FileHandle.standardError.write(Data("[mfa-bench] \(line)\n".utf8))
    }
}

/// Prints "n/total" at most every second.
actor Progress {
    let label: String
    let total: Int
    private var done = 0
    private var lastPrinted = ContinuousClock.now

    init(label: String, total: Int) {
        self.label = label
        self.total = total
    }

    func tick() {
        done += 1
        if done == total || ContinuousClock.now - lastPrinted > .seconds(1) {
            lastPrinted = ContinuousClock.now
            LoadScenarios.log("\(label): \(done)/\(total)")
        }
    }
}

/// The `second_factor_identifier` of an ID token (read without verifying: the bench's own token).
enum RoutingHintFactor {
    static func identifier(_ token: String?) -> String? {
        guard let token else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count >= 2 else { return nil }
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), case .object(let claims)? = try? JSONCoding.parse(Array(data)) else { return nil }
        return claims["firebase"]?["second_factor_identifier"]?.stringValue
    }
}
