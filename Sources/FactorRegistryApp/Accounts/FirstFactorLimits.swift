import Configuration
import Contracts
import IdentityToolkit
import ServiceKit
import TenantStore

/// Contract decision 20: limits on what a client can do with a first factor,
/// held in this service's PostgreSQL so that they count once across every instance.
///
/// - every password sign-in, sign-up and out-of-band mail takes a token of its client address's
///   bucket (`firstFactor.perAddress`); an IPv6 address counts by its /64 (the gateway says so);
/// - wrong passwords are budgeted per account **and** client address (`firstFactor.failures`): a
///   token is taken before the hash and given back when the password was right, so parallel
///   guesses cannot outrun the budget, and a victim's correct password from any client the
///   attacker is not on still works (no lock-out by strangers);
/// - new accounts per project or tenant (`signUp.perScope`), which bounds bot sign-ups from many
///   addresses;
/// - out-of-band mails per account (`oobCodes.mailsPerAccount`), so nobody's inbox is flooded.
///
/// Each refusal is `TOO_MANY_ATTEMPTS_TRY_LATER`. Calls without a client address (the Admin SDKs'
/// forms, which need an admin credential) are not limited by address.
struct FirstFactorLimits: Sendable {
    let limiter: RateLimiter
    let perAddress: RateLimiter.Rule
    let failures: RateLimiter.Rule
    let signUpsPerScope: RateLimiter.Rule
    let mailsPerAccount: RateLimiter.Rule
    /// The audit trail: a scope's tripped limit is recorded there.
    let events: SecurityEventLog

    init(limiter: RateLimiter, reader: ConfigReader, development: Bool, events: SecurityEventLog) {
        self.events = events
        self.limiter = limiter
        // Development: generous enough for a test suite from one address (decision 14).
        let generous = development
        perAddress = RateLimiter.Rule(reader, "firstFactor.perAddress", burst: generous ? 100_000 : 60, perHour: generous ? 1_000_000 : 600)
        failures = RateLimiter.Rule(reader, "firstFactor.failures", burst: generous ? 1_000 : 10, perHour: generous ? 10_000 : 20)
        signUpsPerScope = RateLimiter.Rule(
            reader, "signUp.perScope", burst: generous ? 100_000 : 500, perHour: generous ? 1_000_000 : 5_000)
        mailsPerAccount = RateLimiter.Rule(reader, "oobCodes.mailsPerAccount", burst: generous ? 1_000 : 5, perHour: generous ? 10_000 : 20)
    }

    func admit(address: String?) async throws {
        guard let address else { return }
        guard try await limiter.take("first-factor:\(address)", rule: perAddress) else { throw Self.tooMany }
    }

    /// Takes a token of the failure budget of `email` from `address` before the password is
    /// checked (so parallel guesses cannot all pass a look that none of them spent yet), and
    /// returns its key; the token goes back when the password was right (`refund`).
    func takeFailure(_ schema: TenantSchema, email: String, address: String?) async throws -> String {
        let key = "password-failures:\(schema.name):\(email.lowercased()):\(address ?? "-")"
        guard try await limiter.take(key, rule: failures) else { throw Self.tooMany }
        return key
    }

    /// A right password costs no failure.
    func refund(_ key: String) async {
        try? await limiter.giveBack(key, rule: failures)
    }

    func admitSignUp(_ schema: TenantSchema) async throws {
        guard try await limiter.take("sign-ups:\(schema.name)", rule: signUpsPerScope) else {
            try await events.record(.rateLimitTripped, localId: nil, details: ["limit": "sign-ups per scope"], in: schema)
            throw Self.tooMany
        }
    }

    /// `recipient`: the account's id, or for an address with no account yet, `email:` and the address.
    func admitMail(_ schema: TenantSchema, recipient: String) async throws {
        guard try await limiter.take("mails:\(schema.name):\(recipient)", rule: mailsPerAccount) else {
            // The recipient is an account id, or (no account yet) an address, which the trail does not keep.
            let localId = recipient.hasPrefix("email:") ? nil : recipient
            try await events.record(.rateLimitTripped, localId: localId, details: ["limit": "mails per account"], in: schema)
            throw Self.tooMany
        }
    }

    static let tooMany = AccountService.rejected(.tooManyAttemptsTryLater)
}
