import HTTPTypes
import IdentityToolkit
import JSONRPC
import Logging

/// One validated call of a public operation, as a handler sees it.
struct PublicRequest: Sendable {
    let operation: DiscoverySchemas.Operation
    let pathParameters: [String: String]
    /// The body, validated against the operation's schema and normalised (lowerCamelCase keys).
    let body: JSONValue
    let query: [String: String]
    let caller: CallerCredential
    /// The API key as sent (`?key=` or `x-goog-api-key`), for links that must carry it.
    let apiKey: String?
    let requestID: String
    /// The client's address as a limit key (``ClientAddress``): per-client limits count by it.
    let clientAddress: String?
    let logger: Logger
    /// The project development-mode credentials and admin calls without a project map to.
    let defaultProjectId: String
    /// The client's language (`X-Firebase-Locale`, set by the SDKs' `languageCode`), as sent: the
    /// SMS and emails of this request are written in it where there are texts for it.
    var locale: String? = nil

    static let localeHeader = HTTPField.Name("x-firebase-locale")!
}

extension PublicRequest {
    /// The project a client call runs in: the API key's, or the default one for an admin credential.
    var callerProjectId: String {
        switch caller {
        case .apiKey(let projectId): projectId
        case .admin: defaultProjectId
        }
    }
}

/// Serves one operation; throws ``IdentityToolkitError`` for answers the contract defines.
typealias PublicOperationHandler = @Sendable (PublicRequest) async throws -> JSONValue
