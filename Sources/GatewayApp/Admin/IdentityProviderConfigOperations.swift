import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `/v2/projects/{p}[/tenants/{t}]/oauthIdpConfigs[/{id}]` and `…/defaultSupportedIdpConfigs[/{id}]`
/// (Identity Platform's admin REST API, what the Admin SDKs' provider-config calls use), and
/// `GET /v2/defaultSupportedIdps`. The resources are Identity Platform's, except that a client
/// secret or Apple private key is write-only: stored sealed by factor-registry, never answered.
struct IdentityProviderConfigOperations: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let settings: CachedSettings

    enum Collection {
        case oauth
        case defaultSupported

        var kind: IdentityProviderConfig.Kind { self == .oauth ? .oidc : .defaultSupported }
        var segment: String { self == .oauth ? "oauthIdpConfigs" : "defaultSupportedIdpConfigs" }
        var pathParameter: String { self == .oauth ? "oauthIdpConfigsId" : "defaultSupportedIdpConfigsId" }
        var createParameter: String { self == .oauth ? "oauthIdpConfigId" : "idpId" }
    }

    func create(_ collection: Collection) -> PublicOperationHandler {
        { request in
            let scope = try await AdminScope.existing(request, in: settings)
            guard let id = request.query[collection.createParameter], !id.isEmpty else {
                throw IdentityToolkitError(collection == .oauth ? .missingProviderID : .invalidProviderID)
            }
            let (config, secret, key) = try Self.config(from: request.body, id: id, collection: collection)
            return try await put(config, secret: secret, key: key, create: true, scope: scope, collection: collection, request: request)
        }
    }

    func get(_ collection: Collection) -> PublicOperationHandler {
        { request in
            let scope = try await AdminScope.existing(request, in: settings)
            return Self.document(try await current(request, scope: scope, collection: collection), scope: scope, collection: collection)
        }
    }

    func list(_ collection: Collection) -> PublicOperationHandler {
        { request in
            let scope = try await AdminScope.existing(request, in: settings)
            var pageSize: Int?
            if let text = request.query["pageSize"], !text.isEmpty {
                guard let number = Int(text) else { throw IdentityToolkitError.invalidPayload("pageSize must be an integer") }
                pageSize = number <= 0 ? nil : min(number, 100)
            }
            let page = try await PeerCall.call(
                registry, ListIdentityProviderConfigs.self,
                .init(
                    projectId: scope.projectId, tenantId: scope.tenantId, kind: collection.kind, pageSize: pageSize,
                    pageToken: request.query["pageToken"].flatMap { $0.isEmpty ? nil : $0 }
                ),
                requestID: request.requestID
            )
            var answer: [String: JSONValue] = [
                collection.segment: .array(page.configs.map { Self.document($0, scope: scope, collection: collection) })
            ]
            if let next = page.nextPageToken { answer["nextPageToken"] = .string(next) }
            return .object(answer)
        }
    }

    /// PATCH: the masked fields of the body over the stored resource (the whole body without a mask).
    func patch(_ collection: Collection) -> PublicOperationHandler {
        { request in
            let scope = try await AdminScope.existing(request, in: settings)
            let stored = try await current(request, scope: scope, collection: collection)
            let mask = try UpdateMask(request.query["updateMask"])
            let merged =
                mask.isEmpty ? request.body : mask.apply(request.body, to: Self.document(stored, scope: scope, collection: collection))
            var (config, secret, key) = try Self.config(from: merged, id: stored.providerId, collection: collection)
            // A secret changes only when named (by the mask, or by a body without one); a name
            // without a value removes it.
            let names = Set(mask.paths.map { $0.joined(separator: ".") })
            if !mask.isEmpty {
                secret = names.contains("clientSecret") ? (request.body["clientSecret"]?.stringValue ?? "") : nil
                key =
                    names.contains("appleSignInConfig.codeFlowConfig.privateKey") || names.contains("appleSignInConfig")
                    ? (UpdateMask.value(at: ["appleSignInConfig", "codeFlowConfig", "privateKey"], in: request.body)?.stringValue ?? "")
                    : nil
                if names.contains("displayName"), request.body["displayName"] == .null { config.displayName = nil }
            }
            return try await put(config, secret: secret, key: key, create: false, scope: scope, collection: collection, request: request)
        }
    }

    func delete(_ collection: Collection) -> PublicOperationHandler {
        { request in
            let scope = try await AdminScope.existing(request, in: settings)
            let id = try Self.id(request, collection: collection)
            _ = try await PeerCall.call(
                registry, DeleteIdentityProviderConfig.self, .init(projectId: scope.projectId, tenantId: scope.tenantId, providerId: id),
                requestID: request.requestID
            )
            return [:]
        }
    }

    /// `GET /v2/defaultSupportedIdps`: the providers a `defaultSupportedIdpConfigs` entry may name.
    func listSupported(_ request: PublicRequest) async throws -> JSONValue {
        guard request.caller == .admin else { throw IdentityToolkitError.targetProjectNeedsAdmin }
        let entries: [JSONValue] = [
            ["idpId": "apple.com", "description": "Apple"], ["idpId": "google.com", "description": "Google"],
        ]
        return ["defaultSupportedIdps": .array(entries)]
    }

    /// Stores a configuration (creating it, or replacing the one there) and answers the resource.
    private func put(
        _ config: IdentityProviderConfig, secret: String?, key: String?, create: Bool, scope: AdminScope, collection: Collection,
        request: PublicRequest
    ) async throws -> JSONValue {
        let stored = try await PeerCall.call(
            registry, PutIdentityProviderConfig.self,
            .init(
                projectId: scope.projectId, tenantId: scope.tenantId, config: config, create: create, clientSecret: secret,
                applePrivateKey: key
            ),
            requestID: request.requestID
        )
        return Self.document(stored, scope: scope, collection: collection)
    }

    private func current(_ request: PublicRequest, scope: AdminScope, collection: Collection) async throws -> IdentityProviderConfig {
        let config = try await PeerCall.call(
            registry, GetIdentityProviderConfig.self,
            .init(projectId: scope.projectId, tenantId: scope.tenantId, providerId: try Self.id(request, collection: collection)),
            requestID: request.requestID
        )
        // An id of the other collection is not found in this one.
        guard config.kind == collection.kind else { throw IdentityToolkitError(.configurationNotFound) }
        return config
    }

    static func id(_ request: PublicRequest, collection: Collection) throws -> String {
        guard let id = request.pathParameters[collection.pathParameter], !id.isEmpty, id.utf8.count <= 128 else {
            throw IdentityToolkitError(.configurationNotFound)
        }
        return id
    }

    /// The configuration a resource body describes, and the secrets it carries.
    static func config(from body: JSONValue, id: String, collection: Collection) throws -> (IdentityProviderConfig, String?, String?) {
        func text(_ path: String...) -> String? { UpdateMask.value(at: path, in: body)?.stringValue }
        func flag(_ path: String...) -> Bool? {
            if case .bool(let value)? = UpdateMask.value(at: path, in: body) { return value }
            return nil
        }
        var config = IdentityProviderConfig(
            providerId: id, kind: collection.kind, enabled: flag("enabled") ?? false, clientId: text("clientId"),
            displayName: text("displayName")
        )
        switch collection {
        case .oauth:
            config.issuer = text("issuer")
            config.responseCode = flag("responseType", "code")
            config.responseIdToken = flag("responseType", "idToken")
            config.trustEmailVerified = flag("trustEmailVerified")
            return (config, text("clientSecret"), nil)
        case .defaultSupported:
            if case .array(let ids)? = UpdateMask.value(at: ["appleSignInConfig", "bundleIds"], in: body) {
                config.appleBundleIds = ids.compactMap(\.stringValue)
            }
            config.appleTeamId = text("appleSignInConfig", "codeFlowConfig", "teamId")
            config.appleKeyId = text("appleSignInConfig", "codeFlowConfig", "keyId")
            return (config, text("clientSecret"), text("appleSignInConfig", "codeFlowConfig", "privateKey"))
        }
    }

    /// The resource as Identity Platform answers it, without its secrets.
    static func document(_ config: IdentityProviderConfig, scope: AdminScope, collection: Collection) -> JSONValue {
        var parent = "projects/\(scope.projectId)"
        if let tenant = scope.tenantId { parent += "/tenants/\(tenant)" }
        var members: [String: JSONValue] = [
            "name": .string("\(parent)/\(collection.segment)/\(config.providerId)"), "enabled": .bool(config.enabled),
        ]
        if let clientId = config.clientId { members["clientId"] = .string(clientId) }
        switch collection {
        case .oauth:
            if let issuer = config.issuer { members["issuer"] = .string(issuer) }
            if let name = config.displayName { members["displayName"] = .string(name) }
            members["responseType"] = ["code": .bool(config.responseCode == true), "idToken": .bool(config.responseIdToken == true)]
            members["trustEmailVerified"] = .bool(config.trustEmailVerified == true)
        case .defaultSupported:
            if config.providerId == "apple.com" {
                var apple: [String: JSONValue] = [:]
                if let ids = config.appleBundleIds { apple["bundleIds"] = .array(ids.map(JSONValue.string)) }
                var flow: [String: JSONValue] = [:]
                if let team = config.appleTeamId { flow["teamId"] = .string(team) }
                if let key = config.appleKeyId { flow["keyId"] = .string(key) }
                if !flow.isEmpty { apple["codeFlowConfig"] = .object(flow) }
                if !apple.isEmpty { members["appleSignInConfig"] = .object(apple) }
            }
        }
        return .object(members)
    }
}
