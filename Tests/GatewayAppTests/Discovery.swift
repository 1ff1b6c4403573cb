import Foundation
import IdentityToolkit
import JSONRPC

/// The discovery document the gateway serves with (`proto-json/identitytoolkit/`: Identity
/// Toolkit's operations and this server's own), for tests that build requests as it does.
enum Discovery {
    static let schemas: DiscoverySchemas = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto-json/identitytoolkit")
        let document = try! DiscoverySchemas(contentsOf: directory.appendingPathComponent("schemas.json"))
        return document.adding(try! DiscoverySchemas(contentsOf: directory.appendingPathComponent("extensions.json")))
    }()

    static let validator = RequestValidator(schemas: schemas)

    static func operation(_ operationId: String) -> DiscoverySchemas.Operation {
        guard let found = schemas.operations.first(where: { $0.operationId == operationId }) else {
            fatalError("no operation \(operationId) in the discovery document")
        }
        return found
    }

    /// `body` as the gateway hands it to `operationId`'s handler: validated and normalised.
    static func body(_ body: JSONValue, of operationId: String) throws -> JSONValue {
        guard let schema = operation(operationId).requestSchema else { return body }
        return try validator.validate(body, schema: schema)
    }
}
