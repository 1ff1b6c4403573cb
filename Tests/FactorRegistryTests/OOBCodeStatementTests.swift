import AuthVocabulary
import Contracts
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

extension RegistryStatements {
    /// factor-registry's out-of-band codes and email-link sign-in against its own PostgreSQL, through its
    /// method table, in two scopes (the project and one of its tenants): a code is found, used and refused
    /// only in the scope that made it, it is spent once and only by a caller allowed its type, a refused
    /// use (a weak password, another address) leaves it usable, and an expired one says so.
    @Suite("Out-of-band code statements (factor-registry, in-process, PostgreSQL)")
    struct OOBCodeStatementTests {
        static let project = "demo-project"

        static func withRegistry(
            _ configuration: [String: String] = [:], _ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void
        ) async throws {
            try await TwoScopeServices.withRunning(project: project, configuration: configuration) { services, tenantId in
                try await body(services[.factorRegistry], tenantId)
            }
        }

        static func create(_ registry: ServiceUnderTest, _ params: CreateOOBCode.Params) async throws -> CreateOOBCode.Result {
            try await registry.call(CreateOOBCode.self, params)
        }

        static func inspect(_ registry: ServiceUnderTest, _ code: String, in scope: String?) async throws -> String? {
            try await registry.refusal {
                _ = try await registry.call(InspectOOBCode.self, .init(projectId: project, tenantId: scope, oobCode: code))
            }
        }

        static func apply(
            _ registry: ServiceUnderTest, _ code: String, in scope: String?, types: [OOBRequestType]? = nil, newPassword: String? = nil
        ) async throws -> String? {
            try await registry.refusal {
                _ = try await registry.call(
                    ApplyOOBCode.self,
                    .init(projectId: project, tenantId: scope, oobCode: code, requestTypes: types, newPassword: newPassword))
            }
        }

        static func signIn(_ password: String, email: String, in scope: String?) -> VerifyPassword.Params {
            VerifyPassword.Params(projectId: project, tenantId: scope, email: email, password: password)
        }

