import JSONRPC

/// A project's settings with the version that guards their updates.
public struct ProjectConfig: Codable, Sendable, Hashable {
    public var projectId: String
    public var settings: AuthSettings
    /// Bumped by every update; an update names the version it read (compare-and-set).
    public var version: Int64
    /// The project's API key (`client.apiKey`).
    public var apiKey: String?

    public init(projectId: String, settings: AuthSettings, version: Int64, apiKey: String? = nil) {
        self.apiKey = apiKey
        self.projectId = projectId
        self.settings = settings
        self.version = version
    }
}

/// `project.getConfig`: a project's settings (`CONFIGURATION_NOT_FOUND` for an unknown project).
public enum GetProjectConfig: RPCMethod {
    public static let name = "project.getConfig"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public init(projectId: String) { self.projectId = projectId }
    }

    public typealias Result = ProjectConfig
}

/// `project.updateConfig`: replaces a project's settings, if they are still at `expectedVersion`
/// (else error 1004, and the caller reads again and retries). Invalid settings are refused with
/// their Identity Toolkit error (`INVALID_CONFIG : …`, `INVALID_TESTING_PHONE_NUMBER : …`, …) and
/// nothing changes.
public enum UpdateProjectConfig: RPCMethod {
    public static let name = "project.updateConfig"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var settings: AuthSettings
        public var expectedVersion: Int64

        public init(projectId: String, settings: AuthSettings, expectedVersion: Int64) {
            self.projectId = projectId
            self.settings = settings
            self.expectedVersion = expectedVersion
        }
    }

    public typealias Result = ProjectConfig
}

/// `tenant.update`: replaces a tenant's display name and settings, if still at `expectedVersion`.
public enum UpdateTenant: RPCMethod {
    public static let name = "tenant.update"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String
        public var displayName: String?
        public var settings: AuthSettings
        public var expectedVersion: Int64

        public init(projectId: String, tenantId: String, displayName: String?, settings: AuthSettings, expectedVersion: Int64) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.displayName = displayName
            self.settings = settings
            self.expectedVersion = expectedVersion
        }
    }

    public typealias Result = Tenant
}

/// `settings.resolve`: the settings a request in this project or tenant runs under, read on every
/// request so a change applies to the next one everywhere. Unknown tenant: `TENANT_NOT_FOUND`.
public enum ResolveSettings: RPCMethod {
    public static let name = "settings.resolve"
    public typealias Params = TenantScope

    public struct Result: Codable, Sendable, Hashable {
        public var settings: AuthSettings

        public init(settings: AuthSettings) { self.settings = settings }
    }
}

/// `settings.watch`: a long poll the gateway keeps open to follow changes of any project's or
/// tenant's settings, so it may cache what `settings.resolve` answered. Returns as soon as the
/// answering instance's settings generation differs from `generation` (a change since the caller
/// last asked; `nil` asks for the current one at once), else after `waitMilliseconds`. `listening`
/// false: this instance does not hear changes right now, and nothing it answers may be cached.
public enum WatchSettings: RPCMethod {
    public static let name = "settings.watch"
    /// Never batched: it waits for news (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var generation: UInt64?
        public var waitMilliseconds: Int

        public init(generation: UInt64?, waitMilliseconds: Int) {
            self.generation = generation
            self.waitMilliseconds = waitMilliseconds
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var generation: UInt64
        public var listening: Bool

        public init(generation: UInt64, listening: Bool) {
            self.generation = generation
            self.listening = listening
        }
    }
}

extension RPCErrorCode {
    /// The settings changed since the caller read them; read again and retry.
    public static let settingsConflict = RPCErrorCode(1004)
    /// Settings the contract refuses (the Identity Toolkit string says which).
    public static let invalidSettings = RPCErrorCode(1005)
}
