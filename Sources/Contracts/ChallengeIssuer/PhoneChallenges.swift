import AuthVocabulary
import JSONRPC

/// `sms.start`: a phone verification session for an enrollment or a second-factor sign-in: checks
/// the app proof (not for test numbers), the send rate limits (per number and per client address,
/// held in PostgreSQL), then stores a hashed 6-digit code and sends it (a test number's fixed code
/// is stored and nothing is sent). Errors: `MISSING_APP_CREDENTIAL`, `INVALID_APP_CREDENTIAL`,
/// `CAPTCHA_CHECK_FAILED`, `TOO_MANY_ATTEMPTS_TRY_LATER`; a sender failure is code 1110.
public enum StartPhoneVerification: RPCMethod {
    public static let name = "sms.start"
    /// Never batched: it waits on the SMS provider (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var phoneNumber: String
        public var purpose: VerificationPurpose
        /// The user the session is for: only they can finish it.
        public var localId: String
        public var clientAddress: String?
        public var proof: AppVerificationProof?
        /// The fixed code of a test phone number (no app proof, no rate limit, no SMS).
        public var testCode: String?
        /// The project's authorized domains, against which a reCAPTCHA's hostname is checked.
        public var authorizedDomains: [String]?
        /// The client's language (`X-Firebase-Locale`), as sent.
        public var locale: String?
        /// The scope's message settings: the language and text the SMS is written in.
        public var notification: NotificationConfig?
        /// The scope's limits on SMS sends (toll-fraud defence).
        public var smsDefense: SMSDefenseConfig?
        /// Everything but the sending: the message comes back sealed (`heldMessage`) for
        /// `sms.deliver`, once the scope's `beforeSendSms` function allowed it (and chose its route).
        public var holdDelivery: Bool?

        public init(
            projectId: String, tenantId: String? = nil, phoneNumber: String, purpose: VerificationPurpose, localId: String,
            clientAddress: String? = nil, proof: AppVerificationProof? = nil, testCode: String? = nil, authorizedDomains: [String]? = nil,
            locale: String? = nil, notification: NotificationConfig? = nil, smsDefense: SMSDefenseConfig? = nil,
            holdDelivery: Bool? = nil
        ) {
            self.holdDelivery = holdDelivery
            self.smsDefense = smsDefense
            self.locale = locale
            self.notification = notification
            self.authorizedDomains = authorizedDomains
            self.projectId = projectId
            self.tenantId = tenantId
            self.phoneNumber = phoneNumber
            self.purpose = purpose
            self.localId = localId
            self.clientAddress = clientAddress
            self.proof = proof
            self.testCode = testCode
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var sessionInfo: String
        /// With `holdDelivery`: the message, sealed under challenge-issuer's key (the gateway never
        /// reads the code), for `sms.deliver` within a minute. Absent for a test number.
        public var heldMessage: String?

        public init(sessionInfo: String, heldMessage: String? = nil) {
            self.sessionInfo = sessionInfo
            self.heldMessage = heldMessage
        }
    }
}

/// `sms.deliver`: sends a message `sms.start` held, by the named route (challenge-issuer's
/// `sms.routeNames`; `nil`: the default sender). Errors: `INVALID_ARGUMENT` (a route this
/// deployment does not have, a held message that does not open, is another scope's or older than
/// a minute); a sender failure is code 1110.
public enum DeliverPhoneVerification: RPCMethod {
    public static let name = "sms.deliver"
    /// Never batched: it waits on the SMS provider (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var heldMessage: String
        public var route: String?

        public init(projectId: String, tenantId: String? = nil, heldMessage: String, route: String? = nil) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.heldMessage = heldMessage
            self.route = route
        }
    }

    public typealias Result = RPCEmpty
}

/// `sms.verify`: checks a code; success uses the session up and returns its number. Errors:
/// `INVALID_SESSION_INFO` (unknown, used, another user's or another purpose's), `SESSION_EXPIRED`,
/// `INVALID_CODE` (the session stays, up to 5 wrong codes), `TOO_MANY_ATTEMPTS_TRY_LATER`.
public enum VerifyPhoneCode: RPCMethod {
    public static let name = "sms.verify"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var sessionInfo: String
        public var code: String
        public var purpose: VerificationPurpose
        public var localId: String
        /// Names the flow this check finishes (the enrollment id, a digest of the pending
        /// credential). The session is then kept, used, until it expires, and the same attempt
        /// with the right code is answered again: a finalize whose answer was lost can be retried.
        /// Without it the session is deleted when used.
        public var attempt: String?

        public init(
            projectId: String, tenantId: String? = nil, sessionInfo: String, code: String, purpose: VerificationPurpose, localId: String,
            attempt: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.sessionInfo = sessionInfo
            self.code = code
            self.purpose = purpose
            self.localId = localId
            self.attempt = attempt
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var phoneNumber: String
        public init(phoneNumber: String) { self.phoneNumber = phoneNumber }
    }
}

/// `devOutbox.verificationCodes`: the SMS codes the development sink received and that are still
/// pending, in the emulator's shape. Development mode only.
public enum ListOutboxVerificationCodes: RPCMethod {
    public static let name = "devOutbox.verificationCodes"
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        public var verificationCodes: [OutboxVerificationCode]
        public init(verificationCodes: [OutboxVerificationCode]) { self.verificationCodes = verificationCodes }
    }
}

public struct OutboxVerificationCode: Codable, Sendable, Hashable {
    public var code: String
    public var phoneNumber: String
    public var sessionInfo: String
    /// The message as it was sent, and the language it is in (not in the emulator's shape).
    public var text: String?
    public var locale: String?

    public init(code: String, phoneNumber: String, sessionInfo: String, text: String? = nil, locale: String? = nil) {
        self.text = text
        self.locale = locale
        self.code = code
        self.phoneNumber = phoneNumber
        self.sessionInfo = sessionInfo
    }
}
