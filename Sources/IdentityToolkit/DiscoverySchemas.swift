import Foundation
import JSONRPC

/// Google's discovery schemas for every operation the gateway serves
/// (`proto-json/identitytoolkit/schemas.json`, taken from the Firebase Auth Emulator's embedded spec):
/// the source of the gateway's strict request validation (contract decision 15).
public struct DiscoverySchemas: Sendable {
    public struct Operation: Sendable, Hashable {
        public let method: String
        /// Path segments after the host prefix, e.g. `["v1", "projects", "{targetProjectId}", "accounts:lookup"]`.
        public let segments: [String]
        /// `identitytoolkit.googleapis.com` or `securetoken.googleapis.com`.
        public let host: String
        public let operationId: String
        public let requestSchema: String?
        public let responseSchema: String?
        public let queryParameters: Set<String>
    }

    public let operations: [Operation]
    let schemas: [String: JSONValue]

    public init(document: JSONValue) throws {
        guard case .object(let operations)? = document["operations"], case .object(let schemas)? = document["schemas"] else {
            throw MalformedSchemas()
        }
        self.schemas = schemas
        var parsed: [Operation] = []
        for (key, value) in operations.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let operationId = value["operationId"]?.stringValue else { throw MalformedSchemas() }
            var segments = parts[1].split(separator: "/").map(String.init)
            guard !segments.isEmpty else { throw MalformedSchemas() }
            let host = segments.removeFirst()
            var query: Set<String> = []
            if case .array(let names)? = value["queryParameters"] {
                for name in names { if let text = name.stringValue { query.insert(text) } }
            }
            parsed.append(
                Operation(
                    method: String(parts[0]), segments: segments, host: host, operationId: operationId,
                    requestSchema: value["requestSchema"]?.stringValue, responseSchema: value["responseSchema"]?.stringValue,
                    queryParameters: query
                )
            )
        }
        self.operations = parsed
    }

    private init(operations: [Operation], schemas: [String: JSONValue]) {
        self.operations = operations
        self.schemas = schemas
    }

    /// These operations and schemas with `other`'s added (this server's own admin operations,
    /// `identitytoolkit/extensions.json`); on a schema both define, `other`'s wins: it is how this
    /// server adds members to one of Identity Toolkit's messages (the MFA policy's, docs/mfa-policy.md).
    public func adding(_ other: DiscoverySchemas) -> DiscoverySchemas {
        let known = Set(operations.map(\.operationId))
        return DiscoverySchemas(
            operations: operations + other.operations.filter { !known.contains($0.operationId) },
            schemas: schemas.merging(other.schemas) { _, theirs in theirs }
        )
    }

    /// Loads the document from a file.
    public init(contentsOf url: URL) throws {
        try self.init(document: JSONCoding.parse(Data(contentsOf: url)))
    }

    public func schema(named name: String) -> JSONValue? { schemas[name] }

    public struct MalformedSchemas: Error, CustomStringConvertible {
        public var description: String { "identitytoolkit schemas document is malformed" }
    }
}
