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
    /// The peer's IP address (SMS send limits count per client).
    let clientAddress: String?
    let logger: Logger
    /// The project development-mode credentials and admin calls without a project map to.
    let defaultProjectId: String
}

/// Serves one operation; throws ``IdentityToolkitError`` for answers the contract defines.
typealias PublicOperationHandler = @Sendable (PublicRequest) async throws -> JSONValue
