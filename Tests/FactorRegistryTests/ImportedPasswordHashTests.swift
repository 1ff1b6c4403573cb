import Contracts
import Crypto
import Foundation
import JSONRPC
import ServiceKit
import Synchronization
import Testing

@testable import FactorRegistryApp

/// Imported password hashes, checked against vectors others published: Firebase's own scrypt
/// utility's README (github.com/firebase/scrypt) and the vectors t-k/fireemu reports Identity
/// Platform accepted (password `password123`, salt `salt-value-01`). The Python suite checks the
/// same algorithms against hashes its libraries compute, through firebase-admin's `import_users`.
@Suite("Imported password hashes: every algorithm of accounts:batchCreate")
struct ImportedPasswordHashTests {
    static let sealer = SecretSealer(masterKey: SymmetricKey(size: .bits256))
    static let inner = PasswordHasher(rounds: 1024, blockSize: 8, parallelism: 1)
    static let salt = "c2FsdC12YWx1ZS0wMQ=="
    static let fireemuKey = "ZmlyZWVtdS10ZXN0LXNpZ25lci1rZXktbm90LWEtc2VjcmV0LTAxMjM0NTY3ODk="

    /// The stored form the import makes, then whether `password` matches it.
    static func check(
        _ parameters: PasswordHashParameters, hash: String, salt: String = salt, password: String
    ) async throws -> Bool {
        let scheme = try ImportedHashScheme(parameters)
        let stored = try await scheme.stored(
            hash: AccountImporter.base64(hash)!, salt: AccountImporter.base64(salt)!, sealedKey: try scheme.sealedKey(sealer), inner: inner
        )
        if stored.hasPrefix("scrypt$") || stored.hasPrefix("firebase-scrypt$") { return inner.verifyBlocking(password, against: stored) }
        return ImportedPasswordHash.matches(password, stored: stored, sealer: sealer, inner: inner)
    }

    @Test("Firebase scrypt: the README vector of Firebase's scrypt utility")
    func firebaseScryptReadme() async throws {
        let parameters = PasswordHashParameters(
            algorithm: "SCRYPT", signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            saltSeparator: "Bw==", rounds: 8, memoryCost: 14
        )
        let hash = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
        #expect(try await Self.check(parameters, hash: hash, salt: "42xEC+ixf3L2lw==", password: "user1password"))
        #expect(try await !Self.check(parameters, hash: hash, salt: "42xEC+ixf3L2lw==", password: "user1Password"))
    }

