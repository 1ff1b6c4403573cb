import Crypto
import Foundation
import HTTPTypes
import ServiceTransport

/// Checks `Authorization: Bearer <token>` on admin routes against the SHA-256 hashes from
/// configuration (`admin.tokenSha256`). In development mode the emulator's `Bearer owner` is an
/// admin credential too (the contract's decision 11); production accepts only configured tokens.
public struct AdminAuthenticator: Sendable {
    let tokenHashes: [[UInt8]]
    let mode: DeploymentMode

    public init(tokenHashesHex: [String], mode: DeploymentMode) {
        tokenHashes = tokenHashesHex.compactMap(Self.bytes(fromHex:))
        self.mode = mode
    }

    /// Which admin credential `headers` carry, as the security events name it: the first 12 hex
    /// digits of its SHA-256 (as `admin.tokenSha256` lists it), which tell nothing of the token.
    public static func credentialID(_ headers: HTTPFields) -> String? {
        guard let token = bearerToken(headers[.authorization]) else { return nil }
        return SHA256.hash(data: Array(token.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether the request carries an admin credential.
    public func isAdmin(_ headers: HTTPFields) -> Bool {
        guard let token = Self.bearerToken(headers[.authorization]) else { return false }
        if mode == .development, token.lowercased() == "owner" { return true }
        return Self.matches(token, anyOf: tokenHashes)
    }

    /// Whether `token`'s SHA-256 is one of `hashes`, compared against every one without an early exit.
    static func matches(_ token: String, anyOf hashes: [[UInt8]]) -> Bool {
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var matched = false
        for expected in hashes {
            matched = constantTimeEquals(digest, expected) || matched
        }
        return matched
    }

    /// The token of a `Bearer` authorization header (scheme case-insensitive, as HTTP says).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
