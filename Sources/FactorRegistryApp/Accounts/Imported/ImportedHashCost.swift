import Foundation

/// What checking one stored password hash may cost (issue 57, F-4). An imported hash carries its
/// own cost, and a few anonymous sign-in attempts against one expensive hash pinned the hashing
/// pool: `$2a$17$` made every other sign-in answer 503 after two attempts, `$2a$31$` costs about 39
/// hours per attempt. So imports refuse what costs more than these bounds (decision 23), and a
/// stored hash beyond them (a row from before the bound) fails like a wrong password without being
/// hashed; a password reset replaces it.
///
/// - bcrypt: cost 12 at most. It is the highest default of the frameworks whose users get imported
///   (Laravel, Rails' Devise; most use 10 or 11), about a quarter of a second of one thread here;
///   every step doubles it, and 14 would let four attempts hold the pool for a second each.
///   Identity Platform documents no bound.
/// - scrypt (`STANDARD_SCRYPT`, and our own `scrypt$…` form): N·r·p at most 2^20, eight times this
///   server's default work (N = 2^14, r = 8, p = 1); p is bounded by it. The project's own
///   configured parameters may go beyond (an operator's choice): those hashes stay checkable.
/// - Firebase's `SCRYPT` (memoryCost at most 14, rounds at most 8) and PBKDF2 (120,000 rounds at
///   most) are bounded at import already.
enum ImportedHashCost {
    static let bcryptMaximumCost = 12
    static let scryptMaximumWork = 1 << 20

    /// The cost inside a bcrypt string (`$2a$12$…`), or `nil` when it has none.
    static func bcryptCost(_ text: String) -> Int? {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[1].hasPrefix("2"), fields[2].count == 2, let cost = Int(fields[2]) else { return nil }
        return cost
    }

    /// N·r·p of a stored `scrypt$N$r$p$…` hash, or `nil` for another form.
    static func scryptWork(_ stored: String) -> Int? {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "scrypt", let n = Int(fields[1]), let r = Int(fields[2]), let p = Int(fields[3]),
            n > 0, r > 0, p > 0
        else { return nil }
        let (nr, overflowNR) = n.multipliedReportingOverflow(by: r)
        let (work, overflow) = nr.multipliedReportingOverflow(by: p)
        return overflowNR || overflow ? .max : work
    }

    /// Whether checking `stored` stays within the bounds; `ownWork`: the strongest scrypt work the
    /// deployment's own parameters make, which its hashes may have.
    static func isCheckable(_ stored: String, ownWork: Int) -> Bool {
        if stored.hasPrefix("bcrypt$") {
            guard let bytes = Data(base64Encoded: String(stored.dropFirst("bcrypt$".count))),
                let text = String(data: bytes, encoding: .ascii), let cost = bcryptCost(text)
            else { return false }
            return cost <= bcryptMaximumCost
        }
        if let work = scryptWork(stored) { return work <= max(scryptMaximumWork, ownWork) }
        return true
    }
}
