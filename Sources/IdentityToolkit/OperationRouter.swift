import Foundation

/// Finds the Identity Toolkit operation a request addresses, with or without the host prefix:
/// `/identitytoolkit.googleapis.com/v1/accounts:signUp` and `/v1/accounts:signUp` are the same
/// operation, `/admin/v2/projects/{p}/config` is `/v2/projects/{p}/config` (contract §1.1), and
/// `/securetoken.googleapis.com/v1/token` is the token endpoint.
public struct OperationRouter: Sendable {
    public struct Match: Sendable, Hashable {
        public let operation: DiscoverySchemas.Operation
        /// Values of the path's `{name}` segments, percent-decoded.
        public let pathParameters: [String: String]
    }

    public enum Outcome: Sendable, Hashable {
        case matched(Match)
        /// The path exists for another HTTP method.
        case methodNotAllowed
        case notFound
    }

    static let identityToolkitHost = "identitytoolkit.googleapis.com"
    static let secureTokenHost = "securetoken.googleapis.com"
    let operations: [DiscoverySchemas.Operation]

    public init(schemas: DiscoverySchemas) {
        operations = schemas.operations
    }

    public func route(method: String, path: String) -> Outcome {
        guard var segments = Self.segments(of: path) else { return .notFound }
        var host: String? = nil
        if let first = segments.first, first == Self.identityToolkitHost || first == Self.secureTokenHost {
            host = first
            segments.removeFirst()
        }
        if segments.first == "admin", segments.count > 1, segments[1] == "v2" {
            segments.removeFirst()
        }
        let effectiveHost = host ?? (segments == ["v1", "token"] ? Self.secureTokenHost : Self.identityToolkitHost)
        var pathExists = false
        for operation in operations where operation.host == effectiveHost && operation.segments.count == segments.count {
            guard let parameters = Self.bind(operation.segments, to: segments) else { continue }
            guard operation.method == method else {
                pathExists = true
                continue
            }
            return .matched(Match(operation: operation, pathParameters: parameters))
        }
        return pathExists ? .methodNotAllowed : .notFound
    }

    /// Path segments, percent-decoded; `nil` when a segment does not decode.
    static func segments(of path: String) -> [String]? {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var result: [String] = []
        for raw in withoutQuery.split(separator: "/") {
            // Without a `%` there is nothing to decode (Foundation's decoder costs about as much as
            // the rest of the routing).
            guard raw.contains("%") else {
                result.append(String(raw))
                continue
            }
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            result.append(decoded)
        }
        return result
    }

    static func bind(_ template: [String], to segments: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (pattern, segment) in zip(template, segments) {
            if pattern.hasPrefix("{"), let close = pattern.firstIndex(of: "}") {
                // `{name}` is the whole segment; `{name}:verb` (`projects/{p}:createSessionCookie`) its start.
                let suffix = pattern[pattern.index(after: close)...]
                // No id has a colon: a `{name}` segment never swallows another operation's `:verb`.
                guard segment.hasSuffix(suffix), segment.count > suffix.count, !segment.dropLast(suffix.count).contains(":") else {
                    return nil
                }
                parameters[String(pattern[pattern.index(after: pattern.startIndex)..<close])] = String(segment.dropLast(suffix.count))
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}
