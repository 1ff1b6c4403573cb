import IdentityToolkit
import JSONRPC

/// `updateMask` (contract §2.15-§2.16): comma-separated dotted paths. For each path the body's
/// value replaces the resource's; a path whose body value is absent or null, or that walks into a
/// value that is not an object, is skipped. An empty mask means a full replacement.
struct UpdateMask: Sendable {
    let paths: [[String]]

    init(_ text: String?) throws {
        let entries = (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard entries.count <= 100, entries.allSatisfy({ $0.utf8.count <= 256 }) else {
            throw IdentityToolkitError.invalidPayload("updateMask has too many or too long paths")
        }
        paths = entries.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
    }

    var isEmpty: Bool { paths.isEmpty }

    /// `resource` with every masked path copied from `body`.
    func apply(_ body: JSONValue, to resource: JSONValue) -> JSONValue {
        var result = resource
        for path in paths where !path.contains(where: \.isEmpty) {
            guard let value = Self.value(at: path, in: body), value != .null else { continue }
            if let updated = Self.setting(value, at: path[...], in: result) { result = updated }
        }
        return result
    }

    static func value(at path: [String], in value: JSONValue) -> JSONValue? {
        var current = value
        for key in path {
            guard case .object(let members) = current, let next = members[key] else { return nil }
            current = next
        }
        return current
    }

    /// `value` placed at `path` inside `container` (missing objects on the way are created), or
    /// `nil` when the path goes through something that is not an object.
    static func setting(_ value: JSONValue, at path: ArraySlice<String>, in container: JSONValue) -> JSONValue? {
        guard let key = path.first else { return value }
        var members: [String: JSONValue]
        switch container {
        case .object(let existing): members = existing
        case .null: members = [:]
        default: return nil
        }
        guard let child = setting(value, at: path.dropFirst(), in: members[key] ?? .null) else { return nil }
        members[key] = child
        return .object(members)
    }
}
