import ArgumentParser
import Foundation

/// Where the gateway is, who is calling, and which project and tenant: flags first, then the
/// environment, then the development stack's defaults.
struct GatewayOptions: ParsableArguments {
    @Option(name: .customLong("gateway"), help: "The gateway's base URL [env: MFA_GATEWAY_URL; default: http://127.0.0.1:8080].")
    var gatewayFlag: String?

    @Option(
        name: .customLong("token-file"),
        help:
            "A file holding the admin credential, sent as a bearer token [env: MFA_ADMIN_TOKEN_FILE; or the token itself in MFA_ADMIN_TOKEN]."
    )
    var tokenFileFlag: String?

    @Option(
        name: .customLong("token"),
        help:
            "The admin credential itself. Every user of this machine can read it in the process list: prefer MFA_ADMIN_TOKEN or --token-file."
    )
    var tokenFlag: String?

    @Option(name: .customLong("project"), help: "The project [env: MFA_PROJECT; default: demo-project].")
    var projectFlag: String?

    @Option(help: "A tenant of the project; without it, the project itself.")
    var tenant: String?

    @Option(name: .customLong("ca-file"), help: "PEM CA certificates to trust for an https gateway [env: MFA_GATEWAY_CA].")
    var caFileFlag: String?

    @Flag(help: "Print the API's JSON answers instead of text.")
    var json = false

    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    var gateway: String {
        let url = gatewayFlag ?? Self.environment["MFA_GATEWAY_URL"] ?? "http://127.0.0.1:8080"
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }
    /// The admin credential: flags first (`--token-file`, then `--token`, which the process list
    /// shows: a warning says so), then the environment (MFA_ADMIN_TOKEN_FILE, then MFA_ADMIN_TOKEN).
    func adminToken() throws -> String {
        if let file = tokenFileFlag { return try Self.token(inFile: file) }
        if let token = tokenFlag, !token.isEmpty {
            FileHandle.standardError.write(
                Data("mfa-admin: warning: --token is visible in the process list; use MFA_ADMIN_TOKEN or --token-file\n".utf8)
            )
            return token
        }
        if let file = Self.environment["MFA_ADMIN_TOKEN_FILE"], !file.isEmpty { return try Self.token(inFile: file) }
        if let token = Self.environment["MFA_ADMIN_TOKEN"], !token.isEmpty { return token }
        throw CommandFailure.missingToken
    }

    private static func token(inFile file: String) throws -> String {
        guard let contents = FileManager.default.contents(atPath: file) else {
            throw CommandFailure.message("cannot read the admin credential file \(file)")
        }
        let token = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw CommandFailure.message("the admin credential file \(file) is empty") }
        return token
    }

    /// The admin credential travels over TLS, or over plain HTTP only to this machine's loopback
    /// (an SSH tunnel or `kubectl port-forward` ends there): anywhere else, whoever is on the path
    /// reads it (issue 40, L-5).
    static func requireConfidential(_ url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw CommandFailure.message("not a URL: \(url)")
        }
        if scheme == "https" { return }
        let host = (components.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        guard scheme == "http", loopback else {
            throw CommandFailure.message(
                "refusing to send the admin credential to \(url) over plain HTTP: use https:// (with --ca-file for a private CA), "
                    + "or reach it through a tunnel to 127.0.0.1"
            )
        }
    }
    var project: String { projectFlag ?? Self.environment["MFA_PROJECT"] ?? "demo-project" }
    var caFile: String? { caFileFlag ?? Self.environment["MFA_GATEWAY_CA"] }

    /// `/v1/projects/{p}[/tenants/{t}]` or the v2 form: the admin paths of the chosen scope.
    func scopePath(_ version: String) -> String {
        "/\(version)/projects/\(Self.segment(project))" + (tenant.map { "/tenants/\(Self.segment($0))" } ?? "")
    }

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}
