/// Where and how ``SMTPEmailSender`` delivers: one relay (a submission server or a local MTA), the
/// envelope sender, how the connection is protected and, optionally, the account to log in as.
public struct SMTPConfiguration: Sendable {
    /// How the connection to the relay is protected.
    public enum Security: String, Sendable, Hashable, CaseIterable {
        /// No TLS at all: only for a relay on a trusted network. Credentials are never sent this way.
        case plain
        /// Plain TCP upgraded with STARTTLS before anything else is said (submission, port 587).
        /// A server that does not offer STARTTLS is refused rather than spoken to in the clear.
        case startTLS
        /// TLS from the first byte (submissions, port 465).
        case implicitTLS

        /// The port conventionally used with this mode.
        public var defaultPort: Int {
            switch self {
            case .plain: 25
            case .startTLS: 587
            case .implicitTLS: 465
            }
        }
    }

    /// The relay's host name or IP address; a name is also what its certificate must be issued for.
    public var host: String
    public var port: Int
    /// The sender address: the envelope's MAIL FROM and the From header.
    public var from: String
    /// The account for AUTH PLAIN; nil sends without authenticating.
    public var username: String?
    public var password: String?
    public var security: Security
    /// A PEM file of certificates trusted in addition to the system's roots (a private CA's).
    public var trustRootsPath: String?
    /// The limit for one whole delivery, connection through QUIT.
    public var timeout: Duration
    /// The name given in EHLO; nil uses the domain of `from` (relays often want a fully qualified one).
    public var ehloDomain: String?

    public init(
        host: String,
        port: Int? = nil,
        from: String,
        username: String? = nil,
        password: String? = nil,
        security: Security = .startTLS,
        trustRootsPath: String? = nil,
        timeout: Duration = .seconds(10),
        ehloDomain: String? = nil
    ) {
        self.host = host
        self.port = port ?? security.defaultPort
        self.from = from
        self.username = username
        self.password = password
        self.security = security
        self.trustRootsPath = trustRootsPath
        self.timeout = timeout
        self.ehloDomain = ehloDomain
    }

    /// The configuration could not be used (a TLS context could not be made from it).
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { "invalid SMTP configuration: \(reason)" }
    }
}

// Printed configurations (logs, test failures) never show the password.
extension SMTPConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let account = username.map { " username: \($0), password: \(password == nil ? "none" : "<redacted>")," } ?? ""
        return "SMTPConfiguration(\(security.rawValue)://\(host):\(port), from: \(from),\(account) timeout: \(timeout))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "from": from, "username": username as Any,
                "password": password == nil ? "none" : "<redacted>", "security": security,
                "trustRootsPath": trustRootsPath as Any, "timeout": timeout, "ehloDomain": ehloDomain as Any,
            ],
            displayStyle: .struct
        )
    }
}
