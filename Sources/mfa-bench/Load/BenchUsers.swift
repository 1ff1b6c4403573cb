import FactorTOTP
import Foundation

/// A prepared user: password, TOTP factors (secret, enrollment id, last step used) and a phone
/// factor on a test number.
struct BenchUser: Sendable {
    let email: String
    var totp: [(id: String, secret: [UInt8], lastStep: Int64)]
    var phoneEnrollmentId: String?
    var refreshToken: String
    var idToken: String
}

/// Every prepared user, handed out round-robin; TOTP steps only go up (the server accepts a step once
/// per factor, so a code is made for the earliest unused step inside the ±5 window).
actor BenchUsers {
    private var users: [BenchUser] = []

    var count: Int { users.count }

    func add(_ user: BenchUser) { users.append(user) }

    func email(at index: Int) -> String { users[index % users.count].email }

    /// How many codes user `index` can give now: each factor's unused steps inside the window
    /// (steps behind it are lost; one more comes every 30 s).
    func freshSteps(for index: Int) -> Int {
        let now = Int64(Date().timeIntervalSince1970) / 30
        return users[index % users.count].totp.reduce(0) { total, factor in
            total + Int(max(0, now + 4 - max(factor.lastStep + 1, now - 4) + 1))
        }
    }

    /// A code of the first user from `index` on (round-robin) with a fresh step, taken at once so no
    /// other client spends it meanwhile: a closed loop never fails on one user's exhausted factors
    /// while others have steps; `nil` only when nobody has one.
    func reserveCode(from index: Int) -> (user: Int, id: String, code: String)? {
        for offset in 0..<users.count {
            let user = (index + offset) % users.count
            if let (id, code) = nextCode(for: user) { return (user, id, code) }
        }
        return nil
    }

    /// A factor of user `index` and a code for a step it has not used, or `nil` when its factors are
    /// used up for now (the window moves on every 30 s).
    func nextCode(for index: Int) -> (id: String, code: String)? {
        let position = index % users.count
        let now = Int64(Date().timeIntervalSince1970) / 30
        for factor in users[position].totp.indices {
            let step = max(users[position].totp[factor].lastStep + 1, now - 4)
            if step <= now + 4 {
                users[position].totp[factor].lastStep = step
                let chosen = users[position].totp[factor]
                return (chosen.id, TOTPFactorProvider.code(secret: chosen.secret, step: step))
            }
        }
        return nil
    }

    func phoneEnrollmentId(at index: Int) -> String? { users[index % users.count].phoneEnrollmentId }

    func refreshToken(of caller: Int) -> String { users[caller % users.count].refreshToken }

    func setRefreshToken(_ token: String, of caller: Int) { users[caller % users.count].refreshToken = token }

    func idToken(of index: Int) -> String { users[index % users.count].idToken }

    func setIDToken(_ token: String, of index: Int) { users[index % users.count].idToken = token }

}

/// Pending credentials made ahead (signInWithPassword is slow by design; not what is measured).
actor PendingPool {
    private var items: [(index: Int, credential: String)] = []

    func add(index: Int, credential: String) { items.append((index, credential)) }

    func take() -> (index: Int, credential: String)? { items.popLast() }

    var count: Int { items.count }
}
