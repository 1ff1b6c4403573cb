import ArgumentParser
import Foundation
import JSONRPC
import QRCode

/// `mfa-admin demo enroll-totp`: enrolls an authenticator app for a user the way an app does
/// (password sign-in, `mfaEnrollment:start`, the code, `mfaEnrollment:finalize`), drawing the QR
/// code in the terminal for the app to scan.
struct DemoCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Try the product from a terminal.", subcommands: [EnrollTOTP.self]
    )

    struct EnrollTOTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-totp",
            abstract: "Sign in as a user (or sign one up) and enroll an authenticator app from a QR code in the terminal.",
            discussion: """
                The user needs a verified email address to enroll, as Firebase requires; with --sign-up the
                new user's address is marked verified with the admin credential. The code is read from
                --code or asked for on standard input.
                """
        )
        @OptionGroup var gateway: GatewayOptions
        @Option(help: "The user's email address.") var email: String
        @Option(help: "The user's password [env: MFA_DEMO_PASSWORD].") var password: String?
        @Flag(help: "Create the user first (and mark the address verified).") var signUp = false
        @Option(help: "An API key of the project (any key in development mode).") var apiKey = "demo"
        @Option(help: "The app's current code; asked for when absent.") var code: String?
        @Option(help: "The factor's display name.") var displayName = "Authenticator app"

        func run() async throws {
            guard let password = password ?? ProcessInfo.processInfo.environment["MFA_DEMO_PASSWORD"] else {
                throw ValidationError("pass --password or set MFA_DEMO_PASSWORD")
            }
            let tenant: [String: JSONValue] = gateway.tenant.map { ["tenantId": .string($0)] } ?? [:]
            let enrolled = try await gateway.withClient { client in
                let credentials: [String: JSONValue] = ["email": .string(email), "password": .string(password), "returnSecureToken": true]
                if signUp {
                    let created = try await client.app(v1("signUp"), apiKey: apiKey, body: .object(credentials.merging(tenant) { $1 }))
                    _ = try await client.admin(
                        .POST, gateway.scopePath("v1") + "/accounts:update",
                        body: ["localId": created["localId"] ?? "", "emailVerified": true]
                    )
                }
                let session = try await client.app(
                    v1("signInWithPassword"), apiKey: apiKey, body: .object(credentials.merging(tenant) { $1 })
                )
                guard let idToken = session["idToken"] else {
                    throw CommandFailure.message("the user has second factors already: sign in through one first (the demo page does)")
                }
                let started = try await client.app(
                    v2("mfaEnrollment:start"), apiKey: apiKey,
                    body: .object(["idToken": idToken, "totpEnrollmentInfo": [:]].merging(tenant) { $1 })
                )
                let info = started["totpSessionInfo"] ?? [:]
                let uri = Self.otpauthURI(info, account: email, issuer: "mfa-backend \(gateway.project)")
                guard let symbol = QRCode(encoding: uri) else { throw CommandFailure.message("the address does not fit a QR code") }
                Output.line(symbol.terminalText)
                Output.line("Scan the code with an authenticator app, or type the key: \(Output.text(info["sharedSecretKey"]))")
                Output.line("Address: \(uri)")
                let entered = try code ?? Self.ask("Code from the app: ")
                let finalized = try await client.app(
                    v2("mfaEnrollment:finalize"), apiKey: apiKey,
                    body: .object(
                        [
                            "idToken": idToken, "displayName": .string(displayName),
                            "totpVerificationInfo": ["sessionInfo": info["sessionInfo"] ?? "", "verificationCode": .string(entered)],
                        ].merging(tenant) { $1 }
                    )
                )
                return finalized
            }
            if gateway.json { return Output.json(enrolled) }
            Output.line("Enrolled: \(email) now signs in with a password and a code from the app.")
        }

        private func v1(_ operation: String) -> String { "/identitytoolkit.googleapis.com/v1/accounts:\(operation)" }
        private func v2(_ operation: String) -> String { "/identitytoolkit.googleapis.com/v2/accounts/\(operation)" }

        /// The address authenticator apps read, as the Firebase SDKs' `TotpSecret.generateQrCodeUrl` builds it.
        static func otpauthURI(_ info: JSONValue, account: String, issuer: String) -> String {
            let label = GatewayOptions.segment(issuer) + ":" + GatewayOptions.segment(account)
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "secret", value: Output.text(info["sharedSecretKey"])), URLQueryItem(name: "issuer", value: issuer),
                URLQueryItem(name: "algorithm", value: Output.text(info["hashingAlgorithm"] ?? "SHA1")),
                URLQueryItem(name: "digits", value: Output.text(info["verificationCodeLength"] ?? 6)),
                URLQueryItem(name: "period", value: Output.text(info["periodSec"] ?? 30)),
            ]
            return "otpauth://totp/\(label)?\(components.percentEncodedQuery ?? "")"
        }

        static func ask(_ prompt: String) throws -> String {
            Output.write(prompt)
            guard let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !answer.isEmpty else {
                throw CommandFailure.message("no code given")
            }
            return answer
        }
    }
}
