import Contracts
import Foundation
import IdentityToolkit
import JSONRPC

/// What a blocking function's 200 answer asks for, in the shape the Firebase Functions SDKs write
/// it: `{"userRecord": {…, "updateMask": "displayName,customClaims"}}` (only the members the mask
/// names count), and for the send events `{"recaptchaActionOverride": "BLOCK"}`. An empty answer
/// (`{}`) changes nothing.
struct BlockingFunctionAnswer: Sendable, Equatable {
    var displayName: String??
    var photoURL: String??
    var emailVerified: Bool?
    var disabled: Bool?
    var customClaims: [String: JSONValue]?
    var sessionClaims: [String: JSONValue]?
    /// `recaptchaActionOverride: BLOCK`: the send events' way to refuse without an error.
    var blocks = false
    /// This server's addition for `beforeSendSms`: the SMS route (challenge-issuer's
    /// `sms.routeNames`) the message goes by; `nil`: the default sender.
    var smsRoute: String?

    /// Why an answer cannot be used; the client sees it as the function's error.
    struct Unusable: Error, Equatable {
        let error: IdentityToolkitError.Code
        let detail: String?
    }

    static let updatable: Set<String> = ["displayName", "photoURL", "emailVerified", "disabled", "customClaims", "sessionClaims"]

    init() {}

    /// `sessionClaims` are a sign-in's only; `beforeCreate` may not set them.
    init(_ answer: JSONValue, event: BlockingFunctionsConfig.Event) throws(Unusable) {
        guard case .object(let members) = answer else { throw Unusable(error: .invalidArgument, detail: "answer is not a JSON object") }
        if let override = members["recaptchaActionOverride"]?.stringValue { blocks = override == "BLOCK" }
        if event == .beforeSendSms, let route = members["smsRoute"], route != .null {
            guard let name = route.stringValue, !name.isEmpty, name.utf8.count <= 32 else {
                throw Unusable(error: .invalidArgument, detail: "smsRoute must be a route's name")
            }
            smsRoute = name
        }
        guard case .object(let record)? = members["userRecord"] else { return }
        guard event == .beforeCreate || event == .beforeSignIn else { return }
        let mask = (record["updateMask"]?.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for field in mask where Self.updatable.contains(field) {
            let value = record[field] ?? .null
            switch field {
            case "displayName": displayName = .some(value.stringValue)
            case "photoURL": photoURL = .some(value.stringValue)
            case "emailVerified": emailVerified = value.boolValue ?? false
            case "disabled": disabled = value.boolValue ?? false
            case "customClaims": customClaims = try Self.claims(value, named: "customClaims")
            default:
                guard event == .beforeSignIn else {
                    throw Unusable(error: .invalidArgument, detail: "sessionClaims cannot be set by beforeCreate")
                }
                sessionClaims = try Self.claims(value, named: "sessionClaims")
            }
        }
        if let custom = customClaims, let session = sessionClaims {
            let combined = custom.merging(session) { _, sessionValue in sessionValue }
            guard Self.size(combined) <= ReservedClaims.maximumBytes else {
                throw Unusable(error: .claimsTooLarge, detail: "customClaims and sessionClaims exceed 1000 characters combined")
            }
        }
    }

    /// A claims object as Identity Platform takes one: no reserved name, at most 1000 characters of JSON.
    static func claims(_ value: JSONValue, named name: String) throws(Unusable) -> [String: JSONValue] {
        if value == .null { return [:] }
        guard case .object(let claims) = value else { throw Unusable(error: .invalidClaims, detail: "\(name) must be an object") }
        if let reserved = claims.keys.sorted().first(where: ReservedClaims.names.contains) {
            throw Unusable(error: .forbiddenClaim, detail: "\(name) may not use the reserved claim \(reserved)")
        }
        guard size(claims) <= ReservedClaims.maximumBytes else {
            throw Unusable(error: .claimsTooLarge, detail: "\(name) exceed 1000 characters")
        }
        return claims
    }

    static func size(_ claims: [String: JSONValue]) -> Int {
        ((try? JSONCoding.encode(JSONValue.object(claims))).map(\.count)) ?? Int.max
    }

    /// The account changes the answer asks for, as `account.update` takes them; `nil`: none.
    func update(projectId: String, tenantId: String?, localId: String) throws(Unusable) -> UpdateAccount.Params? {
        var params = UpdateAccount.Params(projectId: projectId, tenantId: tenantId, localId: localId)
        var changes = false
        if let name = displayName {
            if let name { params.displayName = name } else { params.deleteDisplayName = true }
            changes = true
        }
        if let url = photoURL {
            if let url { params.photoUrl = url } else { params.deletePhotoUrl = true }
            changes = true
        }
        if let verified = emailVerified {
            params.emailVerified = verified
            changes = true
        }
        if let disabled {
            params.disabled = disabled
            changes = true
        }
        if let claims = customClaims {
            guard let data = try? JSONCoding.encode(JSONValue.object(claims)) else {
                throw Unusable(error: .invalidClaims, detail: "customClaims must be JSON")
            }
            params.customAttributes = String(decoding: data, as: UTF8.self)
            changes = true
        }
        return changes ? params : nil
    }
}
