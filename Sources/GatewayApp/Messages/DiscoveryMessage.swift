import IdentityToolkit
import JSONRPC

/// A message of the discovery document (`proto-json/identitytoolkit/schemas.json`) as the gateway
/// reads or writes it: a public request's body or answer, or a message inside one.
///
/// Members carry the schema's names and types, and only the members this server acts on are
/// listed (the validator has already refused any the schema lacks). Every member of a request is
/// optional, so a handler refuses a missing one where the contract's check order says, not at
/// decoding; an answer leaves out the members it has no value for.
/// `DiscoveryMessageTests` holds each type to its schema.
protocol DiscoveryMessage: Codable, Sendable {
    /// The message's name in the discovery document.
    static var schema: String { get }
}

extension PublicRequest {
    /// The body, decoded once as its operation's request message.
    ///
    /// The body has passed that schema (``RequestValidator``), so decoding fails only if `Body`
    /// disagrees with it; that is still a client's 400, never a 500.
    func decode<Body: DiscoveryMessage>(_: Body.Type) throws -> Body {
        guard Body.schema == operation.requestSchema else {
            throw BodyTypeMismatch(operation: operation.operationId, schema: Body.schema)
        }
        do {
            return try JSONCoding.decode(Body.self, from: body)
        } catch {
            throw IdentityToolkitError.invalidPayload("The request does not match \(Body.schema).")
        }
    }
}

extension PublicRequest {
    /// `response` as the answer's JSON; it must be the operation's response message.
    func answer<Response: DiscoveryMessage>(_ response: Response) throws -> JSONValue {
        guard Response.schema == operation.responseSchema else {
            throw BodyTypeMismatch(operation: operation.operationId, schema: Response.schema)
        }
        return try JSONCoding.value(of: response)
    }
}

/// A handler decoded its body, or wrote its answer, as another operation's message: a mistake in this server, found by
/// the first call of the operation in any test.
struct BodyTypeMismatch: Error, CustomStringConvertible {
    let operation: String
    let schema: String
    var description: String { "\(operation) read or wrote \(schema), which is not its message" }
}
