import Foundation

/// The methods a service serves, each with its caller policy: built once at start-up,
/// then frozen into an ``RPCDispatcher``.
public struct RPCMethodTable: Sendable {
    struct Entry: Sendable {
        var policy: RPCCallerPolicy
        /// The param names the contract allows; `nil` until ``restrictParams(to:)`` is applied.
        var paramNames: Set<String>?
        var invoke: @Sendable (RPCParams, RPCCallContext) async throws -> any Encodable & Sendable
        /// The same handler for a caller in this process, with the params as a value (see
        /// ``RPCDispatcher/call(_:_:context:)``).
        var call: @Sendable (any Sendable, RPCCallContext) async throws -> any Sendable
    }

    private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// The names of every registered method.
    public var methodNames: Set<String> { Set(entries.keys) }

    /// Registers a handler. Registering a name twice is a programming error caught at start-up.
    public mutating func register<M: RPCMethod>(
        _ method: M.Type,
        callers: RPCCallerPolicy,
        handler: @escaping @Sendable (M.Params, RPCCallContext) async throws -> M.Result
    ) {
        precondition(entries[M.name] == nil, "method \(M.name) registered twice")
        entries[M.name] = Entry(
            policy: callers, paramNames: nil,
            invoke: { raw, context in
                let params = try raw.decode(M.Params.self)
                return try await handler(params, context)
            },
            call: { value, context in
                guard let params = value as? M.Params else { throw RPCError.invalidParams("params are not \(M.name)'s") }
                return try await handler(params, context)
            }
        )
    }

    /// Applies the contract's param names: a param the contract does not define is refused with
    /// -32602 (the documents say `additionalProperties: false`; Codable alone would ignore it).
    /// - Throws: ``RPCContractMismatch`` when a registered method is missing from the contract.
    public mutating func restrictParams(to contract: [String: Set<String>]) throws {
        let undocumented = methodNames.subtracting(contract.keys)
        guard undocumented.isEmpty else { throw RPCContractMismatch(undocumentedMethods: undocumented.sorted()) }
        for name in entries.keys {
            entries[name]?.paramNames = contract[name]
        }
    }
}

/// Raised at start-up when the service registers a method that its contract document lacks.
public struct RPCContractMismatch: Error, CustomStringConvertible {
    public var undocumentedMethods: [String]
    public var description: String {
        "methods registered but missing from the OpenRPC document: \(undocumentedMethods.joined(separator: ", "))"
    }
}

/// Field paths and kinds of decoding failures, never the offending values (they may be secrets).
enum DecodingErrorDescription {
    /// `droppingLeading` removes the first path components (the `params` member when the params
    /// were decoded from the whole request body).
    static func describe(_ error: DecodingError, droppingLeading dropped: Int = 0) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let components = context.codingPath.dropFirst(dropped).map { $0.intValue.map(String.init) ?? $0.stringValue }
            return components.isEmpty ? "params" : components.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let prefix = context.codingPath.count <= dropped ? "" : path(context) + "."
            return "missing field \(prefix)\(key.stringValue)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) must be \(kind(of: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) must be \(kind(of: type)), not null"
        case .dataCorrupted(let context):
            return "\(path(context)) is not valid"
        @unknown default:
            return "params are not valid"
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is Double.Type: "a number"
        default: "of type \(type)"
        }
    }
}
