import Foundation
import JSONRPC

/// Checks a request body against its discovery schema the way Google's front end does, and returns
/// it normalised: keys in lowerCamelCase (`refresh_token` ≡ `refreshToken`), numbers given for
/// string fields turned into strings, enum indexes turned into names, int32 strings into numbers.
///
/// A field the schema does not define is refused (`Unknown name "x": Cannot find field.`), and so is
/// a value of the wrong type (`/path must be <type>`); fields we do not act on are still accepted,
/// so real SDKs keep working (contract decision 15).
public struct RequestValidator: Sendable {
    let schemas: DiscoverySchemas
    /// Fields the discovery schemas omit: those real SDKs send (production accepts them, so must we,
    /// contract decision 15; extend only with a client that is seen sending the field), and this
    /// server's own additions to the admin resources (per-tenant, per-language message texts, SMS limits).
    static let additions: [String: [String: JSONValue]] = [
        // The JS SDK's createUserWithEmailAndPassword sends returnSecureToken: true.
        "GoogleCloudIdentitytoolkitV1SignUpRequest": ["returnSecureToken": ["type": "boolean"]],
        // Messages per tenant and per language (NotificationConfig), beyond Identity Platform's project-wide ones.
        // And limits on SMS sends against toll fraud (SMSDefenseConfig; GatewayApp's SMSDefenseDocument checks its members),
        // and a tenant's own blocking functions (docs/blocking-functions.md).
        "GoogleCloudIdentitytoolkitAdminV2Tenant": [
            "notification": ["$ref": "#/schemas/GoogleCloudIdentitytoolkitAdminV2NotificationConfig"],
            "smsDefenseConfig": ["type": "object"],
            "blockingFunctions": ["$ref": "#/schemas/GoogleCloudIdentitytoolkitAdminV2BlockingFunctionsConfig"],
        ],
        "GoogleCloudIdentitytoolkitAdminV2Config": ["smsDefenseConfig": ["type": "object"]],
        // An imported TOTP factor's shared secret (base32), which Identity Platform has no way to take.
        "GoogleCloudIdentitytoolkitV1TotpInfo": ["sharedSecretKey": ["type": "string"]],
        "GoogleCloudIdentitytoolkitAdminV2SendSms": [
            "localizedTemplates": [
                "type": "object", "additionalProperties": ["$ref": "#/schemas/GoogleCloudIdentitytoolkitAdminV2SmsTemplate"],
            ]
        ],
        "GoogleCloudIdentitytoolkitAdminV2SendEmail": [
            "verifyAndChangeEmailTemplate": ["$ref": "#/schemas/GoogleCloudIdentitytoolkitAdminV2EmailTemplate"],
            "emailSignInTemplate": ["$ref": "#/schemas/GoogleCloudIdentitytoolkitAdminV2EmailTemplate"],
            // Each language's set has SendEmail's template members; GatewayApp's NotificationDocument checks them.
            "localizedTemplates": ["type": "object", "additionalProperties": ["type": "object"]],
        ],
    ]

    /// Deeper objects than this are refused (the schemas nest at most a few levels).
    static let maximumDepth = 16

    public init(schemas: DiscoverySchemas) {
        self.schemas = schemas
    }

    /// - Returns: the normalised body.
    /// - Throws: ``IdentityToolkitError`` (400 `INVALID_ARGUMENT`).
    public func validate(_ body: JSONValue, schema name: String) throws -> JSONValue {
        guard case .object = body else {
            throw IdentityToolkitError.invalidPayload("Root element must be a message.")
        }
        return try validate(body, against: .object(["$ref": .string("#/schemas/\(name)")]), path: [], depth: 0)
    }

    private func validate(_ value: JSONValue, against property: JSONValue, path: [String], depth: Int) throws -> JSONValue {
        guard depth <= Self.maximumDepth else { throw IdentityToolkitError.invalidPayload("Message nested too deeply.") }
        if let reference = property["$ref"]?.stringValue {
            guard let schema = schemas.schema(named: String(reference.split(separator: "/").last ?? "")) else {
                throw IdentityToolkitError.invalidPayload("Unknown message type at '\(Self.dotted(path))'.")
            }
            let name = String(reference.split(separator: "/").last ?? "")
            return try validateMessage(value, schema: schema, schemaName: name, path: path, depth: depth)
        }
        let type = property["type"]?.stringValue
        let format = property["format"]?.stringValue
        switch type {
        case "string":
            if case .array(let names)? = property["enum"] {
                return try enumValue(value, names: names.compactMap(\.stringValue), path: path)
            }
            switch value {
            case .string(let text):
                try Self.refuseNUL(text, at: Self.dotted(path))
                return value
            case .int(let number): return .string(String(number))
            case .double(let number) where format != "byte": return .string(Self.text(number))
            default: throw Self.mustBe("string", path)
            }
        case "integer":
            switch value {
            case .int: return value
            case .double(let number) where number.rounded() == number && abs(number) < 9.0e15: return .int(Int64(number))
            case .string(let text): if let number = Int64(text) { return .int(number) }
            default: break
            }
            throw Self.mustBe("integer", path)
        case "number":
            switch value {
            case .int, .double: return value
            case .string(let text): if let number = Double(text) { return .double(number) }
            default: break
            }
            throw Self.mustBe("number", path)
        case "boolean":
            guard case .bool = value else { throw Self.mustBe("boolean", path) }
            return value
        case "array":
            guard case .array(let items) = value else { throw Self.mustBe("array", path) }
            let itemSchema = property["items"] ?? .object([:])
            var result: [JSONValue] = []
            for (index, item) in items.enumerated() {
                result.append(try validate(item, against: itemSchema, path: path + [String(index)], depth: depth + 1))
            }
            return .array(result)
        case "object":
            guard case .object(let members) = value else { throw Self.mustBe("object", path) }
            if let valueSchema = property["additionalProperties"], case .object = valueSchema {
                var result: [String: JSONValue] = [:]
                for (key, member) in members {
                    result[key] = try validate(member, against: valueSchema, path: path + [key], depth: depth + 1)
                }
                return .object(result)
            }
            return value
        default:
            // Untyped (`any`) fields keep what was sent.
            return value
        }
    }

