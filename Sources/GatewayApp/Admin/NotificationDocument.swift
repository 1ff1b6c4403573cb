import Contracts
import IdentityToolkit
import JSONRPC

/// `notification` in the admin resources (a project's config and, beyond Identity Platform, a
/// tenant): read into ``NotificationConfig`` and written back as stored. Identity Platform's sender
/// options have no meaning here (the deployment's SMTP settings name the sender), so a value for
/// one is refused rather than dropped; `customized` is output only and ignored, as there.
enum NotificationDocument {
    static let unsupportedTemplateMembers = ["senderLocalPart", "senderDisplayName", "replyTo"]
    static let unsupportedEmailMembers = ["callbackUri", "dnsInfo", "legacyResetPasswordTemplate"]

    static func document(_ config: NotificationConfig?) -> JSONValue? {
        guard let config else { return nil }
        return try? JSONCoding.value(of: config)
    }

    static func config(_ value: JSONValue?) throws -> NotificationConfig? {
        guard let value, value != .null else { return nil }
        var cleaned = value
        if case .object(var email)? = value["sendEmail"] {
            for member in unsupportedEmailMembers where present(email[member]) { throw unsupported("sendEmail.\(member)") }
            if let method = email["method"]?.stringValue, !["DEFAULT", "METHOD_UNSPECIFIED"].contains(method) {
                throw unsupported("sendEmail.method \(method)")
            }
            email["method"] = nil
            email = try templates(email, at: "sendEmail")
            if case .object(var localized)? = email["localizedTemplates"] {
                for (tag, set) in localized {
                    guard case .object(let members) = set else { throw invalid("sendEmail.localizedTemplates.\(tag) must be an object") }
                    for name in members.keys where !EmailTemplateSet.memberNames.contains(name) {
                        throw invalid(
                            "sendEmail.localizedTemplates.\(tag).\(name) is not a template (\(EmailTemplateSet.memberNames.joined(separator: ", ")))"
                        )
                    }
                    localized[tag] = .object(try templates(members, at: "sendEmail.localizedTemplates.\(tag)"))
                }
                email["localizedTemplates"] = .object(localized)
            }
            cleaned = cleaned.setting("sendEmail", to: .object(email))
        }
        do {
            // An empty object clears the settings (an update mask cannot send null).
            let config = try JSONCoding.decode(NotificationConfig.self, from: cleaned)
            return config == NotificationConfig() ? nil : config
        } catch {
            throw invalid("notification does not have the shape of a NotificationConfig")
        }
    }

    /// Each template of a set without its output-only and unsupported members.
    static func templates(_ members: [String: JSONValue], at path: String) throws -> [String: JSONValue] {
        var result = members
        for name in EmailTemplateSet.memberNames {
            guard case .object(var template)? = members[name] else { continue }
            for member in unsupportedTemplateMembers where present(template[member]) { throw unsupported("\(path).\(name).\(member)") }
            template["customized"] = nil
            for member in unsupportedTemplateMembers { template[member] = nil }
            result[name] = .object(template)
        }
        return result
    }

    static func present(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: false
        case .string(let text)?: !text.isEmpty
        default: true
        }
    }

    static func unsupported(_ member: String) -> IdentityToolkitError {
        IdentityToolkitError(
            .invalidConfig, detail: "notification.\(member) is not supported: the deployment's email settings name the sender")
    }

    static func invalid(_ detail: String) -> IdentityToolkitError {
        IdentityToolkitError(.invalidConfig, detail: "notification.\(detail)")
    }
}
