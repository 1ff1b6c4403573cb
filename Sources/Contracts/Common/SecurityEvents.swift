import JSONRPC

/// One entry of a scope's audit trail: something that happened to an account or to the scope's
/// settings, written by the service that made it happen in the same transaction as the change.
/// Never a secret, a code, a password or a whole phone number.
public struct SecurityEvent: Codable, Sendable, Hashable {
    /// The service that wrote it, and its id there: together they name the event.
    public var source: String
    public var id: Int64
    /// Microseconds since 1970, UTC; and the same as RFC 3339.
    public var atMicros: Int64
    public var time: String
    /// ``SecurityEventType``'s raw value (`factor.enrolled`, …).
    public var type: String
    public var localId: String?
    /// `user`, `admin:<credential id>` or `system`.
    public var actor: String
    public var clientAddress: String?
    public var userAgent: String?
    public var details: [String: String]

    public init(
        source: String, id: Int64, atMicros: Int64, time: String, type: String, localId: String?, actor: String, clientAddress: String?,
        userAgent: String?, details: [String: String]
    ) {
        self.source = source
        self.id = id
        self.atMicros = atMicros
        self.time = time
        self.type = type
        self.localId = localId
        self.actor = actor
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.details = details
    }
}

/// What the audit trail records (docs/architecture.md, "Audit trail").
public enum SecurityEventType: String, Sendable, CaseIterable, Codable {
    /// A first factor passed (`details.factor`: password), or failed (`details.reason`).
    case signInSucceeded = "signIn.succeeded"
    case signInFailed = "signIn.failed"
    /// A second factor passed (`details.kind`: phone, totp) and the sign-in was recorded, or its code failed.
    case secondFactorSucceeded = "secondFactor.succeeded"
    case secondFactorFailed = "secondFactor.failed"
    /// A factor was added or removed, by its owner or an admin (`actor`).
    case factorEnrolled = "factor.enrolled"
    case factorWithdrawn = "factor.withdrawn"
    /// A new set of recovery codes replaced the old one (`details.replaced`), or was the first.
    case recoveryCodesGenerated = "recoveryCodes.generated"
    case passwordChanged = "password.changed"
    case emailChanged = "email.changed"
    /// The account's phone number (a first factor) was set, replaced or removed.
    case phoneNumberChanged = "phoneNumber.changed"
    /// An identity provider's user was linked to the account (`details.provider`; `details.replaced`:
    /// the unverified credentials an IdP-verified email took the account from), or unlinked.
    case providerLinked = "provider.linked"
    case providerUnlinked = "provider.unlinked"
    /// The first proof of an unproven address (`details.via`: emailLink, passwordReset, verifyEmail,
    /// trustedProvider) removed what an earlier, unproven holder could have planted: `details.providers`,
    /// `details.phoneNumber`, `details.password`, `details.oobCodes`, `details.sessions` (issue 56).
    case accountClaimed = "account.claimed"
    /// A refresh token was used twice: its whole family was revoked.
    case tokenFamilyRevoked = "tokenFamily.revoked"
    /// A send the SMS pumping defence refused (`details.reason`, `details.region`).
    case smsRefused = "sms.refused"
    /// A limit on guessing or on cost refused a request (`details.limit`: which one).
    case rateLimitTripped = "rateLimit.tripped"
    /// An admin changed the scope's settings (`details.before`, `details.after`: JSON).
    case configChanged = "config.changed"
    /// A blocking function was called (`details.event`, `details.function`: its URL without query,
    /// `details.outcome`: allowed, blocked, failed; `details.durationMs`).
    case blockingFunctionCalled = "blockingFunction.called"
}

/// `audit.list`: a scope's events written by this service, newest first, filtered, up to `limit`,
/// strictly before the cursor (`beforeMicros`, then `beforeSource` and `beforeId` among events of
/// the same microsecond), so the gateway can merge the three services' trails into pages.
public enum ListSecurityEvents: RPCMethod {
    public static let name = "audit.list"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String?
        public var types: [String]?
        public var sinceMicros: Int64?
        public var beforeMicros: Int64?
        public var beforeSource: String?
        public var beforeId: Int64?
        public var limit: Int

        public init(
            projectId: String, tenantId: String? = nil, localId: String? = nil, types: [String]? = nil, sinceMicros: Int64? = nil,
            beforeMicros: Int64? = nil, beforeSource: String? = nil, beforeId: Int64? = nil, limit: Int
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.types = types
            self.sinceMicros = sinceMicros
            self.beforeMicros = beforeMicros
            self.beforeSource = beforeSource
            self.beforeId = beforeId
            self.limit = limit
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var events: [SecurityEvent]
        public init(events: [SecurityEvent]) { self.events = events }
    }
}
