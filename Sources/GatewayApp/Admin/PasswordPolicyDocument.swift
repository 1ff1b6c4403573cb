import Contracts
import Foundation
import IdentityToolkit
import JSONRPC

/// `passwordPolicyConfig` of a project config or tenant resource, and `GET v2/passwordPolicy`'s
/// answer, from and to ``PasswordPolicy``.
enum PasswordPolicyDocument {
    static func document(_ policy: PasswordPolicy) -> JSONValue {
        var members: [String: JSONValue] = [
            "passwordPolicyEnforcementState": .string(policy.enforcementState),
            "forceUpgradeOnSignin": .bool(policy.forceUpgradeOnSignin),
            "passwordPolicyVersions": [["customStrengthOptions": strength(policy), "schemaVersion": 1]],
        ]
        if let time = policy.lastUpdateTime { members["lastUpdateTime"] = .string(time) }
        return .object(members)
    }

    /// The policy a document sets (`nil` when it sets none); `lastUpdateTime` moves when it changed.
    static func policy(_ value: JSONValue?, previous: PasswordPolicy?) throws -> PasswordPolicy? {
        guard let value, value != .null else { return nil }
        let state =
            switch value["passwordPolicyEnforcementState"]?.stringValue {
            case "ENFORCE"?: "ENFORCE"
            case nil, "OFF"?, "PASSWORD_POLICY_ENFORCEMENT_STATE_UNSPECIFIED"?: "OFF"
            default: throw IdentityToolkitError.invalidPayload("Unknown passwordPolicyEnforcementState")
            }
        var versions: [JSONValue] = []
        if case .array(let items)? = value["passwordPolicyVersions"] { versions = items }
        guard versions.count <= 1 else { throw IdentityToolkitError.invalidPayload("passwordPolicyVersions must be of length 1") }
        let options = versions.first?["customStrengthOptions"]
        func flag(_ name: String) -> Bool { options?[name]?.boolValue ?? false }
        func number(_ name: String) throws -> Int? {
            switch options?[name] {
            case nil, .null?: return nil
            case .int(let number)?: return Int(clamping: number)
            case .string(let text)? where Int(text) != nil: return Int(text)
            default: throw IdentityToolkitError.invalidPayload("\(name) must be an integer")
            }
        }
        let minimum = try number("minPasswordLength") ?? 6
        let maximum = try number("maxPasswordLength").flatMap { $0 == 0 ? nil : $0 }
        guard (6...30).contains(minimum) else { throw IdentityToolkitError.invalidPayload("minPasswordLength must be 6 to 30") }
        if let maximum, !(minimum...4096).contains(maximum) {
            throw IdentityToolkitError.invalidPayload("maxPasswordLength must be minPasswordLength to 4096")
        }
        var policy = PasswordPolicy(
            enforcementState: state, forceUpgradeOnSignin: value["forceUpgradeOnSignin"]?.boolValue ?? false,
            minPasswordLength: minimum, maxPasswordLength: maximum,
            containsLowercaseCharacter: flag("containsLowercaseCharacter"), containsUppercaseCharacter: flag("containsUppercaseCharacter"),
            containsNumericCharacter: flag("containsNumericCharacter"),
            containsNonAlphanumericCharacter: flag("containsNonAlphanumericCharacter")
        )
        var unchanged = previous
        unchanged?.lastUpdateTime = nil
        policy.lastUpdateTime =
            unchanged == policy ? previous?.lastUpdateTime : ISO8601DateFormatter().string(from: Date())
        return policy
    }

    /// `GET v2/passwordPolicy`: what the SDKs' `validatePassword` reads (schema version 1).
    static func published(_ policy: PasswordPolicy) -> JSONValue {
        [
            "customStrengthOptions": strength(policy),
            "allowedNonAlphanumericCharacters": .array(PasswordPolicy.nonAlphanumeric.map(JSONValue.string)),
            "enforcementState": .string(policy.enforcementState), "forceUpgradeOnSignin": .bool(policy.forceUpgradeOnSignin),
            "schemaVersion": 1,
        ]
    }

    static func strength(_ policy: PasswordPolicy) -> JSONValue {
        var options: [String: JSONValue] = [
            "minPasswordLength": .int(Int64(policy.minPasswordLength)),
            "containsLowercaseCharacter": .bool(policy.containsLowercaseCharacter),
            "containsUppercaseCharacter": .bool(policy.containsUppercaseCharacter),
            "containsNumericCharacter": .bool(policy.containsNumericCharacter),
            "containsNonAlphanumericCharacter": .bool(policy.containsNonAlphanumericCharacter),
        ]
        if let maximum = policy.maxPasswordLength { options["maxPasswordLength"] = .int(Int64(maximum)) }
        return .object(options)
    }
}

extension AuthSettings {
    /// `PASSWORD_DOES_NOT_MEET_REQUIREMENTS` when the scope enforces a policy `password` misses.
    func requirePasswordPolicy(_ password: String) throws {
        guard let policy = passwordPolicy, policy.enforced else { return }
        let missing = policy.missing(in: password)
        guard missing.isEmpty else {
            throw IdentityToolkitError(
                .passwordDoesNotMeetRequirements, detail: "Missing password requirements: [\(missing.joined(separator: ", "))]"
            )
        }
    }
}
