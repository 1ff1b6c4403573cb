/// `blockingFunctions` of a project's config (Identity Platform's) or of a tenant (this server's
/// addition; a tenant without its own uses its project's, as Identity Platform's project-wide
/// functions apply to every tenant): the functions an event calls before it completes
/// (docs/blocking-functions.md).
public struct BlockingFunctionsConfig: Codable, Sendable, Hashable {
    /// Event name (``Event``'s raw value) → the function it calls.
    public var triggers: [String: Trigger]
    /// Which of an identity provider's credentials the sign-in events carry.
    public var forwardInboundCredentials: ForwardInboundCredentials?

    public init(triggers: [String: Trigger] = [:], forwardInboundCredentials: ForwardInboundCredentials? = nil) {
        self.triggers = triggers
        self.forwardInboundCredentials = forwardInboundCredentials
    }

    /// The events a function can be registered for: Identity Platform's two, and the two send
    /// events the Firebase Functions SDKs define.
    public enum Event: String, Sendable, CaseIterable, Codable {
        case beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms
    }

    public struct Trigger: Codable, Sendable, Hashable {
        /// The function's URL: HTTPS (plain HTTP only in development).
        public var functionUri: String
        /// When the trigger last changed (RFC 3339), set when it is stored; output only.
        public var updateTime: String?

        public init(functionUri: String, updateTime: String? = nil) {
            self.functionUri = functionUri
            self.updateTime = updateTime
        }
    }

    public struct ForwardInboundCredentials: Codable, Sendable, Hashable {
        public var idToken: Bool?
        public var accessToken: Bool?
        public var refreshToken: Bool?

        public init(idToken: Bool? = nil, accessToken: Bool? = nil, refreshToken: Bool? = nil) {
            self.idToken = idToken
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }
    }

    /// The function `event` calls, if one is registered.
    public func trigger(_ event: Event) -> Trigger? { triggers[event.rawValue] }
}