    @Test(
        "every algorithm takes the hash Identity Platform took, and refuses another password",
        arguments: [
            (
                "SCRYPT",
                PasswordHashParameters(algorithm: "SCRYPT", signerKey: fireemuKey, saltSeparator: "AQ==", rounds: 8, memoryCost: 14),
                "kpTohCD16EXInbtG8sZ026wT5qRpnJowl3OllMYOvbQgh4hjocr2yXNmGSITBS8="
            ),
            (
                "STANDARD_SCRYPT",
                PasswordHashParameters(algorithm: "STANDARD_SCRYPT", cpuMemCost: 1024, blockSize: 8, parallelization: 1, dkLen: 64),
                "EQFJM7AIB7I23wfy+f49HdwfnK7bk71NUdDqZKXxlGWQ2PLdf3W8qjoMipB3uyPGw9fA4/V82/RpSesOoVkU7A=="
            ),
            (
                "BCRYPT", PasswordHashParameters(algorithm: "BCRYPT"),
                "JDJhJDEwJGFiY2RlZmdoaWprbG1ub3BxcnN0dXUwU1lxOHR3cGN0aFMxMHV4UTI2cnYwczNPYmo4VWZ1"
            ),
            (
                "PBKDF2_SHA256", PasswordHashParameters(algorithm: "PBKDF2_SHA256", rounds: 1000),
                "kCPjarpBbvCKB586M6v7ELi8bZU6G8MqbdDxxWBWFSw="
            ),
            ("PBKDF_SHA1", PasswordHashParameters(algorithm: "PBKDF_SHA1", rounds: 1000), "IWZWjqgZ+tNB9FhoHHHtNRWdU5I="),
            (
                "PBKDF_SHA1 64", PasswordHashParameters(algorithm: "PBKDF_SHA1", rounds: 1000),
                "IWZWjqgZ+tNB9FhoHHHtNRWdU5L2jhiSmB6JzvsSYmvTkenQR4JvJetZejxwE6Q5G855Y4PqB78ctR1Zl/y9Bw=="
            ),
            ("HMAC_MD5", PasswordHashParameters(algorithm: "HMAC_MD5", signerKey: fireemuKey), "QtUxMKEzmP6zJlwzAtMDpw=="),
            (
                "HMAC_MD5 salt first",
                PasswordHashParameters(algorithm: "HMAC_MD5", signerKey: fireemuKey, passwordHashOrder: "SALT_AND_PASSWORD"),
                "bK8V+ubgAu+W22poiuKsjQ=="
            ),
            ("HMAC_SHA1", PasswordHashParameters(algorithm: "HMAC_SHA1", signerKey: fireemuKey), "QYQ8FPnmQ8Csm5xJL4jVV+d/+rk="),
            (
                "HMAC_SHA256", PasswordHashParameters(algorithm: "HMAC_SHA256", signerKey: fireemuKey),
                "8VgjOzrpgL/hh8e7rOukk+Gsnf+Fhf96IUGbGTINfDk="
            ),
            (
                "HMAC_SHA256 salt first",
                PasswordHashParameters(algorithm: "HMAC_SHA256", signerKey: fireemuKey, passwordHashOrder: "SALT_AND_PASSWORD"),
                "pBT7xLqk1MCIepnbFQe4fugpS+9zs1I8Zb2afQRHHx4="
            ),
            (
                "HMAC_SHA512", PasswordHashParameters(algorithm: "HMAC_SHA512", signerKey: fireemuKey),
                "k0GYi4OwNw31kJfwJsvnvxPuGFHgZeWaDaO0f46gIl+fJgm+s73V51oSiFnDU+khFMUnYyqn46ItS+fYGzxEUg=="
            ),
            ("MD5 r0", PasswordHashParameters(algorithm: "MD5", rounds: 0), "NTVjZGM2NWFmNjgyMjNiMDI3YzY5NTI3OGExOGM3Mzg="),
            ("MD5 r1", PasswordHashParameters(algorithm: "MD5", rounds: 1), "OTUzMTNiMjYzNWVhZjNlNjc4NTVjY2FhMjg1MGFmNTU="),
            ("MD5 r2", PasswordHashParameters(algorithm: "MD5", rounds: 2), "YjU2MzU3NjUwMzg2OTc1MDk4ODI3ZTllNzJkZjJkMTM="),
            ("SHA1 r1", PasswordHashParameters(algorithm: "SHA1", rounds: 1), "zhQgjrJfwsWZHkAe+mD3cOhzesE="),
            (
                "SHA1 r1 password first", PasswordHashParameters(algorithm: "SHA1", rounds: 1, passwordHashOrder: "PASSWORD_AND_SALT"),
                "mPKMKYJQKWJjExqk3q7Df3+DvIc="
            ),
            ("SHA1 r2", PasswordHashParameters(algorithm: "SHA1", rounds: 2), "+YsnGyLcSSqd7nPHgOEKTemsRhk="),
            ("SHA256 r1", PasswordHashParameters(algorithm: "SHA256", rounds: 1), "7tZoySWNSBRvpfduGo1x1tSJvVEUZXAyNu/ieLbD9BM="),
            ("SHA256 r2", PasswordHashParameters(algorithm: "SHA256", rounds: 2), "MJOEsRWTi8DLIjW6uLJPLgfPp1aFYVndDtvjlOuQQms="),
            (
                "SHA512 r1 password first", PasswordHashParameters(algorithm: "SHA512", rounds: 1, passwordHashOrder: "PASSWORD_AND_SALT"),
                "Rxfl9OMRX7PyrEmcvXnd4c8E5yK9oziPt0/DOhv0O9+YFxl29ShUt1Wup2ZojDovw3tYd7gopfgze0M3Tdb5hQ=="
            ),
            (
                "SHA512 r2", PasswordHashParameters(algorithm: "SHA512", rounds: 2),
                "UsUjyCk7QUSv96clbd1VyQEfbZYzzwCYGol26dxFuGEeBgchfnddXJf+VWHBNo/CaB+6qSByIIW7BzCTKAKOWQ=="
            ),
        ]
    )
    func vectors(name: String, parameters: PasswordHashParameters, hash: String) async throws {
        #expect(try await Self.check(parameters, hash: hash, password: "password123"), "\(name)")
        #expect(try await !Self.check(parameters, hash: hash, password: "password124"), "\(name)")
    }

