import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension RegistryStatements {
    /// factor-registry's statements over many accounts against its own PostgreSQL, through its method
    /// table, in two scopes (the project and one of its tenants) that hold the same ids, emails and
    /// numbers: listing, querying and finding read one scope, batch and whole-scope deletion remove only
    /// there (and take what hangs off an account), an import reports bad accounts by index and keeps the
    /// rest, and exported password hashes import into the other scope and sign in there.
    @Suite("Account bulk statements (factor-registry, in-process, PostgreSQL)")
    struct AccountBulkStatementTests {
        static let project = "demo-project"

        static func withRegistry(_ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void) async throws {
            try await TwoScopeServices.withRunning(project: project) { services, tenantId in
                try await body(services[.factorRegistry], tenantId)
            }
        }

        static func label(_ scope: String?) -> String { scope == nil ? "Project" : "Tenant" }

        /// user-1 … user-3 in `scope`, named after it, with the same emails and numbers in every scope.
        static func threeAccounts(_ registry: ServiceUnderTest, in scope: String?, disabled: Set<Int> = []) async throws {
            for (index, name) in [(1, "Ann"), (2, "Bea"), (3, "Cy")] {
                _ = try await registry.call(
                    CreateAccount.self,
                    .init(
                        projectId: project, tenantId: scope, localId: "user-\(index)", email: "\(name.lowercased())@example.com",
                        displayName: "\(label(scope)) \(name)", disabled: disabled.contains(index), phoneNumber: "+1555000\(index)"
                    )
                )
            }
        }

        static func count(_ registry: ServiceUnderTest, in scope: String?) async throws -> Int {
            try await registry.call(QueryAccounts.self, .init(projectId: project, tenantId: scope, returnUserInfo: false)).recordsCount
        }

        static func exists(_ registry: ServiceUnderTest, _ localId: String, in scope: String?) async throws -> Bool {
            try await registry.refusal {
                _ = try await registry.call(GetAccount.self, .init(projectId: project, tenantId: scope, localId: localId))
            } == nil
        }

        @Test("listing, querying and finding read their own scope only, sorted and windowed")
        func reads() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] { try await Self.threeAccounts(registry, in: scope) }
                for scope in [nil, tenantId] {
                    let name = Self.label(scope)
                    let list = { (token: String?) in
                        try await registry.call(
                            ListAccounts.self, .init(projectId: Self.project, tenantId: scope, maxResults: 2, pageToken: token))
                    }
                    let first = try await list(nil)
                    #expect(first.accounts.map(\.localId) == ["user-1", "user-2"] && first.nextPageToken == "user-2")
                    #expect(first.accounts.allSatisfy { $0.displayName?.hasPrefix(name) == true })
                    let second = try await list(first.nextPageToken)
                    #expect(second.accounts.map(\.displayName) == ["\(name) Cy"] && second.nextPageToken == nil)
                    let tooMany = try await registry.refusal {
                        _ = try await registry.call(ListAccounts.self, .init(projectId: Self.project, tenantId: scope, maxResults: 1001))
                    }
                    #expect(tooMany == "INVALID_ARGUMENT : maxResults must be 1 to 1000")

                    #expect(try await Self.count(registry, in: scope) == 3)
                    let query = { (params: QueryAccounts.Params) in try await registry.call(QueryAccounts.self, params) }
                    let matched = try await query(
                        .init(
                            projectId: Self.project, tenantId: scope,
                            expression: [.init(email: "BEA@Example.com"), .init(phoneNumber: "+15550003"), .init(userId: "nobody")],
                            descending: true))
                    #expect(matched.recordsCount == 2 && matched.accounts?.map(\.localId) == ["user-3", "user-2"])
                    #expect(matched.accounts?.allSatisfy { $0.displayName?.hasPrefix(name) == true } == true)
                    let window = try await query(
                        .init(projectId: Self.project, tenantId: scope, sortBy: .name, descending: true, limit: 2, offset: 1))
                    #expect(window.accounts?.map(\.displayName) == ["\(name) Bea", "\(name) Ann"])
                    let counted = try await query(
                        .init(projectId: Self.project, tenantId: scope, expression: [.init(userId: "user-1")], returnUserInfo: false))
                    #expect(counted.recordsCount == 1 && counted.accounts == nil)
                    let badLimit = try await registry.refusal {
                        _ = try await query(.init(projectId: Self.project, tenantId: scope, limit: 501))
                    }
                    #expect(badLimit == "INVALID_ARGUMENT : limit must be 1 to 500, offset 0 to 1000000")

                    let found = try await registry.call(
                        FindAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: scope, localIds: ["user-1", "nobody"], emails: ["CY@EXAMPLE.COM"],
                            phoneNumbers: ["+15550002", "+15550001"]))
                    #expect(found.accounts.map(\.localId) == ["user-1", "user-2", "user-3"])
                    #expect(found.accounts.map(\.displayName) == ["\(name) Ann", "\(name) Bea", "\(name) Cy"])
                    let none = try await registry.call(
                        FindAccounts.self, .init(projectId: Self.project, tenantId: scope, localIds: ["nobody"], emails: ["x@example.com"]))
                    #expect(none.accounts.isEmpty)
                }
            }
        }

        @Test("a batch deletion keeps enabled accounts unless forced, reports them by index, and deletes in its own scope only")
        func batchDeletion() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] { try await Self.threeAccounts(registry, in: scope, disabled: [1]) }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let otherCount = try await Self.count(registry, in: other)
                    let delete = { (ids: [String], force: Bool) in
                        try await registry.call(
                            DeleteAccounts.self, .init(projectId: Self.project, tenantId: scope, localIds: ids, force: force))
                    }
                    let kept = try await delete(["user-2", "user-1", "nobody"], false)
                    #expect(
                        kept.errors == [
                            .init(index: 0, localId: "user-2", message: "NOT_DISABLED : Disable the account before batch deletion.")
                        ])
                    #expect(try await !Self.exists(registry, "user-1", in: scope))
                    #expect(try await Self.exists(registry, "user-2", in: scope))
                    #expect(try await delete(["user-2"], true).errors.isEmpty)
                    #expect(try await !Self.exists(registry, "user-2", in: scope))
                    #expect(try await Self.count(registry, in: scope) == 1)
                    #expect(try await Self.count(registry, in: other) == otherCount)
                    let empty = try await registry.refusal { _ = try await delete([], true) }
                    #expect(empty == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
                    let overLimit = try await registry.refusal { _ = try await delete((0...1000).map { "id-\($0)" }, true) }
                    #expect(overLimit == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
                }
                // The freed email and number can be someone's again.
                _ = try await registry.call(
                    CreateAccount.self, .init(projectId: Self.project, email: "ann@example.com", phoneNumber: "+15550001"))
            }
        }

        @Test("wiping a scope's accounts takes their factors, links and codes with them, and leaves the other scope whole")
        func deleteAll() async throws {
            try await Self.withRegistry { registry, tenantId in
                var codes: [String?: String] = [:]
                let link = { (localId: String, scope: String?) in
                    try await registry.call(
                        ImportAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: scope,
                            users: [
                                ImportedAccount(
                                    localId: localId, providerUserInfo: [FederatedIdentity(providerId: "oidc.corp", rawId: "u1")])
                            ]
                        )
                    ).errors
                }
                for scope in [nil, tenantId] {
                    try await Self.threeAccounts(registry, in: scope)
                    let factor = Enrollment(mfaEnrollmentId: "factor-1", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")
                    _ = try await registry.call(
                        AddEnrollment.self, .init(projectId: Self.project, tenantId: scope, localId: "user-1", enrollment: factor))
                    #expect(try await link("linked-1", scope).isEmpty)
                    codes[scope] =
                        try await registry.call(
                            CreateOOBCode.self,
                            .init(projectId: Self.project, tenantId: scope, requestType: .verifyEmail, localId: "user-1")
                        ).oobCode
                }
                let inspect = { (scope: String?) in
                    try await registry.refusal {
                        _ = try await registry.call(
                            InspectOOBCode.self, .init(projectId: Self.project, tenantId: scope, oobCode: try #require(codes[scope])))
                    }
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let otherCount = try await Self.count(registry, in: other)
                    _ = try await registry.call(DeleteAllAccounts.self, .init(projectId: Self.project, tenantId: scope))
                    #expect(try await Self.count(registry, in: scope) == 0)
                    #expect(try await Self.count(registry, in: other) == otherCount)
                    #expect(try await inspect(scope) == "INVALID_OOB_CODE")
                    if other == tenantId { #expect(try await inspect(other) == nil) }
                    // The provider user is free to link again: its old link went with its account.
                    #expect(try await link("linked-2", scope).isEmpty)
                    // The same id and address start over with nothing of the old account.
                    _ = try await registry.call(
                        CreateAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "user-1", email: "ann@example.com"))
                    let again = try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "user-1"))
                    #expect(again.mfaInfo == nil && again.emailVerified == false)
                }
            }
        }

        @Test(
            "an import reports bad accounts by index and keeps the rest with their factors, links and times; whole-request errors import nothing"
        )
        func importAccounts() async throws {
            try await Self.withRegistry { registry, tenantId in
                let phone = Enrollment(mfaEnrollmentId: "", kind: .phone, displayName: "Work", phoneNumber: "+15550009", enrolledAt: "")
                let users = [
                    ImportedAccount(
                        localId: "imp-1", email: "ivy@example.com", emailVerified: true, displayName: "Ivy", rawPassword: "ivy-password",
                        mfaInfo: [phone], providerUserInfo: [FederatedIdentity(providerId: "oidc.corp", rawId: "ivy")]),
                    ImportedAccount(localId: "imp-2", email: "not an email"),
                    ImportedAccount(localId: "imp-3", tenantId: "someone-else"),
                    ImportedAccount(localId: "imp-4", email: "jo@example.com", mfaInfo: [phone]),
                    ImportedAccount(localId: "imp-5", phoneNumber: "+15550010", createdAt: "1700000000000", lastLoginAt: "1700000100000"),
                ]
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let run = { (params: ImportAccounts.Params) in try await registry.call(ImportAccounts.self, params) }
                    let imported = try await run(.init(projectId: Self.project, tenantId: scope, users: users))
                    #expect(
                        imported.errors == [
                            .init(index: 1, message: "email is invalid"),
                            .init(index: 2, message: "Tenant id in userInfo does not match the tenant id in request."),
                            .init(index: 3, message: "Second factor account requires email to be verified."),
                        ])
                    let ivy = try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "imp-1"))
                    #expect(ivy.emailVerified && ivy.displayName == "Ivy" && ivy.passwordSet == true)
                    #expect(ivy.mfaInfo?.map(\.phoneNumber) == ["+15550009"] && ivy.mfaInfo?.first?.mfaEnrollmentId.isEmpty == false)
                    #expect(ivy.federatedIdentities?.map(\.rawId) == ["ivy"])
                    _ = try await registry.call(
                        VerifyPassword.self,
                        .init(projectId: Self.project, tenantId: scope, email: "ivy@example.com", password: "ivy-password")
                    )
                    let timed = try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "imp-5"))
                    #expect(timed.createdAt == "1700000000000" && timed.lastLoginAt == "1700000100000" && timed.phoneNumber == "+15550010")
                    for refused in ["imp-2", "imp-3", "imp-4"] { #expect(try await !Self.exists(registry, refused, in: scope)) }
                    if other == tenantId { #expect(try await !Self.exists(registry, "imp-1", in: other)) }

                    let replacement = ImportedAccount(localId: "imp-1", email: "ivy@example.com", displayName: "Ivy B")
                    let kept = try await run(.init(projectId: Self.project, tenantId: scope, users: [replacement]))
                    #expect(kept.errors == [.init(index: 0, message: "localId belongs to an existing account - can not overwrite.")])
                    let overwritten = try await run(
                        .init(projectId: Self.project, tenantId: scope, users: [replacement], allowOverwrite: true))
                    #expect(overwritten.errors.isEmpty)
                    let replaced = try await registry.call(
                        GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "imp-1"))
                    #expect(replaced.displayName == "Ivy B" && replaced.mfaInfo == nil && replaced.federatedIdentities == nil)
                    #expect(replaced.passwordSet == false && !replaced.emailVerified)

                    let refusal = { (params: ImportAccounts.Params) in try await registry.refusal { _ = try await run(params) } }
                    #expect(try await refusal(.init(projectId: Self.project, tenantId: scope, users: [])) == "MISSING_USER_ACCOUNT")
                    let twice = [ImportedAccount(localId: "imp-9"), ImportedAccount(localId: "imp-9")]
                    #expect(
                        try await refusal(.init(projectId: Self.project, tenantId: scope, users: twice)) == "DUPLICATE_LOCAL_ID : imp-9")
                    let sameEmail = [
                        ImportedAccount(localId: "imp-10", email: "X@example.com"),
                        ImportedAccount(localId: "imp-11", email: "x@example.com"),
                    ]
                    #expect(
                        try await refusal(.init(projectId: Self.project, tenantId: scope, users: sameEmail, sanityCheck: true))
                            == "DUPLICATE_EMAIL : x@example.com")
                    let unhashed = [ImportedAccount(localId: "imp-12", passwordHash: "aGFzaA==")]
                    #expect(
                        try await refusal(.init(projectId: Self.project, tenantId: scope, users: unhashed))
                            == "INVALID_HASH_ALGORITHM : hashAlgorithm is required with passwordHash")
                    for refused in ["imp-9", "imp-10", "imp-11", "imp-12"] { #expect(try await !Self.exists(registry, refused, in: scope)) }
                }
            }
        }

        @Test("a user the import refuses is left out whole; a number repeated in one user's factors is one factor")
        func importRefusalsAreWhole() async throws {
            try await Self.withRegistry { registry, tenantId in
                let link = [FederatedIdentity(providerId: "oidc.corp", rawId: "shared")]
                let phone = { (id: String) in
                    Enrollment(mfaEnrollmentId: id, kind: .phone, displayName: nil, phoneNumber: "+15550030", enrolledAt: "")
                }
                for scope in [nil, tenantId] {
                    let run = { (users: [ImportedAccount]) in
                        try await registry.call(ImportAccounts.self, .init(projectId: Self.project, tenantId: scope, users: users))
                    }
                    #expect(try await run([ImportedAccount(localId: "holder", providerUserInfo: link)]).errors.isEmpty)
                    // The link is refused after the account's row is written: the row goes back with it.
                    let taken = try await run([
                        ImportedAccount(localId: "late", email: "late@example.com", providerUserInfo: link),
                        ImportedAccount(localId: "next", email: "next@example.com"),
                    ])
                    #expect(taken.errors == [.init(index: 0, message: "a providerUserInfo entry is already linked to another account.")])
                    #expect(try await !Self.exists(registry, "late", in: scope))
                    #expect(try await Self.exists(registry, "next", in: scope))
                    // So the address is still free, and the same user imports once its link is its own.
                    let again = try await run([
                        ImportedAccount(
                            localId: "late", email: "late@example.com",
                            providerUserInfo: [FederatedIdentity(providerId: "oidc.corp", rawId: "late")])
                    ])
                    #expect(again.errors.isEmpty)
                    // One number twice in a user's factors is one factor (contract §3.1), never a failed request.
                    let repeated = try await run([
                        ImportedAccount(localId: "before", email: "before@example.com"),
                        ImportedAccount(
                            localId: "twice", email: "twice@example.com", emailVerified: true, mfaInfo: [phone("m1"), phone("m2")]),
                        ImportedAccount(localId: "after", email: "after@example.com"),
                    ])
                    #expect(repeated.errors.isEmpty)
                    let twice = try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "twice"))
                    #expect(twice.mfaInfo?.map(\.mfaEnrollmentId) == ["m1"])
                    #expect(try await Self.exists(registry, "before", in: scope))
                    #expect(try await Self.exists(registry, "after", in: scope))
                }
            }
        }

        @Test(
            "an exported password imports into the other scope and signs in there; a foreign hash is exported only once a sign-in replaced it"
        )
        func exportPasswordHashes() async throws {
            try await Self.withRegistry { registry, tenantId in
                // Identity Platform's STANDARD_SCRYPT vector (password123), as ImportedPasswordHashTests has it.
                let foreign = PasswordHashParameters(
                    algorithm: "STANDARD_SCRYPT", cpuMemCost: 1024, blockSize: 8, parallelization: 1, dkLen: 64)
                let foreignHash = "EQFJM7AIB7I23wfy+f49HdwfnK7bk71NUdDqZKXxlGWQ2PLdf3W8qjoMipB3uyPGw9fA4/V82/RpSesOoVkU7A=="
                var configs: [PasswordHashConfig] = []
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let name = Self.label(scope).lowercased()
                    _ = try await registry.call(
                        CreateAccount.self,
                        .init(
                            projectId: Self.project, tenantId: scope, localId: "exp-1", email: "kim@example.com", password: "kim-password"))
                    _ = try await registry.call(
                        CreateAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "exp-2", phoneNumber: "+15550020"))
                    let imported = try await registry.call(
                        ImportAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: scope,
                            users: [
                                ImportedAccount(
                                    localId: "exp-3", email: "lee@example.com", passwordHash: foreignHash, salt: "c2FsdC12YWx1ZS0wMQ==")
                            ],
                            hash: foreign))
                    #expect(imported.errors.isEmpty)
                    let export = { (ids: [String], target: String?) in
                        try await registry.call(ExportPasswordHashes.self, .init(projectId: Self.project, tenantId: target, localIds: ids))
                    }
                    let exported = try await export(["exp-1", "exp-2", "exp-3", "nobody"], scope)
                    let config = try #require(exported.hashConfig)
                    #expect(config.algorithm == "SCRYPT" && config.saltSeparator == "Bw==" && config.rounds == 8 && config.memoryCost == 14)
                    configs.append(config)
                    #expect(exported.hashes.map(\.localId) == ["exp-1"])
                    let kim = try #require(exported.hashes.first)
                    // The other scope's exp-1, when there is one, is another account with its own salt.
                    #expect(try await export(["exp-1"], other).hashes.first?.salt != kim.salt)

                    let moved = "moved-from-\(name)"
                    let landed = try await registry.call(
                        ImportAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: other,
                            users: [
                                ImportedAccount(
                                    localId: moved, email: "\(moved)@example.com", passwordHash: kim.passwordHash, salt: kim.salt)
                            ],
                            hash: PasswordHashParameters(
                                algorithm: config.algorithm, signerKey: config.signerKey, saltSeparator: config.saltSeparator,
                                rounds: config.rounds, memoryCost: config.memoryCost)))
                    #expect(landed.errors.isEmpty)
                    let signIn = { (email: String, password: String, target: String?) in
                        try await registry.refusal {
                            _ = try await registry.call(
                                VerifyPassword.self, .init(projectId: Self.project, tenantId: target, email: email, password: password))
                        }
                    }
                    #expect(try await signIn("\(moved)@example.com", "kim-password", other) == nil)
                    #expect(try await signIn("\(moved)@example.com", "kim-passwort", other) == "INVALID_PASSWORD")
                    // Taken as it was: the other scope hands the same hash and salt back out.
                    #expect(
                        try await export([moved], other).hashes == [
                            ExportedPasswordHash(localId: moved, passwordHash: kim.passwordHash, salt: kim.salt)
                        ])

                    #expect(try await signIn("lee@example.com", "password123", scope) == nil)
                    #expect(try await export(["exp-3"], scope).hashes.map(\.localId) == ["exp-3"])
                }
                // One signer key for the project and its tenants.
                #expect(configs.count == 2 && configs[0] == configs[1])
                let refused = try await registry.refusal {
                    _ = try await registry.call(
                        ExportPasswordHashes.self, .init(projectId: Self.project, localIds: ["exp-1"]), as: .challengeIssuer)
                }
                #expect(refused == "Caller not allowed")
            }
        }

        @Test("a provider unlinked goes from its scope only; the user's own unlink of the last way in is refused, an admin's is not")
        func unlinkKeepsAWayIn() async throws {
            try await Self.withRegistry { registry, tenantId in
                let links = [
                    FederatedIdentity(providerId: "oidc.corp", rawId: "k1"), FederatedIdentity(providerId: "oidc.other", rawId: "k2"),
                ]
                for scope in [nil, tenantId] {
                    _ = try await registry.call(
                        ImportAccounts.self,
                        .init(projectId: Self.project, tenantId: scope, users: [ImportedAccount(localId: "kim", providerUserInfo: links)]))
                }
                for scope in [nil, tenantId] {
                    let unlink = { (providers: [String], keepWayIn: Bool?) in
                        try await registry.refusal {
                            _ = try await registry.call(
                                UpdateAccount.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, localId: "kim", unlinkProviders: providers,
                                    keepWayIn: keepWayIn))
                        }
                    }
                    let linked = { (scope: String?) in
                        try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: "kim"))
                            .federatedIdentities?.map(\.providerId).sorted() ?? []
                    }
                    #expect(try await unlink(["oidc.corp"], true) == nil)
                    #expect(try await linked(scope) == ["oidc.other"])
                    // The last one was the account's only way in: the user may not, and it stays.
                    #expect(try await unlink(["oidc.other"], true)?.hasPrefix("OPERATION_NOT_ALLOWED") == true)
                    #expect(try await linked(scope) == ["oidc.other"])
                    #expect(try await unlink(["oidc.other"], nil) == nil)
                    #expect(try await linked(scope) == [])
                    // The project's unlinks left the tenant's account of the same id as it was.
                    if scope == nil { #expect(try await linked(tenantId) == ["oidc.corp", "oidc.other"]) }
                }
            }
        }
    }

}
