import ArgumentParser
import AsyncHTTPClient
import FactorTOTP
import Foundation
import JSONRPC
import NIOHTTP1

/// Second-factor sign-in through the public API. Each measured call finishes a sign-in from a fresh
/// pending credential (made beforehand by signInWithPassword, which is not measured):
/// `totp`: `mfaSignIn:finalize` with a code computed here (RFC 6238), a new time step per factor each
/// time (replay protection allows nothing else); `sms`: `mfaSignIn:start` + `mfaSignIn:finalize`
/// pairs on the project's test phone numbers (no SMS delivery; app proof, sessions, hashing and
/// the pending credential are all real).
struct MFAFlows: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa", abstract: "TOTP mfaSignIn:finalize, or SMS mfaSignIn start+finalize pairs, through the gateway."
    )

    @Option(help: "totp or sms.") var scenario: String = "totp"
    @Option(help: "The gateway's public URL (loopback only).") var gateway: String = "http://127.0.0.1:8080"
    @Option(help: "The admin bearer token.") var adminToken: String = "owner"
    @Option(help: "Concurrent clients.") var concurrency: Int = 64
    @Option(help: "Users to prepare (TOTP: each with 5 factors).") var users: Int = 100
    @Option(help: "Pending credentials to prepare (one per measured sign-in; made with the password, ~60/s).")
    var pending: Int = 2000
    @Option(help: "Seconds to measure at most (ends early when the pending credentials run out).") var duration: Double = 10

    func run() async throws {
        guard RPCRoundTrip.isLoopback(gateway) else { throw ValidationError("benchmarks target loopback only") }
        var configuration = HTTPClient.Configuration()
        // The preparation runs 16 at a time even when the measurement uses fewer clients.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(concurrency, 16))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = client.shutdown() }
        let api = PublicClient(client: client, gateway: gateway)
        let admin = AdminClient(client: client, gateway: gateway, token: adminToken)
        let run = UUID().uuidString.prefix(6).lowercased()
        let scenario = self.scenario
        let password = "bench-password-\(run)"
        let testNumbers = (0..<10).map { "+1555010\(String(format: "%04d", $0))" }
        if scenario == "sms" {
            // Test numbers: fixed code, no delivery (the project's own config, restored below).
            let numbers = JSONValue.object(Dictionary(uniqueKeysWithValues: testNumbers.map { ($0, JSONValue.string("123456")) }))
            _ = try await admin.send(
                .PATCH, "v2/projects/demo-project/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
                ["signIn": ["phoneNumber": ["testPhoneNumbers": numbers]]]
            )
        }
        print("preparing \(users) users with second factors...")
        let factors = FactorPool()
        try await forEach(0..<users, concurrency: 16) { index in
            let email = "mfa-\(run)-\(index)@bench.example"
            let account = try await api.post("v1/accounts:signUp", ["email": .string(email), "password": .string(password)])
            guard let localId = account["localId"]?.stringValue, var idToken = account["idToken"]?.stringValue else {
                throw BenchFailure(message: "no account")
            }
            _ = try await admin.send(
                .POST, "identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:update",
                ["localId": .string(localId), "emailVerified": true]
            )
            idToken =
                try await api.post("v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])["idToken"]?
                .stringValue ?? ""
            for slot in 0..<(scenario == "totp" ? 5 : 1) {
                let enrolled: JSONValue
                if scenario == "totp" {
                    let started = try await api.post(
                        "v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
                    guard let info = started["totpSessionInfo"], let key = info["sharedSecretKey"]?.stringValue,
                        let secret = Base32.decode(key)
                    else { throw BenchFailure(message: "no TOTP session") }
                    let step = Int64(Date().timeIntervalSince1970) / 30
                    enrolled = try await api.post(
                        "v2/accounts/mfaEnrollment:finalize",
                        [
                            "idToken": .string(idToken),
                            "totpVerificationInfo": [
                                "sessionInfo": info["sessionInfo"] ?? "",
                                "verificationCode": .string(TOTPFactorProvider.code(secret: secret, step: step)),
                            ],
                        ]
                    )
                    await factors.add(email: email, secret: secret, enrolledStep: step, slot: slot)
                } else {
                    let number = testNumbers[index % testNumbers.count]
                    let started = try await api.post(
                        "v2/accounts/mfaEnrollment:start",
                        [
                            "idToken": .string(idToken),
                            "phoneEnrollmentInfo": ["phoneNumber": .string(number), "recaptchaToken": "test-recaptcha-token"],
                        ]
                    )
                    enrolled = try await api.post(
                        "v2/accounts/mfaEnrollment:finalize",
                        [
                            "idToken": .string(idToken),
                            "phoneVerificationInfo": ["sessionInfo": started["phoneSessionInfo"]?["sessionInfo"] ?? "", "code": "123456"],
                        ]
                    )
                    await factors.add(email: email, secret: [], enrolledStep: 0, slot: slot)
                }
                idToken = enrolled["idToken"]?.stringValue ?? idToken
            }
        }
        print("preparing \(pending) pending credentials (signInWithPassword, not measured)...")
        let emails = await factors.emails
        let credentials = CredentialPool()
        try await forEach(0..<pending, concurrency: concurrency) { index in
            let email = emails[index % emails.count]
            let answer = try await api.post("v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])
            guard let credential = answer["mfaPendingCredential"]?.stringValue, case .array(let hints)? = answer["mfaInfo"] else {
                throw BenchFailure(message: "no MFA branch")
            }
            await credentials.add(
                email: email, credential: credential, enrollmentIds: hints.compactMap { $0["mfaEnrollmentId"]?.stringValue })
        }
        print("measuring at most \(duration)s at \(concurrency) concurrent clients...")
        let started = ContinuousClock.now
        let result = await ClosedLoop.run(concurrency: concurrency, seconds: duration) { _ in
            guard let next = await credentials.take() else { throw BenchFailure(message: "out of pending credentials") }
            if scenario == "totp" {
                guard let (enrollmentId, code) = await factors.nextCode(email: next.email, enrollmentIds: next.enrollmentIds) else {
                    throw BenchFailure(message: "no unused time step")
                }
                _ = try await api.post(
                    "v2/accounts/mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": .string(next.credential), "mfaEnrollmentId": .string(enrollmentId),
                        "totpVerificationInfo": ["verificationCode": .string(code)],
                    ]
                )
            } else {
                let started = try await api.post(
                    "v2/accounts/mfaSignIn:start",
                    [
                        "mfaPendingCredential": .string(next.credential), "mfaEnrollmentId": .string(next.enrollmentIds[0]),
                        "phoneSignInInfo": ["recaptchaToken": "test-recaptcha-token"],
                    ]
                )
                _ = try await api.post(
                    "v2/accounts/mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": .string(next.credential),
                        "phoneVerificationInfo": ["sessionInfo": started["phoneResponseInfo"]?["sessionInfo"] ?? "", "code": "123456"],
                    ]
                )
            }
        }
        let elapsed = TenantScale.seconds(ContinuousClock.now - started)
        let measured = min(elapsed, duration)
        print(
            ClosedLoop.report(
                scenario == "totp" ? "mfaSignIn:finalize (TOTP)" : "mfaSignIn start+finalize (SMS)", concurrency: concurrency,
                seconds: measured, result))
        if scenario == "sms" {
            _ = try await admin.send(
                .PATCH, "v2/projects/demo-project/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
                ["signIn": ["phoneNumber": ["testPhoneNumbers": [:]]]]
            )
        }
    }

    func forEach(_ range: Range<Int>, concurrency: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let next = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while true {
                        let index = await next.next() - 1 + range.lowerBound
                        if index >= range.upperBound { return }
                        try await body(index)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// Each user's TOTP factors and the last time step used with each (steps must only go up).
actor FactorPool {
    struct Factor {
        let secret: [UInt8]
        var lastStep: Int64
    }
    private var factors: [String: [Factor]] = [:]
    private(set) var emails: [String] = []

    func add(email: String, secret: [UInt8], enrolledStep: Int64, slot: Int) {
        if factors[email] == nil { emails.append(email) }
        factors[email, default: []].append(Factor(secret: secret, lastStep: enrolledStep))
    }

    /// A factor (by its position, matched to the sign-in's hints) and a code of a step it has not
    /// used, inside the default window of 5 steps ahead.
    func nextCode(email: String, enrollmentIds: [String]) -> (String, String)? {
        guard var list = factors[email] else { return nil }
        let now = Int64(Date().timeIntervalSince1970) / 30
        for index in list.indices where index < enrollmentIds.count {
            let step = max(list[index].lastStep + 1, now - 4)
            if step <= now + 4 {
                list[index].lastStep = step
                factors[email] = list
                return (enrollmentIds[index], TOTPFactorProvider.code(secret: list[index].secret, step: step))
            }
        }
        return nil
    }
}

actor CredentialPool {
    struct Pending: Sendable {
        let email: String
        let credential: String
        let enrollmentIds: [String]
    }
    private var items: [Pending] = []

    func add(email: String, credential: String, enrollmentIds: [String]) {
        items.append(Pending(email: email, credential: credential, enrollmentIds: enrollmentIds))
    }

    func take() -> Pending? { items.popLast() }
}