    @Test("what is stored keeps no signer key, no HMAC key in clear and no fast digest")
    func storedForms() async throws {
        let key = AccountImporter.base64(Self.fireemuKey)!
        let firebase = try ImportedHashScheme(
            PasswordHashParameters(algorithm: "SCRYPT", signerKey: Self.fireemuKey, saltSeparator: "AQ==", rounds: 8, memoryCost: 14)
        )
        let hash = AccountImporter.base64("kpTohCD16EXInbtG8sZ026wT5qRpnJowl3OllMYOvbQgh4hjocr2yXNmGSITBS8=")!
        let stored = try await firebase.stored(hash: hash, salt: Data("salt-value-01".utf8), sealedKey: nil, inner: Self.inner)
        #expect(!stored.contains(key.base64EncodedString()) && !stored.contains(hash.base64EncodedString()))
        let hmac = try ImportedHashScheme(PasswordHashParameters(algorithm: "HMAC_SHA256", signerKey: Self.fireemuKey))
        let sealed = try hmac.sealedKey(Self.sealer)
        let given = Data((0..<32).map { UInt8($0) })
        let mac = try await hmac.stored(hash: given, salt: Data(), sealedKey: sealed, inner: Self.inner)
        #expect(!mac.contains(Self.fireemuKey) && !mac.contains(key.base64EncodedString()))
        #expect(!mac.contains(given.base64EncodedString()) && mac.contains("$firebase-scrypt$"))
        let md5 = try ImportedHashScheme(PasswordHashParameters(algorithm: "MD5", rounds: 0))
        let digest = AccountImporter.base64("NTVjZGM2NWFmNjgyMjNiMDI3YzY5NTI3OGExOGM3Mzg=")!
        let wrapped = try await md5.stored(hash: digest, salt: Data("salt-value-01".utf8), sealedKey: nil, inner: Self.inner)
        #expect(wrapped.hasPrefix("digest-md5$0$s$") && wrapped.contains("$firebase-scrypt$10$8$"))
        #expect(!wrapped.contains(digest.base64EncodedString()) && !wrapped.contains(String(decoding: digest, as: UTF8.self)))
    }

