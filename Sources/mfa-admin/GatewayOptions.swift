import ArgumentParser
import Foundation

/// Where the gateway is, who is calling, and which project and tenant: flags first, then the
/// environment, then the development stack's defaults.
struct GatewayOptions: ParsableArguments {
    @Option(name: .customLong("gateway"), help: "The gateway's base URL [env: MFA_GATEWAY_URL; default: http://127.0.0.1:8080].")
    var gatewayFlag: String?

    @Option(name: .customLong("token"), help: "The admin credential, sent as a bearer token [env: MFA_ADMIN_TOKEN].")
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
    var token: String? { tokenFlag ?? Self.environment["MFA_ADMIN_TOKEN"] }
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
