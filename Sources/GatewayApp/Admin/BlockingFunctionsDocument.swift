import Contracts
import Foundation
import IdentityToolkit
import JSONRPC

/// `blockingFunctions` of a project's config (Identity Platform's `BlockingFunctionsConfig`) and
/// of a tenant (this server's addition): read strictly, written back as stored with each trigger's
/// `updateTime` (output only, moved when its `functionUri` changes). `{}` removes them all.
enum BlockingFunctionsDocument {
    static func document(_ config: BlockingFunctionsConfig?) -> JSONValue {
        guard let config else { return [:] }
        var members: [String: JSONValue] = [:]
        if !config.triggers.isEmpty {
            members["triggers"] = .object(
                config.triggers.mapValues { trigger in
                    var entry: [String: JSONValue] = ["functionUri": .string(trigger.functionUri)]
                    if let time = trigger.updateTime { entry["updateTime"] = .string(time) }
                    return .object(entry)
                }
            )
        }
        if let forward = config.forwardInboundCredentials {
            var entry: [String: JSONValue] = [:]
            if let value = forward.idToken { entry["idToken"] = .bool(value) }
            if let value = forward.accessToken { entry["accessToken"] = .bool(value) }
            if let value = forward.refreshToken { entry["refreshToken"] = .bool(value) }
            members["forwardInboundCredentials"] = .object(entry)
        }
        return .object(members)
    }

    /// `requireHTTPS`: production, where a function is called over TLS only (its certificate
    /// checked against the public CAs and `blockingFunctions.trustRoots`).
    static func config(
        _ value: JSONValue?, previous: BlockingFunctionsConfig?, requireHTTPS: Bool, now: Date = Date()
    ) throws -> BlockingFunctionsConfig? {
        guard let value, value != .null else { return nil }
        guard case .object(let given) = value else { throw invalid("blockingFunctions must be an object") }
        for name in given.keys where name != "triggers" && name != "forwardInboundCredentials" {
            throw invalid("blockingFunctions has no member \(name) (forwardInboundCredentials, triggers)")
        }
        var config = BlockingFunctionsConfig()
        if let triggers = given["triggers"], triggers != .null {
            guard case .object(let entries) = triggers else { throw invalid("blockingFunctions.triggers must be an object") }
            let stamp = ISO8601DateFormatter().string(from: now)
            for (event, entry) in entries {
                guard BlockingFunctionsConfig.Event(rawValue: event) != nil else {
                    let events = BlockingFunctionsConfig.Event.allCases.map(\.rawValue).joined(separator: ", ")
                    throw invalid("blockingFunctions.triggers has no event \(event) (\(events))")
                }
                guard let uri = entry["functionUri"]?.stringValue, !uri.isEmpty else {
                    throw invalid("blockingFunctions.triggers.\(event).functionUri is required")
                }
                if requireHTTPS, !uri.lowercased().hasPrefix("https://") {
                    throw invalid("blockingFunctions.triggers.\(event).functionUri must be an https URL in production")
                }
                let before = previous?.triggers[event]
                config.triggers[event] = .init(
                    functionUri: uri, updateTime: before?.functionUri == uri ? before?.updateTime ?? stamp : stamp
                )
            }
        }
        if let forward = given["forwardInboundCredentials"], forward != .null {
            guard case .object(let flags) = forward,
                flags.allSatisfy({ ["idToken", "accessToken", "refreshToken"].contains($0.key) && $0.value.boolValue != nil })
            else {
                throw invalid("blockingFunctions.forwardInboundCredentials takes the booleans idToken, accessToken, refreshToken")
            }
            config.forwardInboundCredentials = .init(
                idToken: flags["idToken"]?.boolValue, accessToken: flags["accessToken"]?.boolValue,
                refreshToken: flags["refreshToken"]?.boolValue
            )
        }
        return config.triggers.isEmpty && config.forwardInboundCredentials == nil ? nil : config
    }

    static func invalid(_ detail: String) -> IdentityToolkitError {
        IdentityToolkitError(.invalidConfig, detail: detail)
    }
}
