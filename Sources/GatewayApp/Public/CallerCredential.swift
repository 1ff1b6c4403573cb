/// Who is calling the public API, as its credentials say.
enum CallerCredential: Sendable, Hashable {
    /// An API key that maps to a project: an end-user (client SDK) call.
    case apiKey(projectId: String)
    /// An admin bearer credential (Admin SDKs, operators): a privileged call.
    case admin
}
