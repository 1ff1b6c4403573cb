import AuthVocabulary
import JSONRPC

/// `message.sendEmail`: renders and sends an out-of-band email (any `oobCode.create` type) through the
/// configured sender: the development sink (which records it for
/// `GET /emulator/v1/projects/{p}/oobCodes`) or SMTP. Failure: `EMAIL_DELIVERY_FAILED` (HTTP 503
/// at the gateway: the request was fine, the mail server was not).
public enum SendEmail: RPCMethod {
    public static let name = "message.sendEmail"
    /// Never batched: it waits on the mail server (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var requestType: OOBRequestType
        public var email: String
        public var oobCode: String
        public var oobLink: String
        /// `VERIFY_AND_CHANGE_EMAIL`, `RECOVER_EMAIL`: the address the account changes (or changed) to.
        public var newEmail: String?
        /// `REVERT_SECOND_FACTOR_ADDITION`: the new factor, as the notice names it.
        public var secondFactor: NewSecondFactor?
        /// `REVERT_PHONE_NUMBER_ADDITION`: the last four digits of the number linked (never the whole number).
        public var linkedPhoneEnding: String?
        /// The client's language (`X-Firebase-Locale`), as sent.
        public var locale: String?
        /// The scope's message settings: the language and text the email is written in.
        public var notification: NotificationConfig?

        public init(
            projectId: String, tenantId: String? = nil, requestType: OOBRequestType, email: String, oobCode: String, oobLink: String,
            newEmail: String? = nil, secondFactor: NewSecondFactor? = nil, linkedPhoneEnding: String? = nil, locale: String? = nil,
            notification: NotificationConfig? = nil
        ) {
            self.linkedPhoneEnding = linkedPhoneEnding
            self.locale = locale
            self.notification = notification
            self.newEmail = newEmail
            self.secondFactor = secondFactor
            self.projectId = projectId
            self.tenantId = tenantId
            self.requestType = requestType
            self.email = email
            self.oobCode = oobCode
            self.oobLink = oobLink
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The sender that took the message (`sink`, `smtp`).
        public var sender: String

        public init(sender: String) { self.sender = sender }
    }
}

/// A new second factor as a notice names it: a phone by its number's last four digits (never
/// the whole number), an authenticator app by its kind.
public struct NewSecondFactor: Codable, Sendable, Hashable {
    /// A second factor's kind (FactorKind's spelling), or a passkey: a way in that also satisfies
    /// MFA (decision 24), whose notice and revert link are a new factor's.
    public enum Kind: String, Codable, Sendable, Hashable {
        case phone, totp, passkey
        case recoveryCode = "recovery_code"

        public init(_ factor: FactorKind) {
            self =
                switch factor {
                case .phone: .phone
                case .totp: .totp
                case .recoveryCode: .recoveryCode
                }
        }
    }

    public var kind: Kind
    public var phoneEnding: String?

    public init(kind: Kind, phoneEnding: String? = nil) {
        self.kind = kind
        self.phoneEnding = phoneEnding
    }

    public static let authenticator = NewSecondFactor(kind: .totp)
    public static let passkey = NewSecondFactor(kind: .passkey)
    public static func phone(ending: String) -> NewSecondFactor { NewSecondFactor(kind: .phone, phoneEnding: ending) }
}

/// `devOutbox.oobCodes`: what the development sink received for a project or tenant, oldest first,
/// in the emulator's `oobCodes` shape. Served only in development mode (elsewhere: method not found).
public enum ListOutboxOOBCodes: RPCMethod {
    public static let name = "devOutbox.oobCodes"
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        public var oobCodes: [OutboxOOBCode]

        public init(oobCodes: [OutboxOOBCode]) { self.oobCodes = oobCodes }
    }
}

public struct OutboxOOBCode: Codable, Sendable, Hashable {
    public var email: String
    public var oobCode: String
    public var oobLink: String
    public var requestType: OOBRequestType
    public var newEmail: String?
    /// The message as it was sent, and the language it is in (not in the emulator's shape).
    public var subject: String?
    public var text: String?
    public var html: String?
    public var locale: String?

    public init(
        email: String, oobCode: String, oobLink: String, requestType: OOBRequestType, newEmail: String? = nil, subject: String? = nil,
        text: String? = nil, html: String? = nil, locale: String? = nil
    ) {
        self.subject = subject
        self.text = text
        self.html = html
        self.locale = locale
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
        self.requestType = requestType
        self.newEmail = newEmail
    }
}

/// `devOutbox.forgetOobCode`: a code that was used leaves the development list, as in the emulator.
/// Development mode only (elsewhere: method not found).
public enum ForgetOutboxOOBCode: RPCMethod {
    public static let name = "devOutbox.forgetOobCode"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var oobCode: String

        public init(projectId: String, tenantId: String? = nil, oobCode: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.oobCode = oobCode
        }
    }

    public typealias Result = RPCEmpty
}

/// challenge-issuer's application error codes (range 1100-1199, `proto-json/errors.json`).
extension RPCErrorCode {
    /// The configured sender could not deliver a message.
    public static let deliveryFailed = RPCErrorCode(1110)
}