        @Test("a verification code is inspected and applied only in its scope, by a caller allowed its type, and spent once")
        func verifyEmailOnce() async throws {
            try await Self.withRegistry { registry, tenantId in
                // One address with an account in each scope: a code must reach only its own scope's.
                var owners: [String?: String] = [:]
                for scope in [nil, tenantId] {
                    owners[scope] =
                        try await registry.call(
                            CreateAccount.self,
                            .init(projectId: Self.project, tenantId: scope, email: "alice@example.com", password: "right-password")
                        ).localId
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let alice = try #require(owners[scope])
                    let made = try await Self.create(
                        registry, .init(projectId: Self.project, tenantId: scope, requestType: .verifyEmail, localId: alice))
                    #expect(made.email == "alice@example.com" && made.localId == alice && made.oobCode.utf8.count == 54)
                    #expect(try await Self.inspect(registry, made.oobCode, in: other) == "INVALID_OOB_CODE")
                    #expect(try await Self.apply(registry, made.oobCode, in: other) == "INVALID_OOB_CODE")
                    let info = try await registry.call(
                        InspectOOBCode.self, .init(projectId: Self.project, tenantId: scope, oobCode: made.oobCode))
                    #expect(info == OOBCodeInfo(requestType: .verifyEmail, email: "alice@example.com"))
                    // A caller allowed only password resets cannot spend a verification code, and leaves it as it was.
                    #expect(try await Self.apply(registry, made.oobCode, in: scope, types: [.passwordReset]) == "INVALID_OOB_CODE")
                    let applied = try await registry.call(
                        ApplyOOBCode.self, .init(projectId: Self.project, tenantId: scope, oobCode: made.oobCode))
                    #expect(applied.requestType == .verifyEmail && applied.account.localId == alice && applied.account.emailVerified)
                    #expect(try await Self.apply(registry, made.oobCode, in: scope) == "INVALID_OOB_CODE")
                    #expect(try await Self.inspect(registry, made.oobCode, in: scope) == "INVALID_OOB_CODE")
                }
                // Each scope verified its own account; nothing else was touched on the way.
                for scope in [nil, tenantId] {
                    let account = try await registry.call(
                        GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: try #require(owners[scope])))
                    #expect(account.emailVerified)
                }
                #expect(try await Self.inspect(registry, "not-a-code", in: nil) == "INVALID_OOB_CODE")
                #expect(try await Self.inspect(registry, String(repeating: "A", count: 54), in: tenantId) == "INVALID_OOB_CODE")
                let unsupported = try await registry.refusal {
                    _ = try await Self.create(
                        registry, .init(projectId: Self.project, requestType: .recoveryCodeUsed, email: "alice@example.com"))
                }
                #expect(unsupported == "INVALID_REQ_TYPE : RECOVERY_CODE_USED is not supported")
            }
        }

        @Test("a password reset refuses a weak or missing password without spending the code, then replaces the password in its scope only")
        func passwordReset() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    _ = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "bob@example.com", password: "old-password"))
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let made = try await Self.create(
                        registry, .init(projectId: Self.project, tenantId: scope, requestType: .passwordReset, email: "BOB@example.com"))
                    #expect(made.email == "bob@example.com" && made.localId != nil)
                    let reset: [OOBRequestType] = [.passwordReset]
                    #expect(
                        try await Self.apply(registry, made.oobCode, in: scope, types: reset, newPassword: "short")
                            == "WEAK_PASSWORD : Password should be at least 6 characters")
                    #expect(try await Self.apply(registry, made.oobCode, in: scope, types: reset) == "MISSING_NEW_PASSWORD")
                    let before = try await registry.call(
                        GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: try #require(made.localId)))
                    let applied = try await registry.call(
                        ApplyOOBCode.self,
                        .init(
                            projectId: Self.project, tenantId: scope, oobCode: made.oobCode, requestTypes: reset,
                            newPassword: "new-password")
                    )
                    #expect(applied.requestType == .passwordReset && applied.account.emailVerified)
                    // Every session of the old password ends.
                    #expect((applied.account.validSince ?? 0) > (before.validSince ?? 0))
                    #expect(
                        try await registry.refusal {
                            _ = try await registry.call(
                                VerifyPassword.self, Self.signIn("old-password", email: "bob@example.com", in: scope))
                        }
                            == "INVALID_PASSWORD")
                    _ = try await registry.call(VerifyPassword.self, Self.signIn("new-password", email: "bob@example.com", in: scope))
                    // The other scope's Bob keeps his own password until his own reset.
                    if other == tenantId {
                        _ = try await registry.call(VerifyPassword.self, Self.signIn("old-password", email: "bob@example.com", in: other))
                    }
                    #expect(
                        try await Self.apply(registry, made.oobCode, in: scope, types: reset, newPassword: "newer-password")
                            == "INVALID_OOB_CODE")
                }
                let nobody = try await registry.refusal {
                    _ = try await Self.create(
                        registry, .init(projectId: Self.project, requestType: .passwordReset, email: "nobody@example.com"))
                }
                #expect(nobody == "USER_NOT_FOUND")
            }
        }

        @Test("an email change code refuses an address another account of its scope holds, and changes the address once")
        func verifyAndChangeEmail() async throws {
            try await Self.withRegistry { registry, tenantId in
                // The address Carol wants is taken in the project only.
                _ = try await registry.call(CreateAccount.self, .init(projectId: Self.project, email: "taken@example.com"))
                for scope in [nil, tenantId] {
                    let carol = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "carol@example.com", password: "right-password"))
                    let change = { (target: String) in
                        try await Self.create(
                            registry,
                            .init(
                                projectId: Self.project, tenantId: scope, requestType: .verifyAndChangeEmail, localId: carol.localId,
                                newEmail: target))
                    }
                    let taken = try await registry.refusal { _ = try await change("taken@example.com") }
                    #expect(taken == (scope == nil ? "EMAIL_EXISTS" : nil))
                    let made = try await change("carol.new@example.com")
                    #expect(made.email == "carol@example.com" && made.newEmail == "carol.new@example.com")
                    // Allowed VERIFY_EMAIL only (the default), the caller cannot change an address.
                    #expect(try await Self.apply(registry, made.oobCode, in: scope) == "INVALID_OOB_CODE")
                    let applied = try await registry.call(
                        ApplyOOBCode.self,
                        .init(projectId: Self.project, tenantId: scope, oobCode: made.oobCode, requestTypes: [.verifyAndChangeEmail]))
                    #expect(applied.account.email == "carol.new@example.com" && applied.account.emailVerified)
                    #expect(applied.info?.email == "carol@example.com" && applied.info?.emailProved == false)
                    #expect(
                        try await Self.apply(registry, made.oobCode, in: scope, types: [.verifyAndChangeEmail]) == "INVALID_OOB_CODE")
                    let invalid = try await registry.refusal { _ = try await change("not an address") }
                    #expect(invalid == "INVALID_NEW_EMAIL")
                }
            }
        }

        @Test("an email link signs in once: a new account first, only for its own address, and never in the other scope")
        func emailLinkSignIn() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let link = { () async throws -> CreateOOBCode.Result in
                        try await Self.create(
                            registry, .init(projectId: Self.project, tenantId: scope, requestType: .emailSignIn, email: "dana@example.com"))
                    }
                    let first = try await link()
                    #expect(first.localId == nil)
                    let signIn = { (code: String, email: String, target: String?) in
                        try await registry.call(
                            SignInWithEmailLink.self,
                            .init(
                                projectId: Self.project, tenantId: target, oobCode: code, email: email, secondFactorKinds: [.phone, .totp]))
                    }
                    let mismatch = try await registry.refusal { _ = try await signIn(first.oobCode, "eve@example.com", scope) }
                    #expect(mismatch == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
                    let elsewhere = try await registry.refusal { _ = try await signIn(first.oobCode, "dana@example.com", other) }
                    #expect(elsewhere == "INVALID_OOB_CODE")
                    // Neither refusal spent the code. The other scope's Dana, if any, is no account of this one.
                    let created = try await signIn(first.oobCode, "Dana@Example.com", scope)
                    #expect(created.isNewUser && created.account.emailVerified && created.account.email == "dana@example.com")
                    #expect(created.lastLoginAt > 0 && created.secondFactorRequired == nil)
                    let replay = try await registry.refusal { _ = try await signIn(first.oobCode, "dana@example.com", scope) }
                    #expect(replay == "INVALID_OOB_CODE")
                    // A link used for a verb other than a sign-in is not this caller's to spend.
                    let second = try await link()
                    #expect(second.localId == created.account.localId)
                    #expect(
                        try await Self.apply(registry, second.oobCode, in: scope, types: [.emailSignIn, .verifyEmail]) == "INVALID_OOB_CODE"
                    )
                    // Once Dana has a second factor, the link proves only the first.
                    let factor = Enrollment(mfaEnrollmentId: "factor-1", kind: .totp, displayName: nil, phoneNumber: nil, enrolledAt: "")
                    _ = try await registry.call(
                        AddEnrollment.self,
                        .init(projectId: Self.project, tenantId: scope, localId: created.account.localId, enrollment: factor))
                    let again = try await signIn(second.oobCode, "dana@example.com", scope)
                    #expect(!again.isNewUser && again.account.localId == created.account.localId)
                    #expect(again.secondFactorRequired == true && again.lastLoginAt == 0)

                    // Used to link, a link gives a signed-in account its address, unless another account of the scope has it.
                    let anonymous = try await registry.call(CreateAccount.self, .init(projectId: Self.project, tenantId: scope))
                    let linkTo = { (code: String, email: String) in
                        try await registry.call(
                            SignInWithEmailLink.self,
                            .init(projectId: Self.project, tenantId: scope, oobCode: code, email: email, linkTo: anonymous.localId))
                    }
                    let danas = try await link()
                    #expect(try await registry.refusal { _ = try await linkTo(danas.oobCode, "dana@example.com") } == "EMAIL_EXISTS")
                    #expect(try await Self.inspect(registry, danas.oobCode, in: scope) == nil)
                    let fays = try await Self.create(
                        registry, .init(projectId: Self.project, tenantId: scope, requestType: .emailSignIn, email: "fay@example.com"))
                    let linked = try await linkTo(fays.oobCode, "fay@example.com")
                    #expect(!linked.isNewUser && linked.account.localId == anonymous.localId)
                    #expect(linked.account.email == "fay@example.com" && linked.account.emailVerified)
                }
                let found = try await registry.call(FindAccounts.self, .init(projectId: Self.project, emails: ["dana@example.com"]))
                let inTenant = try await registry.call(
                    FindAccounts.self, .init(projectId: Self.project, tenantId: tenantId, emails: ["dana@example.com"]))
                #expect(found.accounts.count == 1 && inTenant.accounts.count == 1)
                #expect(found.accounts.first?.localId != inTenant.accounts.first?.localId)
            }
        }

        @Test("a reverted last factor takes its recovery codes with it, so nothing a planter added is left; another factor keeps them")
        func revertTakesRecoveryCodes() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let owner = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "gil@example.com", password: "right-password"))
                    func add(_ id: String, _ kind: FactorKind) async throws {
                        _ = try await registry.call(
                            AddEnrollment.self,
                            .init(
                                projectId: Self.project, tenantId: scope, localId: owner.localId,
                                enrollment: Enrollment(mfaEnrollmentId: id, kind: kind, displayName: nil, phoneNumber: nil, enrolledAt: ""))
                        )
                    }
                    func revert(_ id: String) async throws -> OOBCodeInfo? {
                        let made = try await Self.create(
                            registry,
                            .init(
                                projectId: Self.project, tenantId: scope, requestType: .revertSecondFactorAddition, localId: owner.localId,
                                enrollmentId: id))
                        return try await registry.call(
                            ApplyOOBCode.self,
                            .init(
                                projectId: Self.project, tenantId: scope, oobCode: made.oobCode, requestTypes: [.revertSecondFactorAddition]
                            )
                        ).info
                    }
                    func factors() async throws -> [String] {
                        try await registry.call(GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: owner.localId))
                            .mfaInfo?.map(\.mfaEnrollmentId) ?? []
                    }
                    // The owner's TOTP factor and someone's with recovery codes behind them.
                    try await add("owner-totp", .totp)
                    try await add("planted-totp", .totp)
                    try await add("planted-codes", .recoveryCode)
                    // Reverting the TOTP factor leaves the owner's factor, which the codes still back up.
                    let first = try await revert("planted-totp")
                    #expect(first?.enrollment?.mfaEnrollmentId == "planted-totp" && first?.alsoRemoved == nil)
                    #expect(try await factors() == ["owner-totp", "planted-codes"])
                    // Reverting the last real factor takes the codes too, and says so for their set's deletion.
                    let last = try await revert("owner-totp")
                    #expect(last?.enrollment?.mfaEnrollmentId == "owner-totp")
                    #expect(last?.alsoRemoved?.map(\.mfaEnrollmentId) == ["planted-codes"])
                    #expect(try await factors() == [])
                }
            }
        }

        @Test("a recovery link restores the address it was mailed to, verified, and takes the password the taker could know")
        func recoverEmail() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let hal = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "hal@example.com", password: "right-password"))
                    let change = try await Self.create(
                        registry,
                        .init(
                            projectId: Self.project, tenantId: scope, requestType: .verifyAndChangeEmail, localId: hal.localId,
                            newEmail: "taker@example.com"))
                    #expect(try await Self.apply(registry, change.oobCode, in: scope, types: [.verifyAndChangeEmail]) == nil)
                    let recovery = try await Self.create(
                        registry,
                        .init(
                            projectId: Self.project, tenantId: scope, requestType: .recoverEmail, localId: hal.localId,
                            email: "hal@example.com", newEmail: "taker@example.com", emailProved: true))
                    #expect(try await Self.apply(registry, recovery.oobCode, in: scope, types: [.recoverEmail]) == nil)
                    let account = try await registry.call(
                        GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: hal.localId))
                    #expect(account.email == "hal@example.com" && account.emailVerified)
                    // The password goes, whoever set it: the owner resets it from the address they have back.
                    let signIn = try await registry.refusal {
                        _ = try await registry.call(VerifyPassword.self, Self.signIn("right-password", email: "hal@example.com", in: scope))
                    }
                    #expect(signIn != nil)
                    #expect(try await Self.apply(registry, recovery.oobCode, in: scope, types: [.recoverEmail]) == "INVALID_OOB_CODE")
                }
            }
        }

        @Test("a number's revert link removes the number the account has, and a new passkey's revert link removes that passkey")
        func revertNumberAndPasskey() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let ida = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "ida@example.com", phoneNumber: "+15555550142"))
                    // Another number than the account's is not this notice's.
                    let other = try await registry.refusal {
                        _ = try await Self.create(
                            registry,
                            .init(
                                projectId: Self.project, tenantId: scope, requestType: .revertPhoneNumberAddition, localId: ida.localId,
                                phoneNumber: "+15555550143"))
                    }
                    #expect(other == "INVALID_PHONE_NUMBER")
                    let number = try await Self.create(
                        registry,
                        .init(
                            projectId: Self.project, tenantId: scope, requestType: .revertPhoneNumberAddition, localId: ida.localId,
                            phoneNumber: "+15555550142"))
                    #expect(try await Self.apply(registry, number.oobCode, in: scope, types: [.revertPhoneNumberAddition]) == nil)
                    let get = GetAccount.Params(projectId: Self.project, tenantId: scope, localId: ida.localId)
                    #expect(try await registry.call(GetAccount.self, get).phoneNumber == nil)

                    let key = PasskeyCredential(
                        credentialId: Base64URL.encode([UInt8](repeating: 7, count: 16)), publicKey: Base64URL.encode([0xa5, 7]),
                        algorithm: -7,
                        signCount: 0, name: "Planted", backupEligible: true, backedUp: true)
                    _ = try await registry.call(
                        AddPasskey.self,
                        .init(projectId: Self.project, tenantId: scope, localId: ida.localId, credential: key, maximumPerAccount: 10))
                    let notice = { (credentialId: String) in
                        try await Self.create(
                            registry,
                            .init(
                                projectId: Self.project, tenantId: scope, requestType: .revertSecondFactorAddition, localId: ida.localId,
                                enrollmentId: PasskeyCredential.factorIdentifier(credentialId)))
                    }
                    // A passkey the account does not have gets no notice code.
                    let unknown = try await registry.refusal { _ = try await notice(Base64URL.encode([UInt8](repeating: 8, count: 16))) }
                    #expect(unknown == "MFA_ENROLLMENT_NOT_FOUND")
                    let revert = try await notice(key.credentialId)
                    #expect(try await Self.apply(registry, revert.oobCode, in: scope, types: [.revertSecondFactorAddition]) == nil)
                    let listed = try await registry.call(
                        ListPasskeys.self, .init(projectId: Self.project, tenantId: scope, localIds: [ida.localId]))
                    #expect(listed.passkeys.isEmpty)
                }
            }
        }

        @Test("an expired code is EXPIRED_OOB_CODE to inspect, apply and sign in with, in both scopes")
        func expiredCodes() async throws {
            try await Self.withRegistry(["oobCodes.passwordResetLifetimeSeconds": "1", "oobCodes.emailSignInLifetimeSeconds": "1"]) {
                registry, tenantId in
                var codes: [(String?, String, String)] = []
                for scope in [nil, tenantId] {
                    _ = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "erin@example.com", password: "right-password"))
                    let reset = try await Self.create(
                        registry, .init(projectId: Self.project, tenantId: scope, requestType: .passwordReset, email: "erin@example.com"))
                    let link = try await Self.create(
                        registry, .init(projectId: Self.project, tenantId: scope, requestType: .emailSignIn, email: "erin@example.com"))
                    codes.append((scope, reset.oobCode, link.oobCode))
                }
                try await Task.sleep(for: .milliseconds(1500))
                for (scope, reset, link) in codes {
                    #expect(try await Self.inspect(registry, reset, in: scope) == "EXPIRED_OOB_CODE")
                    #expect(
                        try await Self.apply(registry, reset, in: scope, types: [.passwordReset], newPassword: "new-password")
                            == "EXPIRED_OOB_CODE")
                    let signIn = try await registry.refusal {
                        _ = try await registry.call(
                            SignInWithEmailLink.self,
                            .init(projectId: Self.project, tenantId: scope, oobCode: link, email: "erin@example.com"))
                    }
                    #expect(signIn == "EXPIRED_OOB_CODE")
                }
                // The expired reset changed nothing.
                _ = try await registry.call(VerifyPassword.self, Self.signIn("right-password", email: "erin@example.com", in: tenantId))
            }
        }
    }

}
