import AuthVocabulary
import Contracts
import Crypto
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Linked provider identities (`federated_identities`, in each tenant's schema) and the nonces of
/// ID tokens already used (`control.idp_used_nonces`, one store for the deployment).
struct FederatedIdentityRepository: Sendable {
    static let table: SQLText = "federated_identities"
    static let usedNonces: SQLText = "idp_used_nonces"
    let client: Database
    let logger: Logger

    /// The provider user is linked to another account already (or, linking, to this one).
    struct AlreadyLinked: Error {}
    /// The account has another user of the same provider.
    struct ProviderTaken: Error {}

    /// The account a provider user is linked to.
    func owner(in schema: TenantSchema, providerId: String, rawId: String) async throws -> String? {
        try await client.first(ReadOwner(providerId: providerId, rawId: rawId), in: schema, logger: logger)?.value
    }

    /// Links a provider user to an account; the unique keys make two racing links one winner.
    func link(_ profile: ProviderProfile, to localId: String, in schema: TenantSchema, on connection: PostgresConnection? = nil)
        async throws
    {
        let insert = InsertLink(profile: profile, localId: localId)
        do {
            if let connection {
                try await connection.run(insert, in: schema, logger: logger)
            } else {
                try await client.run(insert, in: schema, logger: logger)
            }
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "federated_identities_pkey" {
            throw AlreadyLinked()
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "federated_identities_local_id_provider_id_key" {
            throw ProviderTaken()
        }
    }

    /// How a link changes the account besides adding the identity.
    enum Adoption {
        case none
        /// The account has no email: it takes the provider's (and whether the provider verified it).
        case email
        /// The provider verified the account's own address.
        case verifiedEmail
        /// Identity Platform's rule for a trusted provider's verified email on an account whose
        /// address nobody verified: whoever signed up with it is not known to own it, so the
        /// provider's proof of the address claims the account (`AddressProof`: the other ways in,
        /// the outstanding codes and the sessions go) and its profile replaces the unproven one.
        case takeOver(AddressProof)
    }

    /// Links a provider user to an account, with the adoption, in one transaction with its audit record.
    func link(
        _ profile: ProviderProfile, to localId: String, adopting adoption: Adoption, in schema: TenantSchema, events: SecurityEventLog
    ) async throws {
        let normalized = profile.email.map(EmailAddress.normalized)
        do {
            try await client.withTransaction(logger: logger) { connection in
                switch adoption {
                case .none:
                    break
                case .email:
                    try await AccountRepository.adoptEmail(
                        of: localId, email: profile.email, verified: profile.emailVerified, in: schema, on: connection, logger: logger)
                case .verifiedEmail:
                    _ = try await AccountRepository.verifyEmail(
                        of: localId, normalized: normalized, in: schema, on: connection, logger: logger)
                case .takeOver(let proof):
                    // Proved meanwhile by someone else's proof (a race): then it is an ordinary link.
                    if let email = profile.email,
                        try await proof.claim(localId: localId, email: email, by: .trustedProvider, in: schema, on: connection)
                    {
                        try await proof.accounts.adoptProfile(
                            in: schema, localId: localId, displayName: profile.displayName, photoUrl: profile.photoUrl, on: connection)
                    }
                }
                try await link(profile, to: localId, in: schema, on: connection)
                var details = ["provider": profile.providerId]
                if case .takeOver = adoption { details["replaced"] = "unverified credentials" }
                try await events.record(.providerLinked, localId: localId, details: details, in: schema, on: connection)
            }
        } catch let error as TransactionError {
            guard let refusal = error.closureError, error.rollbackError == nil else { throw error }
            if let failure = refusal as? PSQLError, failure.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
                throw AccountRepository.EmailTaken()
            }
            throw refusal
        }
    }

    /// An imported account's links, replacing any it had (an overwrite), in one transaction.
    /// (On `connection`: a transaction of the caller's that also writes the account.)
    func replace(in schema: TenantSchema, localId: String, _ links: [FederatedIdentity], on connection: PostgresConnection)
        async throws
    {
        try await connection.run(DeleteLinksOf(localId: localId), in: schema, logger: logger)
        for link in links {
            try await self.link(
                ProviderProfile(
                    providerId: link.providerId, rawId: link.rawId, email: link.email, displayName: link.displayName,
                    photoUrl: link.photoUrl
                ),
                to: localId, in: schema, on: connection
            )
        }
    }

    /// Removes the account's provider links, all of them or those made at or after `since`, in the
    /// transaction that proves or recovers its address (issue 56); returns their provider ids.
    func unlinkAll(of localId: String, since: Date? = nil, in schema: TenantSchema, on connection: PostgresConnection) async throws
        -> [String]
    {
        try await connection.run(UnlinkSince(localId: localId, since: since), in: schema, logger: logger).map(\.value).sorted()
    }

    /// The profile the provider reports now, kept with the link (`providerUserInfo`).
    func refresh(_ profile: ProviderProfile, in schema: TenantSchema) async throws {
        try await client.run(RefreshProfile(profile: profile), in: schema, logger: logger)
    }

    /// Records an ID token's nonce as used until `expiresAt`; `false` when it was used already. One
    /// store for the deployment (`control`), keyed by issuer and nonce: a token is used once in all
    /// projects and tenants together, whichever of them share the provider's client id (issue 56, F-10).
    func use(nonce: String, issuer: String, expiresAt: EpochSeconds) async throws -> Bool {
        let hash = ByteBuffer(bytes: SHA256.hash(data: Data("\(issuer)\n\(nonce)".utf8)))
        return try await client.first(UseNonce(hash: hash, expiresAt: expiresAt.rawValue), in: .control, logger: logger) != nil
    }

    /// The sweep of nonces whose tokens have expired.
    static let expiredNonces = RetentionRule(
        "used identity-provider nonces", scope: .control, table: Self.usedNonces, key: "nonce_hash", column: "expires_at",
        retention: .zero,
        indexed: true
    )
}
