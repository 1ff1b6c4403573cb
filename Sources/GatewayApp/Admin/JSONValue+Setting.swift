import JSONRPC

extension JSONValue {
    /// This object with `key` set to `value` (anything but an object stays as it is).
    func setting(_ key: String, to value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }
}