    @Test(
        "bad parameters are refused with Identity Platform's codes",
        arguments: [
            (PasswordHashParameters(algorithm: "ARGON3"), "INVALID_HASH_ALGORITHM"),
            (PasswordHashParameters(algorithm: "SCRYPT", rounds: 8, memoryCost: 14), "INVALID_HASH_PARAMETER"),
            (PasswordHashParameters(algorithm: "SCRYPT", signerKey: fireemuKey, rounds: 9, memoryCost: 14), "INVALID_HASH_ROUNDS"),
            (PasswordHashParameters(algorithm: "SCRYPT", signerKey: fireemuKey, rounds: 8, memoryCost: 15), "INVALID_HASH_PARAMETER"),
            (
                PasswordHashParameters(algorithm: "STANDARD_SCRYPT", cpuMemCost: 1 << 24, blockSize: 8, parallelization: 1, dkLen: 32),
                "INVALID_HASH_PARAMETER"
            ),
            // Issue 57, F-4: p = 16 with N·r = 2^19 is 8 million blocks of work per check.
            (
                PasswordHashParameters(algorithm: "STANDARD_SCRYPT", cpuMemCost: 1 << 16, blockSize: 8, parallelization: 16, dkLen: 32),
                "INVALID_HASH_PARAMETER"
            ),
            (PasswordHashParameters(algorithm: "PBKDF2_SHA256", rounds: 0), "INVALID_HASH_ROUNDS"),
            (PasswordHashParameters(algorithm: "SHA256", rounds: 0), "INVALID_HASH_ROUNDS"),
            (PasswordHashParameters(algorithm: "SHA256", rounds: 8193), "INVALID_HASH_ROUNDS"),
            (PasswordHashParameters(algorithm: "MD5", rounds: -1), "INVALID_HASH_ROUNDS"),
            (PasswordHashParameters(algorithm: "HMAC_SHA512"), "INVALID_HASH_PARAMETER"),
            (PasswordHashParameters(algorithm: "SHA1", rounds: 1, passwordHashOrder: "SIDEWAYS"), "INVALID_HASH_PARAMETER"),
        ]
    )
    func refusals(parameters: PasswordHashParameters, code: String) {
        #expect {
            _ = try ImportedHashScheme(parameters)
        } throws: { error in
            (error as? JSONRPC.RPCError)?.business?.code?.rawValue == code
        }
    }

    @Test("a matching hash of the project's own parameters stays; anything else is replaced at sign-in")
    func rehash() throws {
        let hashers = try PasswordHashers(standard: Self.inner, projectEntries: ["other=2048:8:1"], sealer: Self.sealer)
        let own = try Self.inner.hashBlocking("secret-pw")
        #expect(!hashers.needsRehash(own, projectId: "demo-project"))
        #expect(hashers.needsRehash(own, projectId: "other"))
        #expect(hashers.needsRehash("bcrypt$JDJh", projectId: "demo-project"))
        #expect(!ImportedPasswordHash.matches("x", stored: "nonsense", sealer: Self.sealer, inner: Self.inner))
        #expect(!ImportedPasswordHash.matches("x", stored: "firebase-scrypt$99$8$AA==$AA==", sealer: Self.sealer, inner: Self.inner))
    }

    /// A bcrypt string of the given cost (a syntactically whole `$2a$` hash; its digest is nobody's).
    static func bcrypt(cost: Int) -> String {
        "$2a$\(String(format: "%02d", cost))$" + String(repeating: "N", count: 53)
    }

    @Test("issue 57, F-4: a bcrypt cost above 12 refuses that user at the import, by its index")
    func bcryptCostBoundAtImport() async throws {
        let scheme = try ImportedHashScheme(PasswordHashParameters(algorithm: "BCRYPT"))
        let twelve = try await scheme.stored(hash: Data(Self.bcrypt(cost: 12).utf8), salt: Data(), sealedKey: nil, inner: Self.inner)
        #expect(twelve.hasPrefix("bcrypt$"))
        for cost in [13, 17, 31] {
            await #expect(throws: ImportFailure.self) {
                _ = try await scheme.stored(hash: Data(Self.bcrypt(cost: cost).utf8), salt: Data(), sealedKey: nil, inner: Self.inner)
            }
        }
        #expect(ImportedHashCost.bcryptCost("$2b$10$abc") == 10 && ImportedHashCost.bcryptCost("$2a$x$abc") == nil)
    }

    @Test("issue 57, F-4: a stored hash over the bounds fails like a wrong password, without being hashed")
    func overTheBoundsFailsAtOnce() async throws {
        let hashers = try PasswordHashers(standard: Self.inner, projectEntries: [], sealer: Self.sealer)
        let stored = "bcrypt$" + Data(Self.bcrypt(cost: 31).utf8).base64EncodedString()
        let started = ContinuousClock.now
        #expect(try await !hashers.verify("anything", against: stored, account: "u1", projectId: "demo-project"))
        // Cost 31 would take about 39 hours; a decoy's scrypt is what this costs.
        #expect(ContinuousClock.now - started < .seconds(5))
        let heavy = "scrypt$524288$8$16$" + Data("salt".utf8).base64EncodedString() + "$" + Data(count: 32).base64EncodedString()
        #expect(!ImportedHashCost.isCheckable(heavy, ownWork: hashers.strongestOwnWork))
        #expect(try await !hashers.verify("anything", against: heavy, account: "u1", projectId: "demo-project"))
        // The deployment's own parameters stay checkable, however strong the operator made them.
        #expect(ImportedHashCost.isCheckable("scrypt$524288$8$16$AA==$AA==", ownWork: 524_288 * 8 * 16))
    }

    @Test("issue 57, F-4: imported checks take half the pool at most, and one account one slot at a time")
    func importedLane() async throws {
        let lane = ImportedHashLane(width: 2, maximumWaiting: 8, deadline: .seconds(30))
        let counts = Concurrency()
        let release = AsyncStream<Void>.makeStream()
        // The same account while its check runs: refused at once.
        let first = Task {
            try await lane.run(account: "slow") {
                for await _ in release.stream { break }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: JSONRPC.RPCError.self) { try await lane.run(account: "slow") {} }
        release.continuation.yield()
        try await first.value
        // Eight accounts at once: never more than two run together, and every one runs.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await lane.run(account: "user-\(index)") {
                        let now = counts.running.add(1, ordering: .relaxed).newValue
                        _ = counts.most.max(now, ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(20))
                        counts.running.subtract(1, ordering: .relaxed)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.most.load(ordering: .relaxed) == 2)
    }

    final class Concurrency: Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
    }
}
