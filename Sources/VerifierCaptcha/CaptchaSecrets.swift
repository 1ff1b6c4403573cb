import PluginKit

/// A captcha service's secrets by scope: `projectId/tenantId`, then `projectId`, then the default.
/// How specific the match is picks the service when several are configured (``CaptchaVerifier``):
/// a tenant's own service wins over its project's, which wins over a deployment-wide default.
public struct CaptchaSecrets: Sendable {
    public enum Match: Int, Comparable, Sendable {
        case deployment, project, tenant
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// Keyed by `projectId` or `projectId/tenantId`.
    public var scoped: [String: String]
    public var defaultSecret: String?

    public init(scoped: [String: String], defaultSecret: String?) {
        self.scoped = scoped
        self.defaultSecret = defaultSecret
    }

    public var isEmpty: Bool { scoped.isEmpty && defaultSecret == nil }

    public func secret(for context: AppVerificationContext) -> (secret: String, match: Match)? {
        if let tenantId = context.tenantId, let secret = scoped["\(context.projectId)/\(tenantId)"] { return (secret, .tenant) }
        if let secret = scoped[context.projectId] { return (secret, .project) }
        return defaultSecret.map { ($0, .deployment) }
    }
}