    private func validateMessage(
        _ value: JSONValue, schema: JSONValue, schemaName: String?, path: [String], depth: Int
    ) throws -> JSONValue {
        guard case .object(let members) = value else { throw Self.mustBe("object", path) }
        let properties = Self.properties(of: schema, named: schemaName)
        var result: [String: JSONValue] = [:]
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            let name = Self.lowerCamel(key)
            guard let property = properties[name] else {
                let location = path.isEmpty ? "" : " at '\(Self.dotted(path))'"
                throw IdentityToolkitError.invalidPayload("Unknown name \"\(Self.printable(key))\"\(location): Cannot find field.")
            }
            guard result[name] == nil else {
                throw IdentityToolkitError.invalidPayload("Field \"\(name)\" given twice.")
            }
            result[name] = try validate(member, against: property, path: path + [name], depth: depth + 1)
        }
        return .object(result)
    }

    /// The members a message accepts by name: its schema's properties and this server's additions.
    /// `nil` for a message the document does not define.
    public func members(of name: String) -> [String: JSONValue]? {
        schemas.schema(named: name).map { Self.properties(of: $0, named: name) }
    }

    private static func properties(of schema: JSONValue, named name: String?) -> [String: JSONValue] {
        var properties = schema["properties"]?.objectValue ?? [:]
        if let name, let extras = additions[name] {
            properties.merge(extras) { existing, _ in existing }
        }
        return properties
    }

    private func enumValue(_ value: JSONValue, names: [String], path: [String]) throws -> JSONValue {
        switch value {
        case .string(let text) where names.contains(text):
            return value
        case .int(let index) where index >= 0 && index < names.count:
            // Protobuf JSON accepts an enum's number; the Admin SDKs send some that way.
            return .string(names[Int(index)])
        case .string(let text) where Int(text).map { $0 >= 0 && $0 < names.count } == true:
            // The number as a string: what the iOS SDK sends for `revokeToken`'s `tokenType` ("3").
            return .string(names[Int(text)!])
        case .string, .int:
            throw IdentityToolkitError.invalidPayload("Invalid value at '\(Self.dotted(path))'.")
        default:
            throw Self.mustBe("string", path)
        }
    }

    static func mustBe(_ type: String, _ path: [String]) -> IdentityToolkitError {
        .invalidPayload("/\(path.joined(separator: "/")) must be \(type)")
    }

    /// `refresh_token` → `refreshToken`; keys already in lowerCamelCase are unchanged.
    static func lowerCamel(_ key: String) -> String {
        guard key.contains("_") else { return key }
        var result = ""
        var upperNext = false
        for character in key {
            if character == "_" {
                upperNext = !result.isEmpty
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func dotted(_ path: [String]) -> String { path.joined(separator: ".") }

    /// Query parameters get the body's rule for U+0000 (`pageToken`, `nextPageToken` reach look-ups).
    public func validateQuery(_ query: [String: String]) throws {
        for (name, value) in query { try Self.refuseNUL(value, at: Self.printable(name)) }
    }

    /// PostgreSQL's text cannot hold U+0000, so no stored value or look-up key has one: a string with
    /// it is refused here rather than failing in a statement.
    static func refuseNUL(_ text: String, at location: String) throws {
        guard text.utf8.contains(0) else { return }
        throw IdentityToolkitError.invalidPayload("Invalid value at '\(location)' (TYPE_STRING): the character U+0000 is not accepted.")
    }

    /// Unknown field names are echoed: keep them short and printable.
    static func printable(_ key: String) -> String {
        let cleaned = String(key.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64).map(Character.init))
        return cleaned.replacingOccurrences(of: "\"", with: "\\\"")
    }

    static func text(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 9.0e15 ? String(Int64(number)) : String(number)
    }
}
