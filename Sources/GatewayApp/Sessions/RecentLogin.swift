import AuthVocabulary
import Configuration
import Foundation
import IdentityToolkit
import ServiceKit

/// Decision 18: changing the password or the email, deleting the account, and enrolling or
/// withdrawing a second factor need a sign-in within the project's window (`auth_time`, which a
/// refresh does not move). A stolen refresh token mints fresh ID tokens, but never a recent
/// sign-in, so it cannot strip the factors and take over the account.
///
/// Enrollment is gated at `start`: its `sessionInfo` is bound to the user and expires on its own
/// (TOTP 5 minutes, SMS 10), so a user who scans a QR code slowly is not sent back to sign in.
struct RecentLogin: Sendable {
    /// `recentLogin.windowSeconds`.
    let window: Int64
    /// `recentLogin.projects`: per-project windows, `projectId=seconds`.
    let projectWindows: [String: Int64]

    init(window: Int64 = 300, projectWindows: [String: Int64] = [:]) {
        self.window = window
        self.projectWindows = projectWindows
    }

    init(reader: ConfigReader) throws {
        let window = Int64(reader.int(forKey: "recentLogin.windowSeconds", default: 300))
        guard window > 0 else { throw InvalidSetting(key: "recentLogin.windowSeconds", reason: "must be a positive number of seconds") }
        var projectWindows: [String: Int64] = [:]
        for entry in reader.stringArray(forKey: "recentLogin.projects", default: []) {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let seconds = Int64(parts[1]), seconds > 0 else {
                throw InvalidSetting(key: "recentLogin.projects", reason: "entry '\(entry)' is not <projectId>=<seconds>")
            }
            projectWindows[parts[0]] = seconds
        }
        self.init(window: window, projectWindows: projectWindows)
    }

    func window(for projectId: String) -> Int64 { projectWindows[projectId] ?? window }

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless `user` signed in within the window and, under
    /// the scope's step-up policy, passed a second factor within its own (StepUp).
    func require(_ user: SignedInUser, now: Date = Date()) throws {
        let age = EpochSeconds(now) - user.token.authTime
        if age > window(for: user.token.projectId) { throw IdentityToolkitError(.credentialTooOldLoginAgain) }
        try StepUp.require(user, now: now)
    }
}
