/// Failures of the tenant store. `description` stays generic: these errors may be logged or
/// forwarded, so they never carry SQL or data.
public struct TenantStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidScope
        case unknownHistory
        case duplicateMigration
    }

    private let code: Code
    /// For `unknownHistory`: the migration names the schema records that this build does not know.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// A project or tenant id that cannot name a schema.
    public static let invalidScope = TenantStoreError(.invalidScope)
    /// The same migration name appears twice in one list.
    public static let duplicateMigration = TenantStoreError(.duplicateMigration)
    /// The schema records migrations that are not a prefix of the known list: refuse to touch it.
    public static func unknownHistory(_ detail: String) -> TenantStoreError {
        TenantStoreError(.unknownHistory, detail: detail)
    }

    public static func == (lhs: TenantStoreError, rhs: TenantStoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .invalidScope: "invalid project or tenant id"
        case .unknownHistory: "schema has a migration history this build does not know: \(detail ?? "")"
        case .duplicateMigration: "duplicate migration name"
        }
    }
}
