import AuthVocabulary
import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// What the Admin SDKs call on `/v1/projects/{p}[/tenants/{t}]/accounts…` (contract §1.7):
/// `createUser`, `getUser(s)` by id or email, `deleteUser`.
struct AdminAccountOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// What other services hold for a deleted account goes with it.
    let erasure: AccountErasure
    /// challenge-issuer, which keeps imported TOTP factors' secrets.
    var challenges: PeerClient<ChallengeIssuerAPI> { erasure.challenges }

    /// `POST …/accounts` (createUser): no tokens in the answer.
    func create(_ request: PublicRequest) async throws -> JSONValue {
        try await create(request.decode(SignUpRequest.self), request)
    }

    func create(_ body: SignUpRequest, _ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request, targetProjectId: body.targetProjectId, tenantId: body.tenantId)
        if body.idToken != nil, body.localId != nil {
            throw IdentityToolkitError.unexpectedUserID
        }
        let account = try await PeerCall.call(
            registry, CreateAccount.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, localId: body.localId, email: body.email,
                password: body.password, displayName: body.displayName, emailVerified: body.emailVerified,
                disabled: body.disabled, phoneNumber: body.phoneNumber, photoUrl: body.photoUrl
            ),
            requestID: request.requestID
        )
        if let items = body.mfaInfo, !items.isEmpty {
            // §2.1: supplied ids are ignored and fresh ones generated; repeated numbers dropped.
            let factors = items.map { item in
                Enrollment(
                    mfaEnrollmentId: RandomIdentifier.make(), kind: .phone, displayName: item.displayName,
                    phoneNumber: item.phoneInfo, enrolledAt: ""
                )
            }
            _ = try await PeerCall.call(
                registry, ReplaceEnrollments.self,
                .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: account.localId, enrollments: factors),
                requestID: request.requestID
            )
        }
        return try request.answer(SignUpResponse(account))
    }

    /// `POST …/accounts:lookup`: `users` is omitted when nothing matched (the SDKs rely on it).
    func lookup(_ request: PublicRequest) async throws -> JSONValue {
        try await lookup(request.decode(GetAccountInfoRequest.self), request)
    }

    func lookup(_ body: GetAccountInfoRequest, _ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request, targetProjectId: body.targetProjectId, tenantId: body.tenantId)
        let found = try await PeerCall.call(
            registry, FindAccounts.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, localIds: body.localId ?? [], emails: body.email ?? [],
                phoneNumbers: body.phoneNumber ?? []
            ),
            requestID: request.requestID
        )
        let users = try await withPasskeys(found.accounts.map { UserInfo($0, tenantId: scope.tenantId) }, scope, request)
        return try request.answer(GetAccountInfoResponse(users: users.isEmpty ? nil : users))
    }

    /// The users' passkeys (`passkeyInfo`, and their `passkey` provider entry), in one call for them all.
    func withPasskeys(_ users: [UserInfo], _ scope: AdminScope, _ request: PublicRequest) async throws -> [UserInfo] {
        let ids = users.compactMap(\.localId)
        guard !ids.isEmpty else { return users }
        let listed = try await PeerCall.call(
            registry, ListPasskeys.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, localIds: ids),
            requestID: request.requestID
        )
        let byAccount = Dictionary(grouping: listed.passkeys, by: \.localId)
        return users.map { user in
            var user = user
            user.adding(passkeys: user.localId.flatMap { byAccount[$0] } ?? [])
            return user
        }
    }

    /// `POST …/accounts:delete` (deleteUser).
    func delete(_ request: PublicRequest) async throws -> JSONValue {
        try await delete(request.decode(DeleteAccountRequest.self), request)
    }

    func delete(_ body: DeleteAccountRequest, _ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request, targetProjectId: body.targetProjectId, tenantId: body.tenantId)
        guard let localId = body.localId.nonEmpty else {
            throw IdentityToolkitError(.missingLocalID)
        }
        let account = AccountsToForget(projectId: scope.projectId, tenantId: scope.tenantId, localIds: [localId])
        try await erasure.deleting(account, requestID: request.requestID) {
            _ = try await PeerCall.call(
                registry, DeleteAccount.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId),
                requestID: request.requestID
            )
        }
        return try request.answer(DeleteAccountResponse())
    }

    /// `POST …/accounts:update` (updateUser, revokeRefreshTokens): `MISSING_LOCAL_ID`, then the
    /// account's own checks.
    func update(_ request: PublicRequest) async throws -> JSONValue {
        try await update(request.decode(SetAccountInfoRequest.self), request)
    }

    func update(_ body: SetAccountInfoRequest, _ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request, targetProjectId: body.targetProjectId, tenantId: body.tenantId)
        guard let localId = body.localId.nonEmpty else {
            throw IdentityToolkitError(.missingLocalID)
        }
        let deleted = body.deleteAttribute ?? []
        var validSince: EpochSeconds?
        if let text = body.validSince {
            guard let seconds = Int64(text), seconds >= 0 else {
                throw IdentityToolkitError.invalidPayload("/validSince must be int64")
            }
            validSince = EpochSeconds(seconds)
        }
        // `mfa` present replaces the factors (none, or `{}`, removes them all); absent leaves them.
        let factors = body.mfa.map { Self.enrollments($0.enrollments ?? [], importsTOTP: false) }
        var account = try await PeerCall.call(
            registry, UpdateAccount.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, localId: localId, email: body.email, password: body.password,
                displayName: body.displayName, deleteDisplayName: deleted.contains("DISPLAY_NAME"), emailVerified: body.emailVerified,
                disabled: body.disableUser, validSince: validSince, customAttributes: body.customAttributes,
                phoneNumber: body.phoneNumber, deletePhoneNumber: body.deleteProvider?.contains("phone") ?? false,
                photoUrl: body.photoUrl, deletePhotoUrl: deleted.contains("PHOTO_URL"),
                unlinkProviders: AccountOperations.federated(body.deleteProvider ?? [])
            ),
            requestID: request.requestID
        )
        if let passkeys = body.deletePasskey, !passkeys.isEmpty {
            _ = try await PasskeyOperations.remove(
                passkeys, of: localId, projectId: scope.projectId, tenantId: scope.tenantId, registry: registry,
                sessions: erasure.sessions, requestID: request.requestID
            )
        }
        if let factors {
            let previous = account.mfaInfo ?? []
            account = try await PeerCall.call(
                registry, ReplaceEnrollments.self,
                .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: localId, enrollments: factors),
                requestID: request.requestID
            )
            // A factor kept under its id but given another kind is a replaced factor: its sessions
            // end and a TOTP secret behind the id is deleted now, not by the orphan sweep.
            let kept = Set((account.mfaInfo ?? []).map { [$0.mfaEnrollmentId, $0.kind.rawValue] })
            try await erasure.forgetFactors(
                previous.filter { !kept.contains([$0.mfaEnrollmentId, $0.kind.rawValue]) }, projectId: scope.projectId,
                tenantId: scope.tenantId,
                localId: localId, requestID: request.requestID
            )
        }
        return try request.answer(SetAccountInfoResponse(account))
    }

    /// `GET …/accounts:batchGet?maxResults=&nextPageToken=` (listUsers): ordered by `localId`.
    func batchGet(_ request: PublicRequest) async throws -> JSONValue {
        let scope = try AdminScope(request)
        var maxResults: Int?
        if let text = request.query["maxResults"] {
            guard let number = Int(text) else { throw IdentityToolkitError.invalidPayload("/maxResults must be integer") }
            maxResults = number
        }
        let token = request.query["nextPageToken"].flatMap { $0.isEmpty ? nil : $0 }
        let page = try await PeerCall.call(
            registry, ListAccounts.self,
            .init(projectId: scope.projectId, tenantId: scope.tenantId, maxResults: maxResults, pageToken: token),
            requestID: request.requestID
        )
        // Each password in the form the project's `signIn.hashConfig` imports (where it has one
        // already: an imported hash not yet replaced by a sign-in stays redacted).
        let export = try await PeerCall.call(
            registry, ExportPasswordHashes.self,
            .init(projectId: scope.projectId, tenantId: scope.tenantId, localIds: page.accounts.map(\.localId)),
            requestID: request.requestID
        )
        let hashes = Dictionary(export.hashes.map { ($0.localId, $0) }, uniquingKeysWith: { first, _ in first })
        let users = page.accounts.map { account in
            var user = UserInfo(account, tenantId: scope.tenantId)
            if let exported = hashes[account.localId] {
                user.passwordHash = exported.passwordHash
                user.salt = exported.salt
            }
            return user
        }
        return try request.answer(
            DownloadAccountResponse(users: try await withPasskeys(users, scope, request), nextPageToken: page.nextPageToken)
        )
    }

    /// `POST …/accounts:batchDelete` (deleteUsers): `{}` when all went, else `errors` per kept id.
    func batchDelete(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(BatchDeleteAccountsRequest.self)
        let scope = try AdminScope(request, tenantId: body.tenantId)
        let ids = body.localIds ?? []
        guard !ids.isEmpty else { throw IdentityToolkitError(.missingLocalID) }
        // factor-registry's limit, checked before anything is forgotten.
        guard ids.count <= 1000 else { throw IdentityToolkitError(.localIDListExceedsLimit) }
        let force = body.force ?? false
        let delete = {
            try await PeerCall.call(
                registry, DeleteAccounts.self,
                .init(projectId: scope.projectId, tenantId: scope.tenantId, localIds: ids, force: force),
                requestID: request.requestID
            )
        }
        let outcome: DeleteAccounts.Result
        if force {
            // Every id goes: forgotten before and after, like a single deletion.
            let accounts = AccountsToForget(projectId: scope.projectId, tenantId: scope.tenantId, localIds: ids)
            outcome = try await erasure.deleting(accounts, requestID: request.requestID, delete)
        } else {
            // Only disabled accounts go, which only the deletion tells; their sessions were already
            // refused (`USER_DISABLED`). Forgotten after: a failure there fails the request, and a
            // retry (a gone id counts as deleted) forgets them again.
            outcome = try await delete()
            let kept = Set(outcome.errors.map(\.localId))
            let deleted = ids.filter { !kept.contains($0) }
            if !deleted.isEmpty {
                try await erasure.forget(
                    AccountsToForget(projectId: scope.projectId, tenantId: scope.tenantId, localIds: deleted),
                    requestID: request.requestID
                )
            }
        }
        let kept = outcome.errors.map { BatchDeleteErrorInfo(index: $0.index, localId: $0.localId, message: $0.message) }
        return try request.answer(BatchDeleteAccountsResponse(errors: kept.isEmpty ? nil : kept))
    }

    static let importDeadline: Duration = .seconds(300)

    /// `POST …/accounts:batchCreate` (importUsers): `error` lists the accounts not imported.
    /// An import's provider users: the federated ones (the `password` and `phone` entries describe
    /// the account's own email and number); the subject is `rawId`, or the end of Google's `federatedId` URL.
    static func identities(_ entries: [ProviderUserInfo]?) -> [FederatedIdentity]? {
        let identities = (entries ?? []).compactMap { entry -> FederatedIdentity? in
            guard let provider = entry.providerId, ![SignInProvider.password, .phone].contains(SignInProvider(rawValue: provider)) else {
                return nil
            }
            let subject = entry.rawId ?? entry.federatedId.map { String($0.split(separator: "/").last ?? Substring($0)) }
            return FederatedIdentity(
                providerId: provider, rawId: subject ?? "", email: entry.email, displayName: entry.displayName, photoUrl: entry.photoUrl
            )
        }
        return identities.isEmpty ? nil : identities
    }

    func batchCreate(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(UploadAccountRequest.self)
        let scope = try AdminScope(request, tenantId: body.tenantId)
        guard let items = body.users, !items.isEmpty else {
            throw IdentityToolkitError(.missingUserAccount)
        }
        var users = items.map { item in
            ImportedAccount(
                localId: item.localId, email: item.email, emailVerified: item.emailVerified, displayName: item.displayName,
                disabled: item.disabled, phoneNumber: item.phoneNumber, customAttributes: item.customAttributes,
                passwordHash: item.passwordHash, salt: item.salt, rawPassword: item.rawPassword, createdAt: item.createdAt,
                lastLoginAt: item.lastLoginAt, tenantId: item.tenantId,
                mfaInfo: item.mfaInfo.map { Self.enrollments($0, importsTOTP: true) }, photoUrl: item.photoUrl,
                providerUserInfo: Self.identities(item.providerUserInfo)
            )
        }
        let hash = body.hashAlgorithm.map { algorithm in
            PasswordHashParameters(
                algorithm: algorithm, cpuMemCost: body.cpuMemCost, blockSize: body.blockSize,
                parallelization: body.parallelization, dkLen: body.dkLen, signerKey: body.signerKey.nonEmpty,
                saltSeparator: body.saltSeparator.nonEmpty, rounds: body.rounds, memoryCost: body.memoryCost,
                passwordHashOrder: body.passwordHashOrder
            )
        }
        var refused = try await importTOTPSecrets(items, into: &users, scope: scope, request: request)
        // An import may hash a thousand passwords (a raw password, a fast digest kept under scrypt):
        // tens of seconds at production parameters, more than an ordinary call's deadline.
        let kept = users.indices.filter { refused[$0] == nil }
        if !kept.isEmpty {
            let outcome = try await PeerCall.call(
                registry.allowing(Self.importDeadline), ImportAccounts.self,
                .init(
                    projectId: scope.projectId, tenantId: scope.tenantId, users: kept.map { users[$0] },
                    allowOverwrite: body.allowOverwrite ?? false, sanityCheck: body.sanityCheck ?? false,
                    hash: hash
                ),
                requestID: request.requestID
            )
            for failure in outcome.errors where failure.index < kept.count { refused[kept[failure.index]] = failure.message }
        }
        return try request.answer(
            UploadAccountResponse(error: refused.sorted { $0.key < $1.key }.map { ErrorInfo(index: $0.key, message: $0.value) })
        )
    }

    /// Imported TOTP factors (`mfaInfo[].totpInfo.sharedSecretKey`, this server's extension): each
    /// given an id when it has none, its secret stored by challenge-issuer before factor-registry
    /// stores the enrollment (a failure in between leaves a secret the orphan sweep deletes). A TOTP
    /// factor without its secret cannot work: that user is refused, as is one whose secret is.
    /// Returns the refused users by index.
    private func importTOTPSecrets(
        _ items: [UserInfo], into users: inout [ImportedAccount], scope: AdminScope, request: PublicRequest
    ) async throws -> [Int: String] {
        var refused: [Int: String] = [:]
        var secrets: [ImportTOTPSecrets.Secret] = []
        var owners: [Int] = []
        for (index, item) in items.enumerated() {
            for (position, factor) in (item.mfaInfo ?? []).enumerated() where factor.totpInfo != nil {
                guard let key = factor.totpInfo?.sharedSecretKey.nonEmpty, let localId = item.localId.nonEmpty else {
                    refused[index] = "Second factor not supported."
                    continue
                }
                let id = factor.mfaEnrollmentId.nonEmpty ?? RandomIdentifier.make()
                users[index].mfaInfo?[position].mfaEnrollmentId = id
                secrets.append(.init(localId: localId, mfaEnrollmentId: id, sharedSecretKey: key))
                owners.append(index)
            }
        }
        guard !secrets.isEmpty else { return refused }
        let stored = try await PeerCall.call(
            challenges, ImportTOTPSecrets.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, secrets: secrets),
            requestID: request.requestID
        )
        for refusal in stored.refused where refusal.index < owners.count { refused[owners[refusal.index]] = refusal.message }
        return refused
    }

    /// Factors as an admin gives them: the phone factors of an update's `mfa.enrollments` (§2.4),
    /// or an imported user's `mfaInfo`, where `totpInfo` names a TOTP factor (`importsTOTP`).
    static func enrollments(_ items: [MFAEnrollment], importsTOTP: Bool) -> [Enrollment] {
        items.map { item in
            Enrollment(
                mfaEnrollmentId: item.mfaEnrollmentId ?? "", kind: importsTOTP && item.totpInfo != nil ? .totp : .phone,
                displayName: item.displayName, phoneNumber: item.phoneInfo, enrolledAt: item.enrolledAt ?? ""
            )
        }
    }
}
